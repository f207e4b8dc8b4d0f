#pragma once
// Public API of the simulation layer: no SimGrid types.

#include "models/resolved.h"
#include "models/result.h"

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace choreo::sim {

enum class Fidelity {
    Analytical, // closed form from the same costs and schedule, no SimGrid (sim/analytical.h)
    Flow,       // each collective phase as concurrent flows over the real links, latency terms added
    Packet,     // every message of every ring step
};
std::string toString(Fidelity fidelity);
// "analytical", "flow" or "packet"; nullopt for anything else.
std::optional<Fidelity> fidelityFromString(const std::string& text);

struct SimulationOptions {
    Fidelity fidelity = Fidelity::Flow;
    // Called with the fraction done and what is being done; may be empty.
    std::function<void(double fraction, const std::string& stage)> progress;
};

// Thrown when a simulation cannot run (never for invalid input, which resolveScenario rejects).
class SimulationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Simulates one training step of a resolved scenario in SimGrid. One simulation per process: SimGrid
// keeps process-wide state, so callers run this in a worker process (see DESIGN.md).
models::StepMeasurement simulateStep(const models::ResolvedScenario& scenario,
                                     const SimulationOptions& options);

// simulateStep, then time-to-train, energy and cost.
models::RunResult runScenario(const models::ResolvedScenario& scenario, const SimulationOptions& options);

// The calibration a result names when the catalog's spec-sheet figures were used.
inline constexpr const char* kSpecSheetCalibration = "none (the catalog's figures, each with its source)";

} // namespace choreo::sim
