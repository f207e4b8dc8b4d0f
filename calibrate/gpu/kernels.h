#pragma once
// Choreo's own CUDA kernels for calibration (kernels.cu): fills, streaming, launch, softmax, reference
// checks and the element-wise kernels of one transformer layer. Each launcher enqueues on `stream`.

#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace choreo::gpucal {

enum class DType { F32, BF16, F16, F8E4M3, F64 };

std::size_t dtypeBytes(DType t);

// Pseudo-random values uniform in [lo, hi), from a counter hash of (seed, index): deterministic, never
// a zero-filled buffer.
void fillUniform(void* data, std::size_t count, DType type, std::uint64_t seed, float lo, float hi,
                 cudaStream_t stream);

// Blocks for a grid-stride streaming kernel of 256 threads that fills every SM.
int streamingBlocks(int device);

// dst = src over `bytes` (a multiple of 16) with 16-byte vector loads and stores, in one of
// copyVariants() forms (how many loads each thread keeps in flight, cache hints).
int copyVariants();
const char* copyVariantName(int variant);
void copyKernel(const void* src, void* dst, std::size_t bytes, int blocks, cudaStream_t stream,
                int variant = 0);
// a = b + scalar * c over `count` floats (a multiple of 4), 16-byte vectors.
void triadKernel(float* a, const float* b, const float* c, float scalar, std::size_t count, int blocks,
                 cudaStream_t stream);
// Elements (of 16 bytes) where a and b differ, into *mismatches (device memory, zeroed by the caller).
void countMismatches(const void* a, const void* b, std::size_t bytes, unsigned long long* mismatches,
                     cudaStream_t stream);
// Elements where |a - (b + scalar c)| exceeds a rounding bound.
void countTriadErrors(const float* a, const float* b, const float* c, float scalar, std::size_t count,
                      unsigned long long* errors, cudaStream_t stream);

// An empty kernel: the launch cost alone.
void emptyKernel(cudaStream_t stream);

// Reference check of a TN GEMM: C(m x n, ldc m, col-major) = A^T B with A stored k x m (ld k) and B
// stored k x n (ld k). For `samples` (i, j) pairs computes in double the entry and the sum of |products|;
// writes ref[s], magnitude[s] and got[s] (C's entry as stored, widened).
void referenceTn(const void* a, const void* b, const void* c, DType ab, DType ct, int m, int n, int k,
                 const int* rows, const int* cols, int samples, double* ref, double* magnitude, double* got,
                 cudaStream_t stream);

// Row softmax in place over bf16 scores laid out as `rows` contiguous rows of `cols`; row r is query
// r % cols of its head; with `causal` keys after the query are masked. Scores are scaled by `scale`.
void softmaxRows(void* scores, long long rows, int cols, float scale, bool causal, cudaStream_t stream);
// dS = P * (dP - rowsum(dP * P)) in place into dP (bf16), rows as softmaxRows.
void softmaxBackward(const void* p, void* dp, long long rows, int cols, float scale, cudaStream_t stream);
// Attention dropout over `count` bf16 elements (a multiple of 8): out = p / keep where kept, else 0, and a
// one-byte mask per element; the backward scales a gradient in place by the same mask.
void dropout(const void* p, void* out, void* mask, std::size_t count, float keep, std::uint64_t seed,
             cudaStream_t stream);
void dropoutBackward(void* grad, const void* mask, std::size_t count, float keep, cudaStream_t stream);
// Reference causal attention for one (head, query): out[c] for c < d, from bf16 Q, K, V laid out token-major
// with row stride `ld` (Q at q + query*ld, K at k + key*ld, V likewise), scale 1/sqrt(d).
void referenceAttention(const void* q, const void* k, const void* v, int ld, int d, int query, float scale,
                        float* out, cudaStream_t stream);

// Element-wise kernels of one layer, bf16, token-major [tokens x width].
void rmsNorm(const void* x, const void* weight, void* y, int tokens, int width, cudaStream_t stream);
void rmsNormBackward(const void* x, const void* weight, const void* dy, void* dx, int tokens, int width,
                     cudaStream_t stream);
void addInto(const void* a, const void* b, void* out, std::size_t count, cudaStream_t stream);
// Rotary embedding in place on the first `width` columns of rows of stride `ld` (Q and K of a QKV block).
void rotary(void* x, int tokens, int width, int ld, int headDim, bool inverse, cudaStream_t stream);
// out[t, i] = silu(gu[t, i]) * gu[t, f + i] for a gated FFN's [tokens x 2f] block.
void swiglu(const void* gu, void* out, int tokens, int f, cudaStream_t stream);
void swigluBackward(const void* gu, const void* dout, void* dgu, int tokens, int f, cudaStream_t stream);

} // namespace choreo::gpucal
