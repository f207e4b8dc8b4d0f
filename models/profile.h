#pragma once

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/jsonreader.h"
#include "models/precision.h"
#include "models/sourced.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

inline constexpr const char* kProfileFormat = "choreo-profile/1";

// One measured number as the calibration recorded it (docs/calibration.md lists the keys).
struct ProfileFigure {
    std::string key;   // "gpu.gemm.bf16.m4096.n4096.k4096", "gpu.memory.copy_kernel", "cpu.triad", ...
    std::string label; // words for a table
    double value = 0;
    std::string unit; // "TFLOP/s", "TB/s", "GB/s", "us", "W", "tokens/s", "s"
    bool operator==(const ProfileFigure&) const = default;
};

// One matrix multiply C(m x n) = A(m x k) B(k x n) and the rate it achieved.
struct GemmPoint {
    double m = 0, n = 0, k = 0;
    double tflops = 0;
    [[nodiscard]] double gflop() const { return 2.0 * m * n * k / 1e9; }
    bool operator==(const GemmPoint&) const = default;
};

// Achieved matrix-multiply rate against size at one precision:
// rate(F) = rate_TFLOPs * F / (F + half_gflop), F in GFLOP (2mnk / 1e9). half_gflop 0 = flat.
struct GemmCurve {
    double rate_TFLOPs = 0;
    double half_gflop = 0;
    double rms_relative_error = 0; // of the fit over `points`
    std::vector<GemmPoint> points;
    [[nodiscard]] double tflopsAt(double gflop) const;
    bool operator==(const GemmCurve&) const = default;
};

// What applyProfile uses: the fitted figures of the profile's device, in absolute units, so that a
// profile can refine any catalog device (fractions of peak are taken against that device).
struct ProfileFit {
    std::map<Precision, GemmCurve> gemm;
    std::optional<double> memory_TBps;        // Choreo's streaming kernel (read + write bytes / time)
    std::optional<double> attention_TFLOPs;   // causal attention, counting the causal half of 4·b·h·s²·d
    std::optional<double> kernel_overhead_us; // per launch, back to back, no graph
    std::optional<double> host_link_GBps;     // pinned host copies, the slower direction, one device copying
    std::optional<double> idle_W;             // power by phase
    std::optional<double> compute_W;
    std::optional<double> memory_W;
    bool operator==(const ProfileFit&) const = default;
};

// A calibration's one-layer benchmark: the same kernels as the step model's layer, timed on the device.
struct LayerCheck {
    std::int64_t hidden = 0, heads = 0, kv_heads = 0, ffn_hidden = 0, seq_len = 0, micro_batch = 0, tp = 1;
    bool ffn_gated = true;
    Precision precision = Precision::Bf16;
    double measured_s = 0;  // forward + backward
    double predicted_s = 0; // stageCost-style prediction with the profile applied; 0 = not computed
    bool operator==(const LayerCheck&) const = default;
};

// A calibration profile (docs/calibration.md): who was measured, every figure, and the fitted curves.
struct Profile {
    std::string name;
    std::string date;   // ISO 8601, UTC
    std::string tool;   // "choreo-sim 0.1.0"
    std::string mode;   // "quick" or "full"
    std::string kind;   // "gpu" or "cpu": the kind of device `fit` describes
    std::string device; // catalog id the profile refines; empty = none matched
    // Identity of what was measured: "name", and for GPUs "compute_capability", "driver_version",
    // "cuda_runtime_version", "cublas_version", ...; for the host "cpu_model", "cpu_cores", "blas".
    std::map<std::string, std::string> identity;
    std::vector<ProfileFigure> figures;
    ProfileFit fit;
    std::optional<LayerCheck> layer;
    std::vector<std::string> notes; // what was not measured and why
    bool operator==(const Profile&) const = default;
};

// Parses a choreo-profile/1 document; nullopt with one diagnostic per problem, each with its JSON path.
std::optional<Profile> parseProfile(const std::string& text, Diagnostics& errors);
// Serialises a profile; parseProfile(serializeProfile(p)) == p.
std::string serializeProfile(const Profile& profile);
// Reads and parses a file; an unreadable file is a diagnostic with path "(file)".
std::optional<Profile> loadProfileFile(const std::filesystem::path& path, Diagnostics& errors);

// Least-squares fit of the saturating curve to measured points (relative error, so that small and large
// shapes weigh the same). One distinct size gives a flat curve. Deterministic.
GemmCurve fitGemmCurve(std::vector<GemmPoint> points);

// The source a profile's numbers cite: key "PROFILE:<name>", dated with the profile's date.
Source profileSource(const Profile& profile);

// Overwrites `device`'s efficiencies (per-precision GEMM curves, attention, memory, kernel overhead) and
// power (idle_W; tdp_W, which the simulator uses as busy power, from the compute-bound phase) with the
// profile's figures, as fractions of `device`'s own peaks, citing profileSource(profile). Returns false
// and leaves `device` unchanged when the profile does not fit it (kind differs, a measured rate exceeds
// the device's peak); every precision the device lacks is skipped with a line in `skipped`.
bool applyProfile(const Profile& profile, Device& device, Diagnostics& errors,
                  std::vector<std::string>* skipped = nullptr);

// One row of a spec-sheet-against-measured table.
struct ComparisonRow {
    std::string figure;         // "GEMM bf16, large", "Memory bandwidth", ...
    std::optional<double> spec; // the catalog's value (spec sheet or CHOREO-DEFAULT assumption)
    std::optional<double> measured;
    std::string unit;
    std::string spec_source; // source key of `spec` ("S03", "CHOREO-DEFAULT")
};

// Spec sheet against measured, row by row, for `spec` (the unmodified catalog device; nullptr lists the
// measured figures alone). Peaks, efficiencies, bandwidth, launch overhead, power.
std::vector<ComparisonRow> compareWithSpec(const Profile& profile, const Device* spec);

// The file a scenario's profile reference names: an existing path as written (absolute or relative to
// the first folder), else `<dir>/<ref>` or `<dir>/<ref>.json` for each folder in order.
std::optional<std::filesystem::path> findProfile(const std::string& reference,
                                                 const std::vector<std::filesystem::path>& folders);

// The catalog device a GPU of this name (as CUDA reports it) is, or "" when none is known.
std::string matchCatalogDevice(const std::string& gpuName, const Catalog& catalog);

} // namespace choreo::models
