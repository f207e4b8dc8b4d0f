#pragma once

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/jsonreader.h"
#include "models/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// The format of choreo-calibrate-gpu's raw measurement document (docs/calibration.md).
inline constexpr const char* kGpuMeasurementsFormat = "choreo-gpu-measurements/1";

// What the CPU micro-benchmarks measured on the host (calibrate/cpu).
struct CpuMeasurements {
    std::string model;                           // /proc/cpuinfo "model name"
    int cores = 0;                               // hardware threads used
    std::string blas;                            // "OpenBLAS 0.3.21"; empty when the build has no BLAS
    std::vector<GemmPoint> sgemm;                // fp32
    std::vector<GemmPoint> dgemm;                // fp64
    std::optional<double> triad_GBps;            // STREAM convention: 24 bytes per element
    std::optional<double> tokens_per_s_per_core; // data preparation: greedy tokenizer, all cores busy
    std::optional<double> bytes_per_token;
    std::vector<std::string> failures; // checks that failed; their figures are left out
};

// What a calibration run gathered, to be fitted into a profile.
struct CalibrationInputs {
    std::string name;              // profile name
    std::string date;              // ISO 8601, UTC
    std::string tool;              // "choreo-sim 0.1.0"
    std::string mode;              // "quick" or "full"
    std::string device;            // catalog id to refine; empty = match by name
    std::optional<Json> gpu;       // choreo-calibrate-gpu's document; absent = no GPU measured
    std::string gpu_absent_reason; // why, when `gpu` is absent
    std::optional<CpuMeasurements> cpu;
};

// Fits measurements into a profile: GEMM curves per precision, bandwidth, attention, launch overhead,
// power by phase, and (with a GPU and a catalog device) the one-layer check against the step model.
// Without a GPU the profile describes the host CPU. Diagnostics name JSON paths of the GPU document
// ("gpu.gemm[3].tflops") or the CPU part; nullopt when nothing could be fitted.
std::optional<Profile> buildProfile(const CalibrationInputs& inputs, const Catalog& catalog,
                                    Diagnostics& errors);

// Forward + backward time of one transformer layer of `layer`'s shape on `device`, by the step model
// (models::stageCost, no recomputation): the layer benchmark's prediction.
double predictLayerSeconds(const Device& device, const LayerCheck& layer);

// The catalog CPU this /proc/cpuinfo model name is ("AMD EPYC 9654 96-Core Processor" -> epyc-9654), or "".
std::string matchCatalogCpu(const std::string& modelName, const Catalog& catalog);

} // namespace choreo::models
