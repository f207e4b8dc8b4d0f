#pragma once
// Error checks and timing for choreo-calibrate-gpu's host code.

#include <algorithm>
#include <cstddef>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace choreo::gpucal {

// A CUDA, cuBLAS or check failure; the measurement that raised it is dropped and listed.
class GpuError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw GpuError(std::string(what) + ": " + cudaGetErrorString(e));
}

inline void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw GpuError(std::string(what) + ": " + cublasGetStatusString(s));
}

#define CHOREO_CHECK(call) ::choreo::gpucal::check((call), #call)

// Device memory owned for a scope.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes)
        : bytes_(bytes) {
        CHOREO_CHECK(cudaMalloc(&ptr_, bytes));
    }
    ~DeviceBuffer() {
        if (ptr_)
            cudaFree(ptr_);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(o.ptr_)
        , bytes_(o.bytes_) {
        o.ptr_ = nullptr;
        o.bytes_ = 0;
    }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    [[nodiscard]] void* get() const { return ptr_; }
    template <typename T>
    [[nodiscard]] T* as() const {
        return static_cast<T*>(ptr_);
    }
    [[nodiscard]] std::size_t bytes() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

// A pair of CUDA events timing work on a stream.
class EventTimer {
public:
    EventTimer() {
        CHOREO_CHECK(cudaEventCreate(&start_));
        CHOREO_CHECK(cudaEventCreate(&stop_));
    }
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    void start(cudaStream_t s) { CHOREO_CHECK(cudaEventRecord(start_, s)); }
    // Seconds since start(), after the stream reaches this point.
    double stop(cudaStream_t s) {
        CHOREO_CHECK(cudaEventRecord(stop_, s));
        CHOREO_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        CHOREO_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return static_cast<double>(ms) * 1e-3;
    }

private:
    cudaEvent_t start_{}, stop_{};
};

inline double median(std::vector<double> v) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median seconds per call of each of `fs` on `stream`: `warmup` untimed rounds, then `repeats` rounds in
// which each function runs a timed group of `inner` calls (inner > 1 for work shorter than the events'
// resolution), in the order given, so that all see the same clocks and the last one's output is the last
// written.
inline std::vector<double> timeGroups(cudaStream_t stream, int warmup, int repeats, int inner,
                                      const std::vector<std::function<void()>>& fs) {
    for (int i = 0; i < warmup; ++i)
        for (const auto& f : fs)
            f();
    CHOREO_CHECK(cudaStreamSynchronize(stream));
    EventTimer timer;
    std::vector<std::vector<double>> times(fs.size());
    for (int r = 0; r < repeats; ++r)
        for (std::size_t k = 0; k < fs.size(); ++k) {
            timer.start(stream);
            for (int i = 0; i < inner; ++i)
                fs[k]();
            times[k].push_back(timer.stop(stream) / inner);
        }
    CHOREO_CHECK(cudaGetLastError());
    std::vector<double> medians;
    for (const auto& t : times)
        medians.push_back(median(t));
    return medians;
}

// The same for one function.
inline double timeMedian(cudaStream_t stream, int warmup, int repeats, int inner, std::function<void()> f) {
    return timeGroups(stream, warmup, repeats, inner, {std::move(f)})[0];
}

} // namespace choreo::gpucal
