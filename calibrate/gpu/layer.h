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

// Attention dropout between the softmax and the second GEMM, as Megatron-LM's unfused attention runs it
// (and as the step model's unfused attention counts it): the dropped probabilities (like scores) and a
// one-byte mask per score.
struct Dropout {
    void* dropped = nullptr;
    void* mask = nullptr;
    float keep = 0.9f;
};

// scores: heads * seq * seq bf16; out: token-major [seq x heads*headDim]. With `dropout`, P V reads the
// dropped probabilities.
void attentionForward(cublasHandle_t blas, cudaStream_t stream, const AttentionDims& a, const void* qkv,
                      void* scores, void* out, const Dropout* dropout = nullptr);
// p: the forward's scores after softmax; dscores like scores; dqkv like qkv (dQ written); dkv: scratch of
// 2 * heads * seq * headDim bf16 for per-head dK and dV. With `dropout` (the forward's), dV reads the
// dropped probabilities and dP passes back through the mask.
void attentionBackward(cublasHandle_t blas, cudaStream_t stream, const AttentionDims& a, const void* qkv,
                       const void* p, const void* dout, void* dscores, void* dqkv, void* dkv,
                       const Dropout* dropout = nullptr);

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
// Forward and backward of one gated-FFN, RMSNorm, rotary, grouped-query layer in bf16, its attention unfused
// with dropout (the step model's unfused attention). Throws GpuError.
LayerResult benchLayer(GemmRunner& gemm, cublasHandle_t blas, cudaStream_t stream, const LayerShape& shape,
                       int repeats);

} // namespace choreo::gpucal
