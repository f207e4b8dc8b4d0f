#pragma once
// Internal to sim.

#include "models/resolved.h"
#include "models/result.h"

namespace choreo::sim {

// Weight streaming (models/weightstreaming.h) at flow fidelity, in SimGrid: MemoryX and one system, joined
// by SwarmX's levels as links of the system's streaming rate (split duplex: weights in, gradients out), one
// hop's latency each. Every system of a balanced tree gets the same stream, so one stands for all. Each
// layer's weights arrive before its forward and again before its backward; the wafer holds two layers'
// weights at a time (the memory model's), so a layer's stream waits for the compute two layers back to
// free its buffer. The gradients leave after each backward, in order, and a layer's backward waits for the
// gradients two layers back to have left (two buffers of them too). The step ends when the last gradients
// reach MemoryX. Unlike the closed form, the last gradients of a micro-batch may leave while the next one's
// weights arrive. (The memory model counts the weights' two buffers only; the gradients leave as they are
// computed.) The first three micro-batches are simulated and the later ones take as long as the third.
models::StepMeasurement simulateWeightStreamingStep(const models::ResolvedScenario& scenario);

} // namespace choreo::sim
