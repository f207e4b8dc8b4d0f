#pragma once
// Public API of serving simulation: no SimGrid types. A serving stage's request stream runs event by event
// in SimGrid: a load balancer sends each request to the replica with the fewest outstanding, and each replica
// runs its engine's continuous-batching scheduler over its paged KV cache, one iteration at a time, each
// iteration as long as models::iterationCost gives for what it holds. Disaggregated replicas send each
// prompt's KV cache over the network to a decode replica.

#include "models/requeststream.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/servingresult.h"
#include "sim/simulator.h"

namespace choreo::sim {

// Simulates the serving stage's stream (with `override` applied) once. One SimGrid simulation per process:
// callers run it in a child (runIsolated), as serveScenario does. Analytical fidelity: a closed form from
// the same iteration costs (mean batch by fixed point, queueing as M/D/1), no SimGrid.
models::ServingMeasurement simulateServing(const models::ResolvedScenario& scenario, Fidelity fidelity,
                                           const models::StreamOverride& override = {});

// The rate search alone (the stage must set an SLO), its probes in children as serveScenario's; its curve
// holds the search's own loads only (validation needs the rate).
models::RateSearch searchServingRate(const models::ResolvedScenario& scenario,
                                     const SimulationOptions& options, int jobs = 1);

// The serving result: the stream as the scenario gives it, then (when the stage sets SLOs) the highest
// Poisson rate that meets them, searched as MLPerf's Server scenario does, with the latency curve filled in
// below it, and the devices a target rate needs. Every simulation runs in a child process, `jobs` at a time;
// the caller's process creates no SimGrid engine, so a training step may still be simulated after it.
models::ServingResult serveScenario(const models::ResolvedScenario& scenario,
                                    const SimulationOptions& options, int jobs = 1);

} // namespace choreo::sim
