#pragma once
// The analytical fidelity level: the step in closed form from the same per-operation costs, network
// figures and schedule as the simulation, without SimGrid. Microseconds per scenario; for search and
// sweeps. Assumes every link of a collective is its own (no contention between flows).

#include "models/resolved.h"
#include "models/result.h"

namespace choreo::sim {

// Whether estimateStep also lays the step out per pipeline stage (StepMeasurement::timeline). The layout
// costs several times the closed form itself; a caller that only needs the step time can skip it
// (`choreo-sim bench` measures both).
enum class StepLayout { Timeline, StepTimeOnly };

models::StepMeasurement estimateStep(const models::ResolvedScenario& scenario,
                                     StepLayout layout = StepLayout::Timeline);

} // namespace choreo::sim
