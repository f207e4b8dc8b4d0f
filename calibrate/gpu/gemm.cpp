#include "calibrate/gpu/gemm.h"

#include <vector>

namespace choreo::gpucal {

const char* toString(GemmPrecision p) {
    switch (p) {
    case GemmPrecision::Fp32:
        return "fp32";
    case GemmPrecision::Tf32:
        return "tf32";
    case GemmPrecision::Bf16:
        return "bf16";
    case GemmPrecision::Fp16:
        return "fp16";
    case GemmPrecision::Fp8:
        return "fp8";
    }
    return "?";
}

DType operandType(GemmPrecision p) {
    switch (p) {
    case GemmPrecision::Fp32:
    case GemmPrecision::Tf32:
        return DType::F32;
    case GemmPrecision::Bf16:
        return DType::BF16;
    case GemmPrecision::Fp16:
        return DType::F16;
    case GemmPrecision::Fp8:
        return DType::F8E4M3;
    }
    return DType::F32;
}

DType outputType(GemmPrecision p) {
    return p == GemmPrecision::Fp8 ? DType::BF16 : operandType(p);
}

bool supported(GemmPrecision p, int major, int minor) {
    switch (p) {
    case GemmPrecision::Fp32:
    case GemmPrecision::Fp16:
        return true;
    case GemmPrecision::Tf32:
    case GemmPrecision::Bf16:
        return major >= 8;
    case GemmPrecision::Fp8:
        return major > 8 || (major == 8 && minor >= 9); // Ada, Hopper, Blackwell
    }
    return false;
}

double tolerance(GemmPrecision p) {
    // Relative to sum |a_il b_lj|: fp32 accumulates rounding over k (about sqrt(k) * 6e-8, 8e-6 at k =
    // 16,384, with room for split-k orders); tf32 rounds operands to 10 bits; 16-bit and fp8 results are
    // rounded to bf16/fp16 on output (their operands are exact, being drawn in that type). A wrong
    // result is off by order 1.
    switch (p) {
    case GemmPrecision::Fp32:
        return 1e-4;
    case GemmPrecision::Tf32:
        return 4e-3;
    case GemmPrecision::Bf16:
    case GemmPrecision::Fp8:
        return 1e-2;
    case GemmPrecision::Fp16:
        return 4e-3;
    }
    return 0;
}

namespace {

cudaDataType cudaType(DType t) {
    switch (t) {
    case DType::F32:
        return CUDA_R_32F;
    case DType::BF16:
        return CUDA_R_16BF;
    case DType::F16:
        return CUDA_R_16F;
    case DType::F8E4M3:
        return CUDA_R_8F_E4M3;
    case DType::F64:
        return CUDA_R_64F;
    }
    return CUDA_R_32F;
}

} // namespace

struct GemmRunner::Plan {
    cublasLtMatmulDesc_t op{};
    cublasLtMatrixLayout_t a{}, b{}, c{};
    cublasLtMatmulAlgo_t algo{};
    cublasLtMatmulAlgo_t heuristic{}; // the heuristic's first choice
    ~Plan() {
        if (c)
            cublasLtMatrixLayoutDestroy(c);
        if (b)
            cublasLtMatrixLayoutDestroy(b);
        if (a)
            cublasLtMatrixLayoutDestroy(a);
        if (op)
            cublasLtMatmulDescDestroy(op);
    }
};

GemmRunner::GemmRunner(cudaStream_t stream, std::size_t workspaceBytes, int candidates)
    : stream_(stream)
    , workspace_(workspaceBytes)
    , candidates_(candidates) {
    CHOREO_CHECK(cublasLtCreate(&handle_));
}

GemmRunner::~GemmRunner() {
    plans_.clear();
    cublasLtDestroy(handle_);
}

void GemmRunner::launch(const Plan& p, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b,
                        void* d) {
    const float alpha = 1.0f, beta = 0.0f;
    CHOREO_CHECK(cublasLtMatmul(handle_, p.op, &alpha, a, p.a, b, p.b, &beta, d, p.c, d, p.c, &algo,
                                workspace_.get(), workspace_.bytes(), stream_));
}

GemmRunner::Plan& GemmRunner::plan(GemmPrecision precision, const GemmShape& s, const void* a, const void* b,
                                   void* d) {
    auto& slot = plans_[{precision, s}];
    if (slot)
        return *slot;
    auto p = std::make_unique<Plan>();
    const cublasComputeType_t compute =
        precision == GemmPrecision::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    CHOREO_CHECK(cublasLtMatmulDescCreate(&p->op, compute, CUDA_R_32F));
    const cublasOperation_t ta = s.transA ? CUBLAS_OP_T : CUBLAS_OP_N,
                            tb = s.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    CHOREO_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHOREO_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    const cudaDataType in = cudaType(operandType(precision)), out = cudaType(outputType(precision));
    // Stored shapes: op(A) is m x k, op(B) is k x n, D is m x n.
    CHOREO_CHECK(cublasLtMatrixLayoutCreate(&p->a, in, s.transA ? s.k : s.m, s.transA ? s.m : s.k, s.lda));
    CHOREO_CHECK(cublasLtMatrixLayoutCreate(&p->b, in, s.transB ? s.n : s.k, s.transB ? s.k : s.n, s.ldb));
    CHOREO_CHECK(cublasLtMatrixLayoutCreate(&p->c, out, s.m, s.n, s.ldc));

    cublasLtMatmulPreference_t pref{};
    CHOREO_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = workspace_.bytes();
    CHOREO_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(candidates_));
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(handle_, p->op, p->a, p->b, p->c, p->c, pref,
                                                             candidates_, results.data(), &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0)
        throw GpuError(std::string("cuBLASLt has no ") + toString(precision) + " algorithm for m=" +
                       std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
    // The fastest candidate on these operands: "the best cuBLAS achieves" on the shape.
    p->heuristic = results[0].algo;
    double best = -1;
    for (int i = 0; i < found; ++i) {
        if (results[static_cast<std::size_t>(i)].state != CUBLAS_STATUS_SUCCESS)
            continue;
        const cublasLtMatmulAlgo_t algo = results[static_cast<std::size_t>(i)].algo;
        double t = 0;
        try {
            t = timeMedian(stream_, 1, 3, 1, [&] { launch(*p, algo, a, b, d); });
        } catch (const GpuError&) {
            cudaGetLastError(); // a candidate that fails to launch is skipped
            continue;
        }
        if (best < 0 || t < best) {
            best = t;
            p->algo = algo;
        }
    }
    if (best < 0)
        throw GpuError(std::string("no cuBLASLt ") + toString(precision) + " candidate ran for m=" +
                       std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
    slot = std::move(p);
    return *slot;
}

void GemmRunner::run(GemmPrecision precision, const GemmShape& s, const void* a, const void* b, void* d) {
    const Plan& p = plan(precision, s, a, b, d);
    launch(p, p.algo, a, b, d);
}

GemmRunner::Timing GemmRunner::timeBoth(GemmPrecision precision, const GemmShape& s, const void* a,
                                        const void* b, void* d, int warmup, int repeats, int inner) {
    const Plan& p = plan(precision, s, a, b, d);
    // The heuristic's group first: the chosen algorithm's result is the one left in `d`.
    const auto t =
        timeGroups(stream_, warmup, repeats, inner,
                   {[&] { launch(p, p.heuristic, a, b, d); }, [&] { launch(p, p.algo, a, b, d); }});
    return {t[1], t[0]};
}

} // namespace choreo::gpucal
