#pragma once
// Attention as batched GEMMs with softmax, and one transformer layer's forward and backward, run as the
// kernels the step model counts (models::stageCost).

#include "calibrate/gpu/gemm.h"

namespace choreo::gpucal {

// Causal attention over one sequence: `heads` query heads, `kvHeads` key/value heads (grouped-query when
// fewer), head dimension `headDim`, Q, K and V in one token-major block of row stride
// (heads + 2 kvHeads) * headDim, as a fused QKV projection writes them.
struct AttentionDims {
    int heads = 0, kvHeads = 0, headDim = 0, seq = 0;
    [[nodiscard]] int ld() const { return (heads + 2 * kvHeads) * headDim; }
    // The causal half of 4 * seq^2 * headDim per head: what the step model counts.
    [[nodiscard]] double causalFlops() const { return 2.0 * heads * double(seq) * seq * headDim; }
};

// scores: heads * seq * seq bf16; out: token-major [seq x heads*headDim].
void attentionForward(cublasHandle_t blas, cudaStream_t stream, const AttentionDims& a, const void* qkv,
                      void* scores, void* out);
// p: the forward's scores after softmax; dscores like scores; dqkv like qkv (dQ written); dkv: scratch of
// 2 * heads * seq * headDim bf16 for per-head dK and dV.
void attentionBackward(cublasHandle_t blas, cudaStream_t stream, const AttentionDims& a, const void* qkv,
                       const void* p, const void* dout, void* dscores, void* dqkv, void* dkv);

struct AttentionResult {
    double time_s = 0;
    double max_abs_error = 0; // sampled outputs against a reference
};
// Times causal attention forward (median after warm-up) and checks sampled outputs. Throws GpuError.
AttentionResult benchAttention(cublasHandle_t blas, cudaStream_t stream, const AttentionDims& a, int repeats);

struct LayerShape {
    int hidden = 4096, heads = 32, kvHeads = 8, ffn = 14336, seq = 4096; // Llama 3 8B, micro-batch 1, tp 1
};
struct LayerResult {
    double forward_s = 0, backward_s = 0;
};
// Forward and backward of one gated-FFN, RMSNorm, rotary, grouped-query layer in bf16. Throws GpuError.
LayerResult benchLayer(GemmRunner& gemm, cublasHandle_t blas, cudaStream_t stream, const LayerShape& shape,
                       int repeats);

} // namespace choreo::gpucal
