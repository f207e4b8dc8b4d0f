#pragma once

#include "models/catalog.h"
#include "models/datastage.h"
#include "models/diagnostic.h"
#include "models/evalstage.h"
#include "models/memory.h"
#include "models/offload.h"
#include "models/powerlimit.h"
#include "models/reliability.h"
#include "models/scenario.h"
#include "models/serving.h"
#include "models/topology.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// A pool with its catalog device looked up, and its prices (0 when unknown).
struct ResolvedPool {
    Pool pool;
    const Device* device = nullptr;
    double rent_usd_per_device_hour = 0;
    double buy_usd_per_device = 0;
    // The training pool: the share of its NICs' rate left for traffic to other pools, which crosses the
    // leaves' uplinks (NetworkPlan::offLeafShare); 1 for the other pools.
    double off_leaf_share = 1.0;
    // What the pool's power limit (Pool::power_limit_W) does to its device, and the device without it:
    // `device` is then a slower copy held by ResolvedScenario::device_copies. Absent, and nullptr, without a
    // limit.
    std::optional<PowerLimitEffect> power_limit{};
    const Device* rated_device = nullptr;
    // The device as the catalog (or a calibration profile) rates it, before any power limit.
    [[nodiscard]] const Device* ratedDevice() const { return rated_device ? rated_device : device; }
};

// A scenario checked against the catalog, with every default filled in: what the simulator runs.
// Holds pointers into the Catalog, which must outlive it.
struct ResolvedScenario {
    Scenario scenario;
    std::vector<ResolvedPool> pools;
    std::size_t training_pool = 0;

    // Effective network figures (scenario override, else catalog), in SI units.
    double scale_up_Bps = 0; // per device, one direction, line rate
    double scale_up_latency_s = 0;
    std::string scale_up_fabric;
    double nic_Bps = 0;          // per device, one direction, line rate
    double switch_latency_s = 0; // per switch hop
    std::int64_t nodes_per_leaf = 0;
    NetworkPlan network;                   // the training pool's network, checked
    TopologyFigures topology;              // its bisection, diameter and counts
    MemoryBreakdown memory;                // per device, worst stage
    std::optional<ResolvedDataStage> data; // the input pipeline, when the workload has one
    std::vector<ResolvedOffload> offload;  // work placed on other pools (Workload::offload)
    std::optional<ResolvedEval> eval;      // periodic evaluation, when the workload has one
    // Failures and checkpoints over the whole run; absent when workload.reliability.failures is off.
    std::optional<ResolvedReliability> reliability;
    // The model's serving (workload.stages, kind "serve"). A serving workload has only this: training_pool
    // is then the pool that serves, and the training figures above stay empty.
    std::optional<ResolvedServing> serving;
    // Set by applyScenarioCalibration (models/calibration.h): the profile's name and source.
    std::string calibration;
    std::optional<Source> calibration_source;
    // The copies of catalog devices that `pools` point to: calibrated (models/calibration.h) or power-limited
    // (models/powerlimit.h).
    std::vector<std::shared_ptr<const Device>> device_copies;
    // The framework profile applied to `scenario` and what it set, in words (applyFrameworkProfile); empty
    // when the scenario names no framework.
    std::string framework;

    [[nodiscard]] const Device& device() const { return *pools[training_pool].device; }
    [[nodiscard]] const Pool& pool() const { return pools[training_pool].pool; }
    [[nodiscard]] const Workload& workload() const { return scenario.workload; }
    [[nodiscard]] bool trains() const { return scenario.workload.trains(); }
    // The offload stage of `target`, or nullptr when that work stays on the training devices.
    [[nodiscard]] const ResolvedOffload* offloaded(OffloadTarget target) const {
        for (const auto& o : offload)
            if (o.stage.target == target)
                return &o;
        return nullptr;
    }
    [[nodiscard]] bool fitsInMemory() const { return memory.total() <= device().memory_GB.value; }
};

// The index of the pool named `name`, or nullopt with an error at `path` listing the pools (stages name
// the pool they run on).
std::optional<std::size_t> findPoolNamed(const std::vector<ResolvedPool>& pools, const std::string& name,
                                         const std::string& path, Diagnostics& errors);
// The pool named `name` for a stage that runs beside the training: not the training pool, and of CPUs
// (`cpus` true) or of accelerators; nullopt with an error at `path` ending in `needs` otherwise.
std::optional<std::size_t> findStagePool(const std::vector<ResolvedPool>& pools, const std::string& name,
                                         std::size_t trainingPool, bool cpus, const std::string& path,
                                         const std::string& needs, Diagnostics& errors);

// Checks everything the file format cannot (divisibility, device counts, memory, catalog ids) and fills
// defaults. On failure returns nullopt; `errors` names the JSON path of each problem. With
// `checkMemory` false a layout that does not fit is still resolved (validation of published runs).
std::optional<ResolvedScenario> resolveScenario(const Scenario& scenario, const Catalog& catalog,
                                                Diagnostics& errors, bool checkMemory = true);

// The effective link rates of `network` on `device`: scenario overrides, else catalog figures, else
// defaults (a device without a scale-up fabric gets 64 GB/s, 2 us).
LinkRates linkRates(const Network& network, const Device& device);
// The network plan of the scenario's training pool alone (the workload need not be valid): what the
// topology view draws. Nullopt, with errors naming the JSON path, when it cannot be planned.
std::optional<NetworkPlan> planTrainingPoolNetwork(const Scenario& scenario, const Catalog& catalog,
                                                   Diagnostics& errors);

// Default switch-hop latency when the scenario does not set it (CHOREO-DEFAULT); leaf size: topology.h.
inline constexpr double kDefaultSwitchLatencyUs = 1.0;
// Sizes past which a simulation would not fit in a desktop's memory; rejected with a message.
inline constexpr std::int64_t kMaxDevicesPerPool = 131072;
inline constexpr std::int64_t kMaxMicroBatchesPerStep = 65536;
inline constexpr std::int64_t kMaxPipelineOperations = 262144; // micro-batches per step x pp

} // namespace choreo::models
