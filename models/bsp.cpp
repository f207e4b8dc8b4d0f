#include "models/bsp.h"

#include "models/jsonreader.h"
#include "models/precision.h"
#include "models/transformer.h"

#include <algorithm>

namespace choreo::models {

namespace {

// "bow-ipu computes from its SRAM in bulk-synchronous supersteps: ..." — why a field is refused.
std::string notOnIpu(const Device& device, const std::string& why) {
    return device.id +
           " keeps a stage's model state in its own SRAM and computes in bulk-synchronous "
           "supersteps: " +
           why;
}

// Bytes a logit takes at the loss's peak: the softmax kept for the backward and its gradient, both in the
// training precision (PopTorch computes the loss in fp16; an assumption, as no memory report says more).
constexpr double kFp16LogitBytes = 4.0;

} // namespace

void checkBulkSynchronousLayout(const Workload& w, const Device& device, Diagnostics& errors) {
    const auto& p = w.parallel;
    if (p.zero >= 2)
        errors.push_back({"workload.parallel.zero",
                          "must be 0 or 1, got " + std::to_string(p.zero) + ": " +
                              notOnIpu(device, "gradients accumulate in each replica's SRAM and weights stay "
                                               "there; only the optimizer state in streaming memory is "
                                               "sharded over the replicas (replicated tensor sharding, 1)")});
    if (p.cp != 1)
        errors.push_back({"workload.parallel.cp",
                          "must be 1, got " + std::to_string(p.cp) + ": " +
                              notOnIpu(device, "its frameworks split a model by layers over IPUs (pp) and "
                                               "by matrices inside one (tp), never a sequence")});
    if (p.vp != 1)
        errors.push_back({"workload.parallel.vp",
                          "must be 1, got " + std::to_string(p.vp) + ": " +
                              notOnIpu(device, "each IPU runs one pipeline stage, whose code must fit in its "
                                               "SRAM beside the stage's state")});
    if (w.activation_offload_layers != 0)
        errors.push_back({"workload.activation_offload_layers",
                          "must be 0 on " + device.id +
                              ": its pipeline stashes activations in SRAM; set recompute to full to keep "
                              "fewer"});
    if (!w.offload.empty())
        errors.push_back(
            {"workload.stages", device.id + " holds each stage's layers in its SRAM: no layer, expert or "
                                            "optimizer can be offloaded to another pool"});
}

MemoryBreakdown bulkSynchronousStageMemory(const Workload& w, const Device& device, std::int64_t stage) {
    MemoryBreakdown m = memoryForStage(w, stage, kFp16LogitBytes);
    m.off_chip_GB = m.optimizer_GB; // in streaming memory (streamedOptimizerStateGB)
    m.optimizer_GB = 0.0;
    m.buffers_GB = device.bulk_synchronous->code_GB.value;
    return m;
}

MemoryBreakdown bulkSynchronousMemory(const Workload& w, const Device& device) {
    double offChip = 0.0; // the most any stage keeps in streaming memory, found in the same pass
    MemoryBreakdown worst = worstStage(w, [&](std::int64_t stage) {
        MemoryBreakdown m = bulkSynchronousStageMemory(w, device, stage);
        offChip = std::max(offChip, m.off_chip_GB);
        return m;
    });
    worst.off_chip_GB = offChip;
    return worst;
}

double streamedOptimizerStateGB(const Workload& w) {
    double most = 0.0;
    for (std::int64_t s = 0; s < w.parallel.pp; ++s)
        most = std::max(most, memoryForStage(w, s).optimizer_GB);
    return most;
}

SuperstepCost layerSupersteps(const Device& device, double exchange_bytes) {
    const BulkSynchronous& bsp = *device.bulk_synchronous;
    SuperstepCost cost;
    cost.exchange_s = exchange_bytes / (bsp.exchange_TBps.value * 1e12);
    cost.sync_s = bsp.supersteps_per_layer.value * bsp.sync_us.value * 1e-6;
    return cost;
}

double streamedOptimizerSeconds(const Device& device, const Workload& w, double params) {
    const BulkSynchronous& bsp = *device.bulk_synchronous;
    // The state comes in and goes back out over the two directions of the link at once.
    const double state = params * trainingStateBytes(w).optimizer;
    return state / (bsp.streaming_GBps.value * 1e9);
}

} // namespace choreo::models
