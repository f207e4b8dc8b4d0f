#pragma once
// Offload stages (workload.stages, kind "offload"): part of the training step placed on another pool, and
// the traffic between the pools, in closed form (docs/model.md, "Offload stages").

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/scenario.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// An offload stage checked against the pools and the catalog.
struct ResolvedOffload {
    OffloadStage stage;
    std::optional<std::size_t> pool; // the pool doing the work; nullopt: the training nodes' host CPUs
    const Device* device = nullptr;  // what runs the offloaded work
    std::string pool_name;           // its pool's name, or "<training pool> host CPUs"
    double devices = 0;              // how many of them (host CPUs: training devices x cpus_per_device)
    double training_devices = 0;     // the training pool's devices it serves
    // The link from one training device to the offload devices, each direction, at its achieved rate: the
    // host link (PCIe, NVLink-C2C) to the host CPUs, else the training device's share of the narrower of the
    // two pools' network interfaces.
    double link_Bps = 0;
    double link_latency_s = 0;
    double pool_nic_Bps = 0; // over the network: the offload pool's NICs together, achieved (else 0)
    std::string link;        // what that link is, for results ("host link", "scale-out network")
};

// The JSON path of an offload stage ("workload.stages[2]").
std::string offloadStagePath(const OffloadStage& stage);

// One MoE layer's routed experts for one micro-batch, as one training device waits for them on the expert
// pool: its tokens sent there (dispatch) and their outputs back (combine), and the expert GEMMs on the pool,
// which serves every training device's tokens at once.
struct ExpertWave {
    double send_bytes = 0; // one way, per training device: tokens x top_k x hidden x activation bytes / tp
    double transfer_s = 0; // one all-to-all (dispatch or combine) over the link
    double compute_s = 0;  // the experts' forward GEMMs on one expert-pool device
    [[nodiscard]] double forward_s() const { return 2.0 * transfer_s + compute_s; }
    [[nodiscard]] double backward_s() const { return 2.0 * transfer_s + 2.0 * compute_s; }
};
ExpertWave expertWave(const ResolvedOffload& experts, const Workload& workload);

// The optimizer step on CPUs for one training device's parameters: their gradients down, Adam on the
// CPUs' memory, the 16-bit weights back; one after the other (no delayed parameter update).
struct OptimizerOffloadTimes {
    double gradients_s = 0;
    double update_s = 0;
    double weights_s = 0;
    [[nodiscard]] double total() const { return gradients_s + update_s + weights_s; }
};
OptimizerOffloadTimes optimizerOffloadTimes(const ResolvedOffload& optimizer, const Workload& workload,
                                            double updatedParams);

// Embedding tables in CPU memory (a parameter server): the input embedding's table, its gradients and Adam
// states live once on a CPU pool, sharded over its CPUs. Per micro-batch each device of the first pipeline
// stage fetches its tokens' rows (its sequence-parallel share: tokens / tp) and later sends their gradients
// back; the pool gathers the rows, sums every replica's gradients into the table's and, once a step, runs
// Adam over the whole table.
struct EmbeddingTraffic {
    double rows_bytes = 0;  // one way, per first-stage device and micro-batch: tokens / tp x hidden x 2 B
    double transfer_s = 0;  // those rows (or their gradients) over the link
    double pool_work_s = 0; // the pool's CPUs gathering and summing one micro-batch of every device
    double update_s = 0;    // Adam over the table on the pool's CPUs, once a step
    double first_stage_devices = 0;
    // One micro-batch's rows reach a device when the link has carried them and the pool has gathered them.
    [[nodiscard]] double fetch_s() const { return transfer_s > pool_work_s ? transfer_s : pool_work_s; }
    // After the step's last backward: its gradients cross, then the table is updated.
    [[nodiscard]] double tail_s() const { return transfer_s + update_s; }
};
EmbeddingTraffic embeddingTraffic(const ResolvedOffload& embeddings, const Workload& workload);

// The expert pool's own optimizer step over the routed experts it holds (on its memory, as the training
// devices' optimizer runs), seconds.
double expertPoolOptimizerSeconds(const ResolvedOffload& experts, const Workload& workload);

// What one offload stage does in one training step, for results: the bytes that cross the link between
// the pools (both directions, the whole cluster) and how long the offload devices are busy.
struct OffloadLoad {
    std::string target;
    std::string pool;
    std::string link;
    double bytes_per_step = 0;
    double link_GBps = 0; // per training device, each direction
    double busy_s = 0;    // per offload device
    // Whether its transfers were flows on the step's platform, sharing links with the step's traffic (flow
    // and packet fidelity, experts or the optimizer on a pool over a fat tree), or closed forms.
    bool simulated = false;
};
OffloadLoad offloadLoad(const ResolvedOffload& offload, const Workload& workload);

// Checks the offload stages against the pools and the catalog (pool, device kind, model, layout, and that
// what moves fits in the offload devices' memory); empty with errors naming the field on failure.
struct ResolvedPool;
std::vector<ResolvedOffload> resolveOffloads(const Scenario& scenario, const std::vector<ResolvedPool>& pools,
                                             std::size_t trainingPool, const Catalog& catalog,
                                             Diagnostics& errors);

} // namespace choreo::models
