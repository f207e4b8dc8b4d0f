#pragma once
// Periodic evaluation (workload.stages, kind "eval"): a forward-only pass over the eval samples every
// every_steps steps, on the training devices or on a pool of its own, in closed form (docs/model.md).

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/scenario.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace choreo::models {

struct ResolvedEval {
    EvalStage stage;
    std::optional<std::size_t> pool; // its own pool; nullopt: the training pool
    const Device* device = nullptr;
    double devices = 0;
    double samples = 0;          // sequences evaluated each time
    double weights_bytes = 0;    // the model's 16-bit weights
    double weights_copy_Bps = 0; // to its own pool: the narrower of the two pools' NICs, all together
};

// One evaluation, and what it costs the training.
struct EvalTimes {
    double forward_s = 0; // the forward FLOPs at the devices' GEMM rate, all devices together
    double weights_s = 0; // its own pool: the weights copied to it before each evaluation
    // What each training step pays: the training devices pause for forward_s every every_steps steps; an
    // eval pool of its own costs the training nothing.
    double per_step_s = 0;
    // Seconds its own pool is busy per training step ((forward + copy) / every_steps; 0 on the training
    // pool).
    double busy_per_step_s = 0;
};
EvalTimes evalTimes(const ResolvedEval& eval, const Workload& workload);

// Checks the eval stage against the pools and the catalog; nullopt with errors naming the field.
struct ResolvedPool;
std::optional<ResolvedEval> resolveEval(const Scenario& scenario, const std::vector<ResolvedPool>& pools,
                                        std::size_t trainingPool, Diagnostics& errors);

} // namespace choreo::models
