#pragma once

#include "models/diagnostic.h"
#include "models/jsonreader.h"
#include "models/memory.h"
#include "models/powertrace.h"
#include "models/resolved.h"
#include "models/servingresult.h"
#include "models/stepcost.h"
#include "models/timeline.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// Where one step's wall time goes on the device that finishes last; the parts add up to the step.
struct StepBreakdown {
    double compute_s = 0;
    double exposed_communication_s = 0;
    double pipeline_bubble_s = 0;
    double data_wait_s = 0; // waiting for the data stage, which cannot keep up (absent before: 0)
    double eval_s = 0;      // the training devices' evaluation pauses, per step (absent before: 0)
};

// One pool's share of a run: what it does, how busy it is, and what it costs.
struct PoolResult {
    std::string name;
    std::string device;
    std::int64_t count = 0;
    std::vector<std::string> stages; // "train", "data", "experts", "optimizer", "eval"; empty: idle
    double utilisation = 0;          // busy fraction of the step
    double energy_kWh = 0;           // whole training, at the facility
    double cost_usd = 0;             // hardware (rent or depreciation) and, when bought, electricity
    // The pool's board power limit per device and the clock it leaves compute-bound work, as a fraction of
    // the unlimited clock (ResolvedPool::power_limit); absent without a limit.
    std::optional<double> power_limit_W{};
    double clock_fraction = 1;
};

// The stage that limits tokens/s, where it runs, and the step time were it infinitely fast (the next
// stage's pace).
struct Bottleneck {
    std::string stage;
    std::string pool;
    std::string detail; // the data stage's slowest part ("preprocessing"), else empty
    double step_time_without_s = 0;
};

// Whether the cluster fits the site's power (Costs::site_power_MW): every pool's devices at their rated power
// (TDP) at once, times PUE, against the cap; and how many training devices fit beside the other pools.
struct SitePower {
    double cap_MW = 0;
    double peak_MW = 0;
    bool fits = true;
    std::int64_t devices_that_fit = 0; // training devices, with the other pools whole
};

// The arithmetic of one step on the busiest pipeline stage (the one with the most compute), by kind of
// work: GEMMs, attention and memory-bound kernels over all its micro-batches (recomputation included),
// the optimizer, and the wait for activation offloading's copies. Computed from the step model, not timed by
// the simulator; it adds up to that stage's compute, which can differ from StepBreakdown::compute_s (the
// device that finishes last).
struct ComputeSplit {
    double gemm_s = 0;
    double attention_s = 0;
    double memory_bound_s = 0;
    double optimizer_s = 0;
    // Waiting for offloaded work: activation copies to and from host memory, experts on their own pool
    // (absent before: 0).
    double offload_wait_s = 0;
    std::int64_t stage = 0;
    [[nodiscard]] double total() const {
        return gemm_s + attention_s + memory_bound_s + optimizer_s + offload_wait_s;
    }
};

// What the simulator measured for one step; the input of finishResult().
struct StepMeasurement {
    double step_time_s = 0;          // the training step alone (the data stage is added by finishResult)
                                     // while any simulated data flows contend with it
    double it_energy_per_step_J = 0; // the training pool's devices, one step
    StepBreakdown breakdown;
    ComputeSplit compute_split; // from the chunk costs the engine simulated (computeSplit)
    std::string fidelity;       // "flow", "packet", "analytical"
    std::string calibration;    // "none (catalog spec sheet)" or a profile name
    std::int64_t simulated_activities = 0;
    StepTimeline timeline; // per pipeline stage, uncapped; empty when the fidelity gives none
    // The data stage as simulated beside the step, its flows sharing the step's links; absent where it is
    // left to the closed form (dataStageTimes).
    std::optional<DataStageTimes> data_stage;
    bool expert_transfers_simulated = false;    // offloaded experts' transfers were flows on the platform
    bool optimizer_transfers_simulated = false; // the optimizer's gradients and weights to its CPU pool too
};

// Everything a run reports. Serialised by resultToJson; the same scenario gives the same JSON.
struct RunResult {
    // "train": a training step and everything it implies; "serve": a serving workload, whose result is
    // `serving` and the pools' share of its stream (the training figures below stay zero and are not
    // written).
    std::string kind = "train";
    std::string scenario;
    std::string device;
    std::int64_t devices = 0;
    std::string fidelity;
    std::string calibration;
    // How far the model's predictions on this device were from published runs (describeAccuracy), or that
    // none was compared; empty in older results.
    std::string accuracy;
    // The catalog figures of its devices that were only announced (announcedFigures), or empty: a result
    // built on them is a projection, and says so wherever it is shown.
    std::string announced;
    // The training framework's profile and what it set (ResolvedScenario::framework); empty when the
    // scenario names none.
    std::string framework;
    double step_time_s = 0;
    double tokens_per_s = 0;
    double mfu = 0;
    double steps = 0;
    double time_to_train_s = 0;
    double energy_kWh = 0;       // whole training, at the facility (PUE included)
    double average_power_kW = 0; // at the facility (PUE included)
    double it_power_kW = 0;      // devices only
    double cost_usd = 0;
    double cost_hardware_usd = 0;
    double cost_electricity_usd = 0;
    std::string cost_mode;
    std::string provider; // renting: the provider whose offers priced the pools (Costs::provider); else empty
    double memory_per_device_GB = 0;
    MemoryBreakdown memory;
    StepBreakdown breakdown;
    ComputeSplit compute_split; // absent from older results: zeros
    double model_flops_per_step = 0;
    double achieved_tflops_per_device = 0;
    std::int64_t simulated_activities = 0;
    std::vector<PoolResult> pools; // every pool of the cluster; their cost_usd add up to cost_usd
    Bottleneck bottleneck;
    std::optional<DataStageTimes> data_stage; // one global batch through the input pipeline
    std::vector<OffloadLoad> offload;         // each offload stage's traffic and load, one step
    std::optional<EvalTimes> eval;            // one evaluation, and its cost per step
    // The whole run with failures, checkpoints and restarts; time_to_train_s is then its median, and the
    // energy and cost include the lost work and the stalls. Absent when failures are off (the ideal).
    std::optional<WholeRun> whole_run;
    std::optional<SitePower> site_power; // absent without a site power cap
    TopologyFigures topology;            // the training pool's network (absent from older results: zeros)
    StepTimeline timeline;               // one step per pipeline stage (absent from older results: empty)
    PowerTrace power; // facility power over that step, from the timeline (empty without one)
    std::optional<ServingResult> serving; // the model's serving, when the workload has a serve stage
};

// A serving workload's result: its serving, and each pool's share of the simulated stream (busy fraction,
// energy and cost over the stream's span).
RunResult servingRunResult(const ResolvedScenario& scenario, const ServingResult& serving);

// Adds a pool that drew `pool.energy_kWh` at the facility over `hours` to the run: its cost (rented: power
// and cooling are in the hourly price; owned: straight-line depreciation plus electricity) and the run's
// hardware, electricity and energy totals.
void addPoolCost(RunResult& run, PoolResult pool, const ResolvedPool& resolved, const Costs& costs,
                 double hours);

// "rubin's peak_tflops.bf16 and tdp_W were only announced; no shipped part was measured", for every device
// of the scenario's pools with announced figures (Device::announced_figures); empty when none has any.
std::string announcedFigures(const ResolvedScenario& scenario);

// Turns a simulated step into time-to-train, throughput, MFU, energy and cost.
RunResult finishResult(const ResolvedScenario& scenario, const StepMeasurement& step);

// The step's arithmetic on its busiest pipeline stage, by kind of work, from the costs of its model chunks
// (costs[c] of chunk c, 0 .. pp*vp-1, as stageCost gives them). With `expertTransfersAsFlows` (flow and
// packet fidelity with an expert pool on the platform), the offloaded experts' transfers are not a wait
// inside the computation: their bandwidth part leaves offload_wait_s. Likewise `optimizerTransfersAsFlows`:
// the gradients and weights to the optimizer's CPU pool leave optimizer_s.
ComputeSplit computeSplit(const Workload& workload, const std::vector<StageCost>& costs,
                          bool expertTransfersAsFlows = false, bool optimizerTransfersAsFlows = false);

// The first headline quantity that is not a finite, non-negative number ("energy_kWh is inf"), or an empty
// string when all are: a result that fails this is a failed simulation, never a success.
std::string unphysicalQuantity(const RunResult& result);

Json resultToJson(const RunResult& result);
// Reads what resultToJson wrote; nullopt (with diagnostics) when fields are missing or mistyped.
std::optional<RunResult> resultFromJson(const Json& json, Diagnostics& errors);

} // namespace choreo::models
