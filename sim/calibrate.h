#pragma once
// `choreo-sim calibrate`: runs choreo-calibrate-gpu and the CPU micro-benchmarks and fits a profile.

#include "models/catalog.h"
#include "models/profile.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace choreo::sim {

struct CalibrateOptions {
    bool quick = false;
    std::string cpu_size;           // "tiny", "quick" or "full"; empty: quick or full as `quick` says
    std::filesystem::path gpu_tool; // choreo-calibrate-gpu; empty or missing: no GPU part
    std::string device;             // catalog id the profile refines; empty: match by name
    std::string name;               // profile name; empty: from the device and the date
    std::string tool;               // "choreo-sim 0.1.0"
    std::filesystem::path scratch;  // folder for the GPU tool's raw document
    // A raw document choreo-calibrate-gpu wrote on another machine (a GPU server without Choreo's
    // desktop dependencies): fitted instead of running anything. Nothing is measured here, so the
    // profile has no CPU part; its date and mode are the document's.
    std::optional<models::Json> gpu_document;
    // Fraction of the whole calibration done (0..1, never decreasing) and what runs now; may be empty.
    std::function<void(double fraction, const std::string& stage)> progress;
};

struct CalibrateOutcome {
    models::Profile profile;
    bool gpu_measured = false;
    std::string gpu_message; // why no GPU was measured
};

// Measures and fits. Throws std::runtime_error only when nothing at all could be measured or the
// measurements do not form a valid profile (the message lists the diagnostics).
CalibrateOutcome runCalibration(const CalibrateOptions& options, const models::Catalog& catalog);

// The current time in UTC as strftime `format` writes it (a profile's date, ISO 8601 by default).
std::string utcNow(const char* format = "%Y-%m-%dT%H:%M:%SZ");

// choreo-calibrate-gpu next to `self` (the running choreo-sim), or an empty path.
std::filesystem::path findGpuTool(const std::filesystem::path& self);

// The spec-sheet-against-measured table as text, for the terminal.
std::string comparisonToText(const models::Profile& profile, const models::Catalog& catalog);

} // namespace choreo::sim
