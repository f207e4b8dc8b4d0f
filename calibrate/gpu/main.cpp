// choreo-calibrate-gpu: measures one CUDA GPU for Choreo's calibration (docs/calibration.md) and writes
// the raw measurement document (choreo-gpu-measurements/1). Needs only the CUDA toolkit and nlohmann/json.

#include "models/exitcodes.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/gpu/cudacheck.h"
#include "calibrate/gpu/gemm.h"
#include "calibrate/gpu/kernels.h"
#include "calibrate/gpu/layer.h"
#include "calibrate/gpu/power.h"

namespace {

using namespace choreo::gpucal;
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Exit codes (docs/calibration.md), declared in models/exitcodes.h.
using choreo::kExitIo;
using choreo::kExitOk;
using choreo::kExitUsage;
constexpr int kExitNoGpu = choreo::kExitGpuToolNoGpu;
constexpr int kExitCheckFailed = choreo::kExitGpuToolCheckFailed;

constexpr const char* kUsage = R"(Usage: choreo-calibrate-gpu [--quick] [--out FILE] [--device N] [--budget S]

Measures one CUDA GPU for Choreo: cuBLASLt matrix multiply (fp32, tf32, bf16, fp16, fp8 where
supported) at square and transformer-layer shapes, memory bandwidth (Choreo's 16-byte copy and triad
kernels, device-to-device cudaMemcpy), causal attention (batched GEMMs and softmax), kernel launch
overhead (plain and CUDA graph), pinned host<->device copies, board power at idle, compute- and
memory-bound (NVML, else nvidia-smi), and one transformer layer's forward and backward. Each figure
is the median of repeats after warm-up, on random data, checked against a reference.

  --quick     under a minute (default: the full run, up to 9 minutes)
  --out FILE  write the measurement document there (default: standard output)
  --device N  CUDA device index (default 0)
  --budget S  seconds for the GEMM and attention sweeps (default 30 quick, 420 full); what does
              not fit is listed as skipped

Progress goes to standard error. Exit codes: 0 ok, 1 usage, 4 the document could not be written,
10 no CUDA GPU or driver (nothing measured), 11 a measurement failed its check or a CUDA call failed
(the document is written and lists the failures).
)";

struct Options {
    bool quick = false;
    std::string out;
    int device = 0;
    double budget_s = 0; // 0: the mode's own
};

struct Plan {
    std::vector<int> squares;
    std::vector<GemmPrecision> precisions;
    int candidates = 4, warmup = 2, repeats = 5;
    std::size_t stream_bytes = std::size_t{1} << 30, host_bytes = std::size_t{256} << 20;
    double power_phase_s = 3.0;
    double budget_s = 30.0; // GEMM and attention sweeps; the whole quick run stays under a minute
    std::vector<AttentionDims> attention;
    LayerShape layer;
    // Per-layer GEMM shapes: (hidden, ffn, heads, kv heads) of real models, split over tp ranks.
    std::vector<std::array<int, 4>> models;
    std::vector<int> tps;
    int tokens = 8192;
};

Plan planFor(bool quick) {
    Plan p;
    p.precisions = {GemmPrecision::Fp32, GemmPrecision::Tf32, GemmPrecision::Bf16, GemmPrecision::Fp16,
                    GemmPrecision::Fp8};
    if (quick) {
        p.squares = {512, 1024, 2048, 4096, 8192};
        p.attention = {{32, 32, 128, 2048}, {32, 32, 128, 4096}};
        p.layer.seq = 2048;
        p.models = {{4096, 14336, 32, 8}, {8192, 28672, 64, 8}};
        p.tps = {1, 4};
        return p;
    }
    p.squares = {512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
    p.candidates = 8;
    p.warmup = 3;
    p.repeats = 9;
    p.stream_bytes = std::size_t{2} << 30;
    p.host_bytes = std::size_t{1} << 30;
    p.power_phase_s = 10.0;
    p.budget_s = 420.0;
    p.attention = {{32, 32, 128, 2048},
                   {32, 32, 128, 4096},
                   {32, 32, 128, 8192},
                   {64, 64, 64, 4096},
                   {16, 16, 256, 4096}};
    p.layer.seq = 4096;
    p.models = {{4096, 14336, 32, 8}, {8192, 28672, 64, 8}, {16384, 53248, 128, 8}};
    p.tps = {1, 2, 4, 8};
    return p;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string version(int v) { // 13000 -> "13.0"
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

class Calibration {
public:
    Calibration(const Options& o, const Plan& plan)
        : o_(o)
        , plan_(plan) {}

    Json run();
    [[nodiscard]] bool failed() const { return !failures_.empty(); }

private:
    void progress(const std::string& what) {
        const double t = std::chrono::duration<double>(Clock::now() - start_).count();
        std::fprintf(stderr, "choreo-calibrate-gpu [%6.1f s] %s\n", t, what.c_str());
    }
    bool overBudget() const {
        return std::chrono::duration<double>(Clock::now() - budgetStart_).count() > plan_.budget_s;
    }
    // Runs one measurement; a failure is recorded and the rest goes on.
    void attempt(const std::string& what, const std::function<void()>& f) {
        try {
            f();
        } catch (const std::exception& e) {
            failures_.push_back(what + ": " + e.what());
            progress("FAILED " + what + ": " + e.what());
            cudaGetLastError();
            cudaStreamSynchronize(stream_);
            cudaGetLastError();
        }
    }
    Json identity();
    void memory(Json& doc);
    void launch(Json& doc);
    void hostCopy(Json& doc);
    // One GEMM: C(m x n) = A^T B, A stored k x m. Appends to doc["gemm"] after checking.
    void gemmPoint(Json& list, GemmPrecision p, int m, int n, int k, const char* shape);
    void powerPhase(const char* phase, const std::function<void()>& load, Json& power);

    Options o_;
    Plan plan_;
    Clock::time_point start_ = Clock::now(), budgetStart_ = Clock::now();
    cudaStream_t stream_{};
    cublasHandle_t blas_{};
    cudaDeviceProp prop_{};
    std::unique_ptr<GemmRunner> gemm_;
    std::unique_ptr<PowerMeter> power_;
    int blocks_ = 0;
    int copyVariant_ = 0; // the fastest form of the copy kernel
    std::vector<std::string> failures_;
    std::vector<std::string> skipped_;
};

Json Calibration::identity() {
    Json d;
    d["index"] = o_.device;
    d["name"] = prop_.name;
    char uuid[64];
    const auto* u = reinterpret_cast<const unsigned char*>(prop_.uuid.bytes);
    std::snprintf(uuid, sizeof uuid,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                  u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    d["uuid"] = uuid;
    d["compute_capability"] = std::to_string(prop_.major) + "." + std::to_string(prop_.minor);
    d["sm_count"] = prop_.multiProcessorCount;
    d["memory_GB"] = static_cast<double>(prop_.totalGlobalMem) / 1e9;
    int clock = 0, memClock = 0, bus = 0;
    if (cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, o_.device) == cudaSuccess && clock > 0)
        d["clock_MHz"] = clock / 1000;
    if (cudaDeviceGetAttribute(&memClock, cudaDevAttrMemoryClockRate, o_.device) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, o_.device) == cudaSuccess &&
        memClock > 0 && bus > 0) {
        d["memory_clock_MHz"] = memClock / 1000;
        d["memory_bus_bits"] = bus;
        // Double data rate: two transfers per clock over the whole bus.
        d["theoretical_memory_TBps"] = 2.0 * memClock * 1e3 * (bus / 8.0) / 1e12;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    d["cuda_driver_version"] = version(driver);
    d["cuda_runtime_version"] = version(runtime);
    const std::size_t lt = cublasLtGetVersion();
    d["cublaslt_version"] =
        std::to_string(lt / 10000) + "." + std::to_string((lt / 100) % 100) + "." + std::to_string(lt % 100);
    if (const std::string dv = power_->driverVersion(); !dv.empty())
        d["driver_version"] = dv;
    return d;
}

void Calibration::powerPhase(const char* phase, const std::function<void()>& load, Json& power) {
    if (power_->method() == "none")
        return;
    progress(std::string("power: ") + phase + " for " +
             std::to_string(static_cast<int>(plan_.power_phase_s)) + " s");
    power_->start(std::min(1.0, plan_.power_phase_s / 3.0));
    const auto end = Clock::now() + std::chrono::duration<double>(plan_.power_phase_s);
    while (Clock::now() < end) {
        if (load) {
            load();
            CHOREO_CHECK(cudaStreamSynchronize(stream_));
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    const auto watts = power_->stop();
    if (const auto smi = power_->checkWatts())
        power[std::string(phase) + "_smi_W"] = *smi;
    if (watts)
        power[std::string(phase) + "_W"] = *watts;
    else
        failures_.push_back(std::string("power: no readings during the ") + phase + " phase");
    power["samples"] = power.value("samples", 0) + power_->samples();
}

void Calibration::launch(Json& doc) {
    progress("kernel launch overhead");
    constexpr int kLaunches = 1000;
    const double plain = timeMedian(stream_, 2, 7, 1, [&] {
        for (int i = 0; i < kLaunches; ++i)
            emptyKernel(stream_);
    });
    CHOREO_CHECK(cudaGetLastError());
    cudaGraph_t graph{};
    cudaGraphExec_t exec{};
    CHOREO_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kLaunches; ++i)
        emptyKernel(stream_);
    CHOREO_CHECK(cudaStreamEndCapture(stream_, &graph));
    CHOREO_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    double graphed = 0;
    try {
        graphed = timeMedian(stream_, 2, 7, 1, [&] { CHOREO_CHECK(cudaGraphLaunch(exec, stream_)); });
    } catch (...) {
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        throw;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    doc["launch"] = Json{{"plain_us", plain / kLaunches * 1e6}, {"graph_us", graphed / kLaunches * 1e6}};
}

void Calibration::memory(Json& doc) {
    std::size_t freeBytes = 0, total = 0;
    CHOREO_CHECK(cudaMemGetInfo(&freeBytes, &total));
    // Far beyond the L2 cache; three arrays must fit with room to spare.
    std::size_t bytes = std::min(plan_.stream_bytes, freeBytes / 4) & ~((std::size_t{1} << 24) - 1);
    if (bytes < (std::size_t{64} << 20))
        throw GpuError("too little free device memory for the bandwidth test");
    progress("memory bandwidth over " + std::to_string(bytes >> 20) + " MiB");
    DeviceBuffer a(bytes), b(bytes), c(bytes);
    DeviceBuffer count(sizeof(unsigned long long));
    fillUniform(a.get(), bytes / 4, DType::F32, 11, -1.0f, 1.0f, stream_);
    fillUniform(b.get(), bytes / 4, DType::F32, 12, 0.5f, 1.5f, stream_);
    fillUniform(c.get(), bytes / 4, DType::F32, 13, 0.5f, 1.5f, stream_);
    const int reps = o_.quick ? 10 : 30;
    auto mismatches = [&](const std::function<void()>& compare) {
        CHOREO_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), stream_));
        compare();
        unsigned long long n = 0;
        CHOREO_CHECK(cudaMemcpyAsync(&n, count.get(), sizeof n, cudaMemcpyDeviceToHost, stream_));
        CHOREO_CHECK(cudaStreamSynchronize(stream_));
        return n;
    };
    Json m;
    m["bytes"] = bytes;
    // Each form of the copy kernel, checked; the fastest is the figure (and the memory-bound power load).
    double copy = 0;
    for (int v = 0; v < copyVariants(); ++v) {
        CHOREO_CHECK(cudaMemsetAsync(b.get(), 0, bytes, stream_));
        const double t = timeMedian(stream_, 3, reps, 1,
                                    [&] { copyKernel(a.get(), b.get(), bytes, blocks_, stream_, v); });
        if (auto n = mismatches(
                [&] { countMismatches(a.get(), b.get(), bytes, count.as<unsigned long long>(), stream_); }))
            throw GpuError(std::string("copy kernel (") + copyVariantName(v) + "): " + std::to_string(n) +
                           " 16-byte words differ from the source");
        progress(std::string("memory: copy kernel, ") + copyVariantName(v) + ": " +
                 std::to_string(2.0 * static_cast<double>(bytes) / t / 1e12) + " TB/s");
        if (copy == 0 || t < copy) {
            copy = t;
            copyVariant_ = v;
        }
    }
    m["copy_kernel_TBps"] = 2.0 * static_cast<double>(bytes) / copy / 1e12;
    m["copy_kernel_variant"] = copyVariantName(copyVariant_);
    fillUniform(b.get(), bytes / 4, DType::F32, 12, 0.5f, 1.5f, stream_);
    const float s = 3.0f;
    const double triad = timeMedian(stream_, 3, reps, 1, [&] {
        triadKernel(a.as<float>(), b.as<float>(), c.as<float>(), s, bytes / 4, blocks_, stream_);
    });
    if (auto n = mismatches([&] {
            countTriadErrors(a.as<float>(), b.as<float>(), c.as<float>(), s, bytes / 4,
                             count.as<unsigned long long>(), stream_);
        }))
        throw GpuError("triad kernel: " + std::to_string(n) + " wrong elements");
    m["triad_kernel_TBps"] = 3.0 * static_cast<double>(bytes) / triad / 1e12;
    const double memcpy = timeMedian(stream_, 3, reps, 1, [&] {
        CHOREO_CHECK(cudaMemcpyAsync(c.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
    });
    if (auto n = mismatches(
            [&] { countMismatches(a.get(), c.get(), bytes, count.as<unsigned long long>(), stream_); }))
        throw GpuError("cudaMemcpy: " + std::to_string(n) + " 16-byte words differ from the source");
    m["memcpy_d2d_TBps"] = 2.0 * static_cast<double>(bytes) / memcpy / 1e12;
    progress("memory: copy kernel " + std::to_string(m["copy_kernel_TBps"].get<double>()) +
             " TB/s, cudaMemcpy " + std::to_string(m["memcpy_d2d_TBps"].get<double>()) + " TB/s");
    doc["memory"] = m;
}

void Calibration::hostCopy(Json& doc) {
    const std::size_t bytes = plan_.host_bytes;
    progress("pinned host<->device copies of " + std::to_string(bytes >> 20) + " MiB");
    void* src = nullptr;
    void* dst = nullptr;
    CHOREO_CHECK(cudaMallocHost(&src, bytes));
    struct Free {
        void* p;
        ~Free() {
            if (p)
                cudaFreeHost(p);
        }
    } freeSrc{src};
    CHOREO_CHECK(cudaMallocHost(&dst, bytes));
    Free freeDst{dst};
    auto* words = static_cast<std::uint64_t*>(src);
    std::uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (std::size_t i = 0; i < bytes / 8; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        words[i] = x;
    }
    DeviceBuffer dev(bytes);
    const int reps = o_.quick ? 5 : 9;
    const double h2d = timeMedian(stream_, 1, reps, 1, [&] {
        CHOREO_CHECK(cudaMemcpyAsync(dev.get(), src, bytes, cudaMemcpyHostToDevice, stream_));
    });
    const double d2h = timeMedian(stream_, 1, reps, 1, [&] {
        CHOREO_CHECK(cudaMemcpyAsync(dst, dev.get(), bytes, cudaMemcpyDeviceToHost, stream_));
    });
    if (std::memcmp(src, dst, bytes) != 0)
        throw GpuError("host copy: the round trip does not return the bytes sent");
    doc["host_copy"] = Json{{"bytes", bytes},
                            {"h2d_GBps", static_cast<double>(bytes) / h2d / 1e9},
                            {"d2h_GBps", static_cast<double>(bytes) / d2h / 1e9}};
}

void Calibration::gemmPoint(Json& list, GemmPrecision p, int m, int n, int k, const char* shape) {
    const DType in = operandType(p), out = outputType(p);
    const std::size_t aBytes = static_cast<std::size_t>(k) * m * dtypeBytes(in);
    const std::size_t bBytes = static_cast<std::size_t>(k) * n * dtypeBytes(in);
    const std::size_t cBytes = static_cast<std::size_t>(m) * n * dtypeBytes(out);
    std::size_t freeBytes = 0, total = 0;
    CHOREO_CHECK(cudaMemGetInfo(&freeBytes, &total));
    const std::string name = std::string(toString(p)) + " " + std::to_string(m) + "x" + std::to_string(n) +
                             "x" + std::to_string(k);
    if (aBytes + bBytes + cBytes > freeBytes / 10 * 9) {
        skipped_.push_back("GEMM " + name + ": does not fit in free device memory");
        return;
    }
    DeviceBuffer a(aBytes), b(bBytes), c(cBytes);
    fillUniform(a.get(), static_cast<std::size_t>(k) * m, in, 0x1000 + m, -1.0f, 1.0f, stream_);
    fillUniform(b.get(), static_cast<std::size_t>(k) * n, in, 0x2000 + n, -1.0f, 1.0f, stream_);
    const GemmShape s{true, false, m, n, k, k, k, m};
    const double flops = 2.0 * m * static_cast<double>(n) * k;
    const int inner = flops < 2e10 ? 10 : 1;
    const GemmRunner::Timing timing =
        gemm_->timeBoth(p, s, a.get(), b.get(), c.get(), plan_.warmup, plan_.repeats, inner);
    const double t = timing.chosen_s;
    const auto clock = power_->smClockMHz(); // after the timing: the clock the GEMMs ran at
    // Sampled entries (corners included) against a double-precision reference.
    constexpr int kSamples = 64;
    std::vector<int> rows(kSamples), cols(kSamples);
    std::uint64_t r = 0x5eed ^ static_cast<std::uint64_t>(m * 31 + n * 17 + k);
    for (int i = 0; i < kSamples; ++i) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        rows[i] = i == 0 ? 0 : i == 1 ? m - 1 : static_cast<int>((r >> 33) % static_cast<std::uint64_t>(m));
        cols[i] = i == 0 ? 0 : i == 1 ? n - 1 : static_cast<int>((r >> 13) % static_cast<std::uint64_t>(n));
    }
    DeviceBuffer dRows(kSamples * sizeof(int)), dCols(kSamples * sizeof(int)),
        dRef(kSamples * sizeof(double)), dMag(kSamples * sizeof(double)), dGot(kSamples * sizeof(double));
    CHOREO_CHECK(
        cudaMemcpyAsync(dRows.get(), rows.data(), kSamples * sizeof(int), cudaMemcpyHostToDevice, stream_));
    CHOREO_CHECK(
        cudaMemcpyAsync(dCols.get(), cols.data(), kSamples * sizeof(int), cudaMemcpyHostToDevice, stream_));
    referenceTn(a.get(), b.get(), c.get(), in, out, m, n, k, dRows.as<int>(), dCols.as<int>(), kSamples,
                dRef.as<double>(), dMag.as<double>(), dGot.as<double>(), stream_);
    std::vector<double> ref(kSamples), mag(kSamples), got(kSamples);
    CHOREO_CHECK(
        cudaMemcpyAsync(ref.data(), dRef.get(), kSamples * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    CHOREO_CHECK(
        cudaMemcpyAsync(mag.data(), dMag.get(), kSamples * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    CHOREO_CHECK(
        cudaMemcpyAsync(got.data(), dGot.get(), kSamples * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    CHOREO_CHECK(cudaStreamSynchronize(stream_));
    double worst = 0;
    for (int i = 0; i < kSamples; ++i) {
        const double e = mag[i] > 0 ? std::fabs(got[i] - ref[i]) / mag[i] : std::fabs(got[i]);
        if (!(e <= tolerance(p)))
            throw GpuError("GEMM " + name + ": C[" + std::to_string(rows[i]) + "," + std::to_string(cols[i]) +
                           "] = " + std::to_string(got[i]) + ", reference " + std::to_string(ref[i]));
        worst = std::max(worst, e);
    }
    const double tflops = flops / t / 1e12;
    Json entry{{"precision", toString(p)},
               {"m", m},
               {"n", n},
               {"k", k},
               {"shape", shape},
               {"time_s", t},
               {"tflops", tflops},
               {"heuristic_tflops", flops / timing.heuristic_s / 1e12},
               {"max_rel_error", worst},
               {"library", "cublasLt"}};
    if (clock)
        entry["sm_clock_MHz"] = *clock;
    list.push_back(entry);
    progress("GEMM " + name + " (" + shape + "): " + std::to_string(tflops) + " TFLOP/s");
}

Json Calibration::run() {
    CHOREO_CHECK(cudaSetDevice(o_.device));
    CHOREO_CHECK(cudaGetDeviceProperties(&prop_, o_.device));
    CHOREO_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CHOREO_CHECK(cublasCreate(&blas_));
    CHOREO_CHECK(cublasSetStream(blas_, stream_));
    char bus[32] = {};
    CHOREO_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, o_.device));
    power_ = std::make_unique<PowerMeter>(bus);
    gemm_ = std::make_unique<GemmRunner>(stream_, std::size_t{32} << 20, plan_.candidates);
    blocks_ = streamingBlocks(o_.device);

    Json doc;
    doc["format"] = "choreo-gpu-measurements/1";
    doc["tool"] = "choreo-calibrate-gpu " CHOREO_VERSION;
    doc["mode"] = o_.quick ? "quick" : "full";
    doc["date"] = utcNow();
    doc["device"] = identity();
    progress(std::string("measuring ") + prop_.name + " (compute capability " + std::to_string(prop_.major) +
             "." + std::to_string(prop_.minor) + "), power by " + power_->method());

    // Idle power first, before any load has raised the clocks.
    Json power{{"method", power_->method()}, {"samples", 0}};
    attempt("power at idle", [&] { powerPhase("idle", nullptr, power); });
    budgetStart_ = Clock::now();

    attempt("launch overhead", [&] { launch(doc); });
    attempt("memory bandwidth", [&] { memory(doc); });
    attempt("host copies", [&] { hostCopy(doc); });

    Json gemm = Json::array();
    for (GemmPrecision p : plan_.precisions) {
        if (!supported(p, prop_.major, prop_.minor)) {
            skipped_.push_back(std::string("GEMM ") + toString(p) + ": not supported by compute capability " +
                               std::to_string(prop_.major) + "." + std::to_string(prop_.minor));
            continue;
        }
        for (int n : plan_.squares) {
            if (overBudget()) {
                skipped_.push_back(std::string("GEMM ") + toString(p) + " " + std::to_string(n) +
                                   ": time budget spent");
                continue;
            }
            attempt(std::string("GEMM ") + toString(p) + " " + std::to_string(n),
                    [&] { gemmPoint(gemm, p, n, n, n, "square"); });
        }
    }
    // Per-layer shapes after tensor-parallel splits (m: output features, n: tokens, k: input features).
    for (GemmPrecision p : {GemmPrecision::Bf16, GemmPrecision::Fp8}) {
        if (!supported(p, prop_.major, prop_.minor))
            continue;
        for (const auto& [h, f, heads, kv] : plan_.models)
            for (int tp : plan_.tps) {
                const int d = h / heads, kvw = kv * d;
                const std::array<std::array<int, 2>, 4> shapes{
                    {{(h + 2 * kvw) / tp, h}, {h, h / tp}, {2 * f / tp, h}, {h, f / tp}}};
                for (const auto& [outF, inF] : shapes) {
                    if (overBudget()) {
                        skipped_.push_back("layer GEMMs of hidden " + std::to_string(h) +
                                           ": time budget spent");
                        break;
                    }
                    attempt("GEMM layer shape",
                            [&] { gemmPoint(gemm, p, outF, plan_.tokens, inF, "layer"); });
                }
            }
    }
    doc["gemm"] = gemm;

    Json attention = Json::array();
    for (const auto& a : plan_.attention) {
        if (overBudget()) {
            skipped_.push_back("attention seq " + std::to_string(a.seq) + ": time budget spent");
            continue;
        }
        attempt("attention seq " + std::to_string(a.seq), [&] {
            const AttentionResult r = benchAttention(blas_, stream_, a, plan_.repeats);
            const double tflops = a.causalFlops() / r.time_s / 1e12;
            attention.push_back(Json{{"batch", 1},
                                     {"heads", a.heads},
                                     {"seq_len", a.seq},
                                     {"head_dim", a.headDim},
                                     {"time_s", r.time_s},
                                     {"tflops", tflops}});
            progress("attention heads " + std::to_string(a.heads) + " seq " + std::to_string(a.seq) +
                     " head dim " + std::to_string(a.headDim) + ": " + std::to_string(tflops) +
                     " TFLOP/s (causal)");
        });
    }
    doc["attention"] = attention;

    attempt("layer", [&] {
        progress("one transformer layer, forward and backward (hidden " + std::to_string(plan_.layer.hidden) +
                 ", seq " + std::to_string(plan_.layer.seq) + ")");
        const LayerResult r = benchLayer(*gemm_, blas_, stream_, plan_.layer, plan_.repeats);
        const LayerShape& L = plan_.layer;
        doc["layer"] = Json{{"hidden", L.hidden},        {"heads", L.heads},
                            {"kv_heads", L.kvHeads},     {"ffn_hidden", L.ffn},
                            {"ffn_gated", true},         {"seq_len", L.seq},
                            {"micro_batch", 1},          {"tp", 1},
                            {"precision", "bf16"},       {"forward_s", r.forward_s},
                            {"backward_s", r.backward_s}};
        progress("layer: forward " + std::to_string(r.forward_s * 1e3) + " ms, backward " +
                 std::to_string(r.backward_s * 1e3) + " ms");
    });

    // Power under load: the largest square GEMM at the training precision, then the copy kernel.
    attempt("power, compute-bound", [&] {
        const GemmPrecision p = supported(GemmPrecision::Bf16, prop_.major, prop_.minor)
                                    ? GemmPrecision::Bf16
                                    : GemmPrecision::Fp16;
        const int n = 8192;
        const DType in = operandType(p);
        DeviceBuffer a(std::size_t{n} * n * dtypeBytes(in)), b(std::size_t{n} * n * dtypeBytes(in)),
            c(std::size_t{n} * n * dtypeBytes(outputType(p)));
        fillUniform(a.get(), std::size_t{n} * n, in, 77, -1.0f, 1.0f, stream_);
        fillUniform(b.get(), std::size_t{n} * n, in, 78, -1.0f, 1.0f, stream_);
        const GemmShape s{true, false, n, n, n, n, n, n};
        powerPhase(
            "compute",
            [&] {
                for (int i = 0; i < 10; ++i)
                    gemm_->run(p, s, a.get(), b.get(), c.get());
            },
            power);
    });
    attempt("power, memory-bound", [&] {
        const std::size_t bytes = std::size_t{1} << 30;
        DeviceBuffer a(bytes), b(bytes);
        fillUniform(a.get(), bytes / 4, DType::F32, 79, -1.0f, 1.0f, stream_);
        powerPhase(
            "memory",
            [&] {
                for (int i = 0; i < 10; ++i)
                    copyKernel(a.get(), b.get(), bytes, blocks_, stream_, copyVariant_);
            },
            power);
    });
    doc["power"] = power;

    Json failures = Json::array();
    for (const auto& f : failures_)
        failures.push_back(f);
    for (const auto& s : skipped_)
        failures.push_back("skipped: " + s);
    doc["failures"] = failures;
    cublasDestroy(blas_);
    gemm_.reset();
    cudaStreamDestroy(stream_);
    progress(failures_.empty() ? "done" : "done, with " + std::to_string(failures_.size()) + " failures");
    return doc;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            return kExitOk;
        }
        if (a == "--quick") {
            o.quick = true;
        } else if (a == "--out" && i + 1 < argc) {
            o.out = argv[++i];
        } else if (a == "--budget" && i + 1 < argc) {
            const std::string v = argv[++i];
            char* end = nullptr;
            o.budget_s = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !(o.budget_s > 0) || !std::isfinite(o.budget_s)) {
                std::cerr << "choreo-calibrate-gpu: --budget needs a number of seconds greater than 0, got \""
                          << v << "\"\n";
                return kExitUsage;
            }
        } else if (a == "--device" && i + 1 < argc) {
            try {
                o.device = std::stoi(argv[++i]);
            } catch (const std::exception&) {
                o.device = -1;
            }
            if (o.device < 0) {
                std::cerr << "choreo-calibrate-gpu: --device needs a device index\n";
                return kExitUsage;
            }
        } else {
            std::cerr << "choreo-calibrate-gpu: unknown argument " << a << "\n" << kUsage;
            return kExitUsage;
        }
    }
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        std::cerr << "choreo-calibrate-gpu: no CUDA GPU found ("
                  << (e != cudaSuccess ? cudaGetErrorString(e) : "no devices") << "); nothing was measured\n";
        return kExitNoGpu;
    }
    if (o.device >= count) {
        std::cerr << "choreo-calibrate-gpu: --device " << o.device << " but there are " << count << " GPUs\n";
        return kExitUsage;
    }
    Plan plan = planFor(o.quick);
    if (o.budget_s > 0)
        plan.budget_s = o.budget_s;
    Calibration calibration(o, plan);
    Json doc;
    try {
        doc = calibration.run();
    } catch (const std::exception& ex) {
        std::cerr << "choreo-calibrate-gpu: " << ex.what() << "\n";
        return kExitCheckFailed;
    }
    const std::string text = doc.dump(2) + "\n";
    if (o.out.empty()) {
        std::cout << text;
    } else {
        std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) {
            std::cerr << "choreo-calibrate-gpu: cannot write " << o.out << "\n";
            return kExitIo;
        }
    }
    return calibration.failed() ? kExitCheckFailed : kExitOk;
}
