#pragma once

#include "models/catalog.h"
#include "models/memory.h"
#include "models/scenario.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace choreo::ui {

// One parallel layout of the training pool that the scenario's rules accept and that fits in memory.
struct LayoutCandidate {
    models::ParallelLayout parallel;
    std::int64_t micro_batch = 1;
    models::MemoryBreakdown memory; // per device, worst pipeline stage
    // A closed-form guess from the step costs (models/stepcost.h), for pre-ranking only: compute of the
    // busiest stage, the pipeline bubble, tensor-parallel all-reduces and the data-parallel reduction.
    double estimate_step_s = 0;

    // "tp 4 · pp 4 · dp 8 · cp 1 · vp 1 · ZeRO 1 · mb 1"
    [[nodiscard]] QString describe() const;
};

// The base scenario with the candidate's layout and micro-batch; every other field is kept.
models::Scenario withLayout(const models::Scenario& base, const LayoutCandidate& candidate);

// Every layout of the training pool's devices over tp (within a node), cp (up to 8), pp, vp (1, 2, 4),
// ZeRO stage 0-3 and micro-batch (1, 2, 4) that resolves without a diagnostic (so it fits in memory),
// sorted by estimate_step_s. Of ZeRO 0-2 only the least sharding that fits is kept (more costs memory
// traffic and buys nothing once it fits); ZeRO-3 is kept beside it. Sequence parallelism is on whenever tp >
// 1; recomputation is the scenario's. Empty when the base scenario has no training pool or no valid model.
// Pure: safe on a worker thread while `catalog` is not modified.
std::vector<LayoutCandidate> enumerateLayouts(const models::Scenario& base, const models::Catalog& catalog);

} // namespace choreo::ui
