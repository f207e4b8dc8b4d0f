#pragma once

#include "models/diagnostic.h"
#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/timeline.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// Facility power over one step, in equal time bins; each series holds the average power of a bin, so
// that the sum of power x bin width is the step's energy exactly.
struct PowerTrace {
    std::vector<double> time_s;         // bin edges, from 0 to the step time (bins + 1 values)
    std::vector<double> accelerators_W; // GPUs and other accelerators of every pool
    std::vector<double> cpus_W;         // CPU pools
    std::vector<double> network_W;      // switches and NICs
    std::vector<double> cooling_W;      // facility overhead: (PUE - 1) x the rest
    std::string cpus_note;              // what the CPU series counts, or why it is zero
    std::string network_note;           // the same for the network
    [[nodiscard]] bool empty() const { return time_s.size() < 2; }
    [[nodiscard]] std::size_t bins() const { return empty() ? 0 : time_s.size() - 1; }
    // Facility power of bin k: every series, cooling included.
    [[nodiscard]] double facility_W(std::size_t k) const {
        return accelerators_W[k] + cpus_W[k] + network_W[k] + cooling_W[k];
    }
    // Integral over the step of the IT series (accelerators, CPUs, network), in joules.
    [[nodiscard]] double itEnergy_J() const;
    // The same with cooling: the facility's energy for one step.
    [[nodiscard]] double facilityEnergy_J() const;
    bool operator==(const PowerTrace&) const = default;
};

inline constexpr std::size_t kPowerTraceBins = 200;

// The power trace of a step from its timeline: each stage's devices draw the catalog TDP while their
// representative computes and idle power otherwise (what the simulator's energy model charges); pools
// that do not train draw idle power. Empty when the timeline is. Deterministic.
PowerTrace powerTrace(const ResolvedScenario& scenario, const StepTimeline& timeline,
                      std::size_t bins = kPowerTraceBins);

Json powerTraceToJson(const PowerTrace& trace);
// Reads what powerTraceToJson wrote; errors name the field under `path`.
std::optional<PowerTrace> powerTraceFromJson(const Json& json, const std::string& path, Diagnostics& errors);

} // namespace choreo::models
