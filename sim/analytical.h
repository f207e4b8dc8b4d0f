#pragma once
// The analytical fidelity level: the step in closed form from the same per-operation costs, network
// figures and schedule as the simulation, without SimGrid. Microseconds per scenario; for search and
// sweeps. Assumes every link of a collective is its own (no contention between flows).

#include "models/resolved.h"
#include "models/result.h"

namespace choreo::sim {

models::StepMeasurement estimateStep(const models::ResolvedScenario& scenario);

} // namespace choreo::sim
