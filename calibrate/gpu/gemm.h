#pragma once
// Matrix multiply through cuBLASLt at each precision, best of the heuristic's candidate algorithms.

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "calibrate/gpu/cudacheck.h"
#include "calibrate/gpu/kernels.h"

namespace choreo::gpucal {

enum class GemmPrecision { Fp32, Tf32, Bf16, Fp16, Fp8 };

const char* toString(GemmPrecision p);
// Operand and output types: fp8 multiplies e4m3 operands into a bf16 result.
DType operandType(GemmPrecision p);
DType outputType(GemmPrecision p);
// Whether a device of compute capability major.minor runs this precision on its matrix units.
bool supported(GemmPrecision p, int major, int minor);
// Largest |got - ref| / sum|products| a correct result stays within.
double tolerance(GemmPrecision p);

// One GEMM D = alpha op(A) op(B), column-major, as cuBLASLt sees it.
struct GemmShape {
    bool transA = true, transB = false;
    int m = 0, n = 0, k = 0;
    int lda = 0, ldb = 0, ldc = 0;
    auto key() const { return std::tie(transA, transB, m, n, k, lda, ldb, ldc); }
    bool operator<(const GemmShape& o) const { return key() < o.key(); }
};

class GemmRunner {
public:
    GemmRunner(cudaStream_t stream, std::size_t workspaceBytes, int candidates);
    ~GemmRunner();
    GemmRunner(const GemmRunner&) = delete;
    GemmRunner& operator=(const GemmRunner&) = delete;

    // Picks the fastest of the heuristic's candidates for this shape on first use (timing each on the given
    // operands), then runs it. Throws GpuError when cuBLASLt has no algorithm.
    void run(GemmPrecision p, const GemmShape& s, const void* a, const void* b, void* d);
    // Median seconds per call of the chosen algorithm and of the heuristic's first choice (what cuBLASLt
    // runs when nobody picks), timed in alternating groups so that both see the same clocks: a GPU at its
    // power limit changes clocks from one second to the next. `inner` calls per group; `d` holds the chosen
    // algorithm's result afterwards.
    struct Timing {
        double chosen_s = 0, heuristic_s = 0;
    };
    Timing timeBoth(GemmPrecision p, const GemmShape& s, const void* a, const void* b, void* d, int warmup,
                    int repeats, int inner);

private:
    struct Plan;
    Plan& plan(GemmPrecision p, const GemmShape& s, const void* a, const void* b, void* d);
    void launch(const Plan& plan, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d);

    cudaStream_t stream_;
    cublasLtHandle_t handle_{};
    DeviceBuffer workspace_;
    int candidates_;
    std::map<std::pair<GemmPrecision, GemmShape>, std::unique_ptr<Plan>> plans_;
};

} // namespace choreo::gpucal
