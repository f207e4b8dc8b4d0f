#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "calibrate/gpu/cudacheck.h"
#include "calibrate/gpu/kernels.h"

namespace choreo::gpucal {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ std::uint64_t mix(std::uint64_t x) {
    // splitmix64 finaliser: a good counter hash.
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

__device__ __forceinline__ float loadFloat(const void* p, std::size_t i, DType t) {
    switch (t) {
    case DType::F32:
        return static_cast<const float*>(p)[i];
    case DType::BF16:
        return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::F16:
        return __half2float(static_cast<const __half*>(p)[i]);
    case DType::F8E4M3:
        return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(p)[i]);
    case DType::F64:
        return static_cast<float>(static_cast<const double*>(p)[i]);
    }
    return 0.0f;
}

__device__ __forceinline__ double loadDouble(const void* p, std::size_t i, DType t) {
    return t == DType::F64 ? static_cast<const double*>(p)[i] : static_cast<double>(loadFloat(p, i, t));
}

__global__ void fillKernel(void* data, std::size_t count, DType type, std::uint64_t seed, float lo,
                           float hi) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += stride) {
        const float u =
            static_cast<float>(mix(seed ^ (i * 0x2545f4914f6cdd1dULL)) >> 40) * (1.0f / 16777216.0f);
        const float v = lo + (hi - lo) * u;
        switch (type) {
        case DType::F32:
            static_cast<float*>(data)[i] = v;
            break;
        case DType::BF16:
            static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(v);
            break;
        case DType::F16:
            static_cast<__half*>(data)[i] = __float2half(v);
            break;
        case DType::F8E4M3:
            static_cast<__nv_fp8_e4m3*>(data)[i] = __nv_fp8_e4m3(v);
            break;
        case DType::F64:
            static_cast<double*>(data)[i] = static_cast<double>(v);
            break;
        }
    }
}

// `Unroll` independent 16-byte loads in flight per thread before the stores; `Streaming` marks them
// evict-first (__ldcs/__stcs), since nothing is read twice.
template <int Unroll, bool Streaming>
__global__ void copy16(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    for (; i + (Unroll - 1) * stride < n; i += Unroll * stride) {
        uint4 v[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u)
            v[u] = Streaming ? __ldcs(src + i + u * stride) : src[i + u * stride];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
            if (Streaming)
                __stcs(dst + i + u * stride, v[u]);
            else
                dst[i + u * stride] = v[u];
        }
    }
    for (; i < n; i += stride)
        dst[i] = src[i];
}

using CopyFn = void (*)(const uint4*, uint4*, std::size_t);
struct CopyVariant {
    const char* name;
    CopyFn kernel;
};
const CopyVariant kCopyVariants[] = {{"4 loads in flight", copy16<4, false>},
                                     {"8 loads in flight", copy16<8, false>},
                                     {"4 loads in flight, streaming", copy16<4, true>},
                                     {"8 loads in flight, streaming", copy16<8, true>}};

__global__ void triad16(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                        float s, std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride) {
        const float4 x = b[i], y = c[i];
        a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
    }
}

__global__ void mismatch16(const uint4* a, const uint4* b, std::size_t n, unsigned long long* count) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride) {
        const uint4 x = a[i], y = b[i];
        local += (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) ? 1 : 0;
    }
    if (local)
        atomicAdd(count, local);
}

__global__ void triadErrors(const float* a, const float* b, const float* c, float s, std::size_t n,
                            unsigned long long* count) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride) {
        const double expect = static_cast<double>(b[i]) + static_cast<double>(s) * static_cast<double>(c[i]);
        local += fabs(static_cast<double>(a[i]) - expect) > 1e-6 * (fabs(expect) + 1.0) ? 1 : 0;
    }
    if (local)
        atomicAdd(count, local);
}

__global__ void nothing() {}

__global__ void referenceTnKernel(const void* a, const void* b, const void* c, DType ab, DType ct, int m,
                                  int k, const int* rows, const int* cols, int samples, double* ref,
                                  double* magnitude, double* got) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= samples)
        return;
    const std::size_t i = rows[s], j = cols[s];
    double sum = 0, mag = 0;
    for (std::size_t l = 0; l < static_cast<std::size_t>(k); ++l) {
        const double p = loadDouble(a, l + i * k, ab) * loadDouble(b, l + j * k, ab);
        sum += p;
        mag += fabs(p);
    }
    ref[s] = sum;
    magnitude[s] = mag;
    got[s] = loadDouble(c, i + j * static_cast<std::size_t>(m), ct);
}

// Block-wide reductions over kThreads threads.
__device__ float blockMax(float v, float* scratch) {
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (threadIdx.x % 32 == 0)
        scratch[threadIdx.x / 32] = v;
    __syncthreads();
    float r = scratch[0];
    for (int w = 1; w < kThreads / 32; ++w)
        r = fmaxf(r, scratch[w]);
    __syncthreads();
    return r;
}

__device__ float blockSum(float v, float* scratch) {
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0)
        scratch[threadIdx.x / 32] = v;
    __syncthreads();
    float r = 0;
    for (int w = 0; w < kThreads / 32; ++w)
        r += scratch[w];
    __syncthreads();
    return r;
}

__global__ void softmaxKernel(__nv_bfloat16* scores, int cols, float scale, bool causal) {
    __shared__ float scratch[kThreads / 32];
    __nv_bfloat16* row = scores + blockIdx.x * static_cast<std::size_t>(cols);
    const int query = static_cast<int>(blockIdx.x % static_cast<unsigned>(cols));
    const int limit = causal ? query + 1 : cols;
    float mx = -INFINITY;
    for (int j = threadIdx.x; j < limit; j += kThreads)
        mx = fmaxf(mx, __bfloat162float(row[j]) * scale);
    mx = blockMax(mx, scratch);
    float sum = 0;
    for (int j = threadIdx.x; j < limit; j += kThreads)
        sum += __expf(__bfloat162float(row[j]) * scale - mx);
    sum = blockSum(sum, scratch);
    const float inv = 1.0f / sum;
    for (int j = threadIdx.x; j < cols; j += kThreads)
        row[j] = __float2bfloat16(j < limit ? __expf(__bfloat162float(row[j]) * scale - mx) * inv : 0.0f);
}

__global__ void softmaxBackwardKernel(const __nv_bfloat16* p, __nv_bfloat16* dp, int cols, float scale) {
    __shared__ float scratch[kThreads / 32];
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(cols);
    float dot = 0;
    for (int j = threadIdx.x; j < cols; j += kThreads)
        dot += __bfloat162float(p[base + j]) * __bfloat162float(dp[base + j]);
    dot = blockSum(dot, scratch);
    for (int j = threadIdx.x; j < cols; j += kThreads) {
        const float pj = __bfloat162float(p[base + j]);
        dp[base + j] = __float2bfloat16(scale * pj * (__bfloat162float(dp[base + j]) - dot));
    }
}

// Attention dropout: out = keep-mask ? p / keep : 0, eight bf16 per thread and step; the mask is one byte
// per element from a counter hash, as the backward reads it.
__global__ void dropoutKernel(const uint4* p, uint4* out, uint2* mask, std::size_t groups, float keep,
                              std::uint64_t seed) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const auto threshold = static_cast<std::uint32_t>(keep * 4294967295.0f);
    for (std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; g < groups;
         g += stride) {
        const std::uint64_t bits = mix(seed ^ (g * 0x2545f4914f6cdd1dULL));
        const std::uint64_t bits2 = mix(bits);
        uint4 v = p[g];
        auto* e = reinterpret_cast<__nv_bfloat16*>(&v);
        std::uint64_t packed = 0;
        for (int i = 0; i < 8; ++i) {
            const auto r = static_cast<std::uint32_t>(((i < 4 ? bits : bits2) >> (16 * (i % 4))) & 0xffff)
                           << 16;
            const bool kept = r < threshold;
            packed |= static_cast<std::uint64_t>(kept ? 1 : 0) << (8 * i);
            e[i] = __float2bfloat16(kept ? __bfloat162float(e[i]) / keep : 0.0f);
        }
        out[g] = v;
        mask[g] = make_uint2(static_cast<unsigned>(packed), static_cast<unsigned>(packed >> 32));
    }
}

__global__ void dropoutBackwardKernel(uint4* d, const uint2* mask, std::size_t groups, float keep) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; g < groups;
         g += stride) {
        uint4 v = d[g];
        const uint2 m = mask[g];
        const std::uint64_t packed = m.x | (static_cast<std::uint64_t>(m.y) << 32);
        auto* e = reinterpret_cast<__nv_bfloat16*>(&v);
        for (int i = 0; i < 8; ++i)
            e[i] = __float2bfloat16((packed >> (8 * i)) & 1 ? __bfloat162float(e[i]) / keep : 0.0f);
        d[g] = v;
    }
}

__global__ void referenceAttentionKernel(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                         const __nv_bfloat16* v, int ld, int d, int query, float scale,
                                         float* out) {
    // One thread per output column c; each recomputes the scores (a check, not a benchmark).
    const int c = threadIdx.x;
    if (c >= d)
        return;
    float mx = -INFINITY;
    for (int j = 0; j <= query; ++j) {
        float s = 0;
        for (int x = 0; x < d; ++x)
            s += __bfloat162float(q[static_cast<std::size_t>(query) * ld + x]) *
                 __bfloat162float(k[static_cast<std::size_t>(j) * ld + x]);
        mx = fmaxf(mx, s * scale);
    }
    float sum = 0, acc = 0;
    for (int j = 0; j <= query; ++j) {
        float s = 0;
        for (int x = 0; x < d; ++x)
            s += __bfloat162float(q[static_cast<std::size_t>(query) * ld + x]) *
                 __bfloat162float(k[static_cast<std::size_t>(j) * ld + x]);
        const float e = __expf(s * scale - mx);
        sum += e;
        acc += e * __bfloat162float(v[static_cast<std::size_t>(j) * ld + c]);
    }
    out[c] = acc / sum;
}

__global__ void rmsNormKernel(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int width) {
    __shared__ float scratch[kThreads / 32];
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(width);
    float ss = 0;
    for (int i = threadIdx.x; i < width; i += kThreads) {
        const float v = __bfloat162float(x[base + i]);
        ss += v * v;
    }
    const float r = rsqrtf(blockSum(ss, scratch) / width + 1e-5f);
    for (int i = threadIdx.x; i < width; i += kThreads)
        y[base + i] = __float2bfloat16(__bfloat162float(x[base + i]) * r * __bfloat162float(w[i]));
}

__global__ void rmsNormBackwardKernel(const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* dy,
                                      __nv_bfloat16* dx, int width) {
    __shared__ float scratch[kThreads / 32];
    const std::size_t base = blockIdx.x * static_cast<std::size_t>(width);
    float ss = 0, dot = 0;
    for (int i = threadIdx.x; i < width; i += kThreads) {
        const float v = __bfloat162float(x[base + i]);
        ss += v * v;
        dot += v * __bfloat162float(w[i]) * __bfloat162float(dy[base + i]);
    }
    const float r = rsqrtf(blockSum(ss, scratch) / width + 1e-5f);
    const float m = blockSum(dot, scratch) / width;
    for (int i = threadIdx.x; i < width; i += kThreads) {
        const float v = __bfloat162float(x[base + i]);
        const float g = __bfloat162float(w[i]) * __bfloat162float(dy[base + i]);
        dx[base + i] = __float2bfloat16(r * g - v * r * r * r * m);
    }
}

__global__ void addKernel(const __nv_bfloat162* a, const __nv_bfloat162* b, __nv_bfloat162* out,
                          std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
        out[i] = __hadd2(a[i], b[i]);
}

__global__ void rotaryKernel(__nv_bfloat16* x, int tokens, int width, int ld, int headDim, float sign) {
    const std::size_t pairs = static_cast<std::size_t>(tokens) * (width / 2);
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; p < pairs;
         p += stride) {
        const int t = static_cast<int>(p / (width / 2));
        const int c = static_cast<int>(p % (width / 2)) * 2;
        const int f = (c % headDim) / 2;
        const float angle = sign * t * __powf(10000.0f, -2.0f * f / headDim);
        float sn, cs;
        __sincosf(angle, &sn, &cs);
        __nv_bfloat16* e = x + static_cast<std::size_t>(t) * ld + c;
        const float a = __bfloat162float(e[0]), b = __bfloat162float(e[1]);
        e[0] = __float2bfloat16(a * cs - b * sn);
        e[1] = __float2bfloat16(a * sn + b * cs);
    }
}

__global__ void swigluKernel(const __nv_bfloat16* gu, __nv_bfloat16* out, int tokens, int f) {
    const std::size_t n = static_cast<std::size_t>(tokens) * f;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < n;
         e += stride) {
        const std::size_t t = e / f, i = e % f;
        const float g = __bfloat162float(gu[t * 2 * f + i]), u = __bfloat162float(gu[t * 2 * f + f + i]);
        out[e] = __float2bfloat16(g / (1.0f + __expf(-g)) * u);
    }
}

__global__ void swigluBackwardKernel(const __nv_bfloat16* gu, const __nv_bfloat16* dout, __nv_bfloat16* dgu,
                                     int tokens, int f) {
    const std::size_t n = static_cast<std::size_t>(tokens) * f;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < n;
         e += stride) {
        const std::size_t t = e / f, i = e % f;
        const float g = __bfloat162float(gu[t * 2 * f + i]), u = __bfloat162float(gu[t * 2 * f + f + i]);
        const float d = __bfloat162float(dout[e]);
        const float sig = 1.0f / (1.0f + __expf(-g));
        dgu[t * 2 * f + i] = __float2bfloat16(d * u * sig * (1.0f + g * (1.0f - sig)));
        dgu[t * 2 * f + f + i] = __float2bfloat16(d * g * sig);
    }
}

int gridFor(std::size_t work) {
    // Enough blocks for grid-stride loops to cover the device several times over, capped.
    const std::size_t blocks = (work + kThreads - 1) / kThreads;
    return static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

} // namespace

std::size_t dtypeBytes(DType t) {
    switch (t) {
    case DType::F32:
        return 4;
    case DType::BF16:
    case DType::F16:
        return 2;
    case DType::F8E4M3:
        return 1;
    case DType::F64:
        return 8;
    }
    return 0;
}

void fillUniform(void* data, std::size_t count, DType type, std::uint64_t seed, float lo, float hi,
                 cudaStream_t stream) {
    fillKernel<<<gridFor(count), kThreads, 0, stream>>>(data, count, type, seed, lo, hi);
    CHOREO_CHECK(cudaGetLastError());
}

int streamingBlocks(int device) {
    int sms = 0, perSm = 0;
    CHOREO_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHOREO_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, copy16<4, false>, kThreads, 0));
    return sms * (perSm > 0 ? perSm : 1);
}

int copyVariants() {
    return static_cast<int>(sizeof kCopyVariants / sizeof kCopyVariants[0]);
}

const char* copyVariantName(int variant) {
    return variant >= 0 && variant < copyVariants() ? kCopyVariants[variant].name : "?";
}

void copyKernel(const void* src, void* dst, std::size_t bytes, int blocks, cudaStream_t stream, int variant) {
    if (variant < 0 || variant >= copyVariants())
        throw GpuError("copy kernel variant " + std::to_string(variant) + " does not exist");
    kCopyVariants[variant].kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(src),
                                                                   static_cast<uint4*>(dst), bytes / 16);
    CHOREO_CHECK(cudaGetLastError());
}

void triadKernel(float* a, const float* b, const float* c, float scalar, std::size_t count, int blocks,
                 cudaStream_t stream) {
    triad16<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<float4*>(a), reinterpret_cast<const float4*>(b),
                                             reinterpret_cast<const float4*>(c), scalar, count / 4);
    CHOREO_CHECK(cudaGetLastError());
}

void countMismatches(const void* a, const void* b, std::size_t bytes, unsigned long long* mismatches,
                     cudaStream_t stream) {
    mismatch16<<<gridFor(bytes / 16), kThreads, 0, stream>>>(
        static_cast<const uint4*>(a), static_cast<const uint4*>(b), bytes / 16, mismatches);
    CHOREO_CHECK(cudaGetLastError());
}

void countTriadErrors(const float* a, const float* b, const float* c, float scalar, std::size_t count,
                      unsigned long long* errors, cudaStream_t stream) {
    triadErrors<<<gridFor(count), kThreads, 0, stream>>>(a, b, c, scalar, count, errors);
    CHOREO_CHECK(cudaGetLastError());
}

void emptyKernel(cudaStream_t stream) {
    nothing<<<1, 32, 0, stream>>>();
}

void referenceTn(const void* a, const void* b, const void* c, DType ab, DType ct, int m, int n, int k,
                 const int* rows, const int* cols, int samples, double* ref, double* magnitude, double* got,
                 cudaStream_t stream) {
    (void)n;
    referenceTnKernel<<<(samples + 63) / 64, 64, 0, stream>>>(a, b, c, ab, ct, m, k, rows, cols, samples, ref,
                                                              magnitude, got);
    CHOREO_CHECK(cudaGetLastError());
}

void softmaxRows(void* scores, long long rows, int cols, float scale, bool causal, cudaStream_t stream) {
    softmaxKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(scores),
                                                                        cols, scale, causal);
    CHOREO_CHECK(cudaGetLastError());
}

void softmaxBackward(const void* p, void* dp, long long rows, int cols, float scale, cudaStream_t stream) {
    softmaxBackwardKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(p), static_cast<__nv_bfloat16*>(dp), cols, scale);
    CHOREO_CHECK(cudaGetLastError());
}

namespace {

// Dropout runs on groups of eight bf16 (16 bytes) and their eight mask bytes.
std::size_t dropoutGroups(std::size_t count) {
    if (count % 8 != 0)
        throw GpuError("dropout: " + std::to_string(count) + " elements is not a multiple of 8");
    return count / 8;
}

} // namespace

void dropout(const void* p, void* out, void* mask, std::size_t count, float keep, std::uint64_t seed,
             cudaStream_t stream) {
    const std::size_t groups = dropoutGroups(count);
    dropoutKernel<<<gridFor(groups), kThreads, 0, stream>>>(static_cast<const uint4*>(p),
                                                            static_cast<uint4*>(out),
                                                            static_cast<uint2*>(mask), groups, keep, seed);
    CHOREO_CHECK(cudaGetLastError());
}

void dropoutBackward(void* grad, const void* mask, std::size_t count, float keep, cudaStream_t stream) {
    const std::size_t groups = dropoutGroups(count);
    dropoutBackwardKernel<<<gridFor(groups), kThreads, 0, stream>>>(
        static_cast<uint4*>(grad), static_cast<const uint2*>(mask), groups, keep);
    CHOREO_CHECK(cudaGetLastError());
}

void referenceAttention(const void* q, const void* k, const void* v, int ld, int d, int query, float scale,
                        float* out, cudaStream_t stream) {
    referenceAttentionKernel<<<1, d, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k),
        static_cast<const __nv_bfloat16*>(v), ld, d, query, scale, out);
    CHOREO_CHECK(cudaGetLastError());
}

void rmsNorm(const void* x, const void* weight, void* y, int tokens, int width, cudaStream_t stream) {
    rmsNormKernel<<<tokens, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(x),
                                                   static_cast<const __nv_bfloat16*>(weight),
                                                   static_cast<__nv_bfloat16*>(y), width);
    CHOREO_CHECK(cudaGetLastError());
}

void rmsNormBackward(const void* x, const void* weight, const void* dy, void* dx, int tokens, int width,
                     cudaStream_t stream) {
    rmsNormBackwardKernel<<<tokens, kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(weight),
        static_cast<const __nv_bfloat16*>(dy), static_cast<__nv_bfloat16*>(dx), width);
    CHOREO_CHECK(cudaGetLastError());
}

void addInto(const void* a, const void* b, void* out, std::size_t count, cudaStream_t stream) {
    addKernel<<<gridFor(count / 2), kThreads, 0, stream>>>(static_cast<const __nv_bfloat162*>(a),
                                                           static_cast<const __nv_bfloat162*>(b),
                                                           static_cast<__nv_bfloat162*>(out), count / 2);
    CHOREO_CHECK(cudaGetLastError());
}

void rotary(void* x, int tokens, int width, int ld, int headDim, bool inverse, cudaStream_t stream) {
    rotaryKernel<<<gridFor(static_cast<std::size_t>(tokens) * width / 2), kThreads, 0, stream>>>(
        static_cast<__nv_bfloat16*>(x), tokens, width, ld, headDim, inverse ? -1.0f : 1.0f);
    CHOREO_CHECK(cudaGetLastError());
}

void swiglu(const void* gu, void* out, int tokens, int f, cudaStream_t stream) {
    swigluKernel<<<gridFor(static_cast<std::size_t>(tokens) * f), kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(gu), static_cast<__nv_bfloat16*>(out), tokens, f);
    CHOREO_CHECK(cudaGetLastError());
}

void swigluBackward(const void* gu, const void* dout, void* dgu, int tokens, int f, cudaStream_t stream) {
    swigluBackwardKernel<<<gridFor(static_cast<std::size_t>(tokens) * f), kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(gu), static_cast<const __nv_bfloat16*>(dout),
        static_cast<__nv_bfloat16*>(dgu), tokens, f);
    CHOREO_CHECK(cudaGetLastError());
}

} // namespace choreo::gpucal
