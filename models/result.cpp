#include "models/result.h"

#include "models/jsonreader.h"
#include "models/stepcost.h"
#include "models/transformer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace choreo::models {

namespace {

// Without a calibration profile, a result says which of the training device's compute efficiencies are
// modelling assumptions (CHOREO-DEFAULT) rather than measurements, so that a reader weighs it accordingly.
std::string withAssumedEfficiencies(const ResolvedScenario& rs, std::string calibration) {
    const Device& device = rs.device();
    const DeviceEfficiency& e = device.efficiency;
    const bool gemmAssumed = e.gemmAt(rs.workload().precision).source == kAssumedSource;
    const bool flash2 = rs.workload().attention == AttentionKernel::Flash2 && e.attention_flash2.present();
    const bool attentionAssumed = (flash2 ? e.attention_flash2 : e.attention).source == kAssumedSource;
    if (!gemmAssumed && !attentionAssumed)
        return calibration;
    const std::string what = gemmAssumed && attentionAssumed ? "GEMM and attention efficiencies are"
                             : gemmAssumed                   ? "GEMM efficiency is"
                                                             : "attention efficiency is";
    return calibration + "; " + device.id + "'s " + what + " assumed (" + kAssumedSource + "), not measured";
}

} // namespace

ComputeSplit computeSplit(const Workload& w, const std::vector<StageCost>& costs, bool expertTransfersAsFlows,
                          bool optimizerTransfersAsFlows) {
    const std::int64_t pp = std::max<std::int64_t>(1, w.parallel.pp);
    const auto microBatches = static_cast<double>(w.microBatchesPerStep());
    std::vector<ComputeSplit> stages(static_cast<std::size_t>(pp));
    for (std::size_t chunk = 0; chunk < costs.size(); ++chunk) {
        const StageCost& c = costs[chunk];
        ComputeSplit& s = stages[chunk % stages.size()];
        s.stage = static_cast<std::int64_t>(chunk % stages.size());
        s.gemm_s += microBatches * c.gemm_s;
        s.attention_s += microBatches * c.attention_s;
        s.memory_bound_s += microBatches * c.memory_bound_s;
        s.offload_wait_s += microBatches * c.offload_wait_s;
        if (expertTransfersAsFlows && c.offload_link_Bps > 0.0) // on the links, not in the computation
            s.offload_wait_s -= microBatches * (c.offload_transfers_forward + c.offload_transfers_backward) *
                                c.offload_send_bytes / c.offload_link_Bps;
        // The step's wait for the embedding table's update is a wait, not the device's optimizer.
        s.optimizer_s += c.optimizer_s - c.embedding_tail_s;
        if (optimizerTransfersAsFlows && c.optimizer_link_Bps > 0.0) // on the links, not in the computation
            s.optimizer_s -= (c.optimizer_down_bytes + c.optimizer_up_bytes) / c.optimizer_link_Bps;
        s.offload_wait_s += c.embedding_tail_s;
    }
    return *std::max_element(stages.begin(), stages.end(), [](const ComputeSplit& a, const ComputeSplit& b) {
        return a.total() < b.total();
    });
}

namespace {

// The training devices' waits inside the simulated compute of one step: for offloaded work (activation
// copies, experts on their pool) and for an optimizer step run on CPUs. They are not busy meanwhile.
double trainingWaitSeconds(const ResolvedScenario& rs, const ComputeSplit& split) {
    return split.offload_wait_s + (rs.offloaded(OffloadTarget::Optimizer) ? split.optimizer_s : 0.0);
}

// How long pool `i` (not the training pool) is busy in one step: the data stage's CPUs preprocessing, an
// offload stage's devices doing their share.
double busySeconds(const ResolvedScenario& rs, std::size_t i, const RunResult& r) {
    const DataStageTimes* data = r.data_stage ? &*r.data_stage : nullptr;
    double busy = data && rs.data->pool == i ? cpuBusySeconds(*rs.data, data->samples) : 0.0;
    if (r.eval && rs.eval->pool == i)
        busy += r.eval->busy_per_step_s;
    const std::vector<OffloadLoad>& offload = r.offload;
    for (std::size_t k = 0; k < rs.offload.size(); ++k)
        if (rs.offload[k].pool == i)
            busy += offload[k].busy_s;
    return std::min(r.step_time_s, busy);
}

// Energy of one step of pool `i`, its devices only (no PUE): the training pool as simulated plus its idle
// wait for data and busy for its `evaluating` seconds, another pool busy at full power for its stages' work
// and idle the rest of the step.
double poolEnergyPerStep(const ResolvedScenario& rs, std::size_t i, const StepMeasurement& train, double busy,
                         double evaluating, double step) {
    const ResolvedPool& rp = rs.pools[i];
    const double devices = static_cast<double>(rp.pool.count);
    if (i == rs.training_pool) {
        // The simulators count the waits for offloaded work as busy; the devices idle through them.
        const double waiting = trainingWaitSeconds(rs, train.compute_split);
        // Beyond the simulated step: idle while waiting for data, busy for an evaluation's forward.
        const double idling = devices * (rp.device->idle_W.value * (step - train.step_time_s - evaluating) +
                                         rp.device->tdp_W.value * evaluating);
        return std::max(train.it_energy_per_step_J -
                            devices * waiting * (rp.device->tdp_W.value - rp.device->idle_W.value),
                        devices * rp.device->idle_W.value * train.step_time_s) +
               idling;
    }
    return devices * (busy * rp.device->tdp_W.value + (step - busy) * rp.device->idle_W.value);
}

// The stages pool `i` runs: "train", "data", and the offload targets it takes.
std::vector<std::string> poolStages(const ResolvedScenario& rs, std::size_t i, bool hasData) {
    std::vector<std::string> stages;
    if (i == rs.training_pool)
        stages.emplace_back("train");
    if (hasData && rs.data->pool.value_or(rs.training_pool) == i)
        stages.emplace_back("data");
    for (const auto& o : rs.offload)
        if (o.pool.value_or(rs.training_pool) == i)
            stages.push_back(toString(o.stage.target));
    if (rs.eval && rs.eval->pool.value_or(rs.training_pool) == i)
        stages.emplace_back("eval");
    if (rs.serving &&
        (rs.serving->serve.pool == i || (rs.serving->prefill && rs.serving->prefill->pool == i)))
        stages.emplace_back("serve");
    return stages;
}

// Train here, serve there: a pool that only serves is billed over the serving horizon, not while training.
bool servesOnly(const std::vector<std::string>& stages) {
    return stages == std::vector<std::string>{"serve"};
}

// A pool's share before its figures: who it is, what it does, and its power limit.
PoolResult poolResultOf(const ResolvedPool& rp, std::vector<std::string> stages) {
    PoolResult pool;
    pool.name = rp.pool.name;
    pool.device = rp.device->id;
    pool.count = rp.pool.count;
    pool.stages = std::move(stages);
    pool.power_limit_W = rp.pool.power_limit_W;
    pool.clock_fraction = rp.power_limit ? rp.power_limit->clock_fraction : 1.0;
    return pool;
}

// The training pool's hot spares (Reliability::hot_spare_nodes): how many devices, 0 without failures.
std::int64_t spareDevices(const ResolvedScenario& rs) {
    return rs.reliability ? rs.reliability->spare_nodes * rs.pool().devices_per_node : 0;
}

// What the hot spares draw, waiting at idle power.
double spareIdleW(const ResolvedScenario& rs) {
    return static_cast<double>(spareDevices(rs)) * rs.device().idle_W.value;
}

// The hot spares as a pool of their own: idle for the whole run, billed like the training pool; their power
// joins the run's, their cost its total (not the failures').
void addSparePool(const ResolvedScenario& rs, double hours, RunResult& r) {
    ResolvedPool spares = rs.pools[rs.training_pool];
    spares.pool.count = spareDevices(rs);
    spares.pool.name += " (hot spares)";
    const double idleW = spareIdleW(rs);
    PoolResult pool = poolResultOf(spares, {});
    pool.energy_kWh = idleW * r.time_to_train_s * rs.scenario.costs.pue / 3.6e6;
    addPoolCost(r, std::move(pool), spares, rs.scenario.costs, hours);
    r.cost_usd = r.cost_hardware_usd + r.cost_electricity_usd;
    r.it_power_kW += idleW / 1e3;
}

// Each pool's stages, utilisation, energy and cost, and the run's totals from them.
void addPools(const ResolvedScenario& rs, const StepMeasurement& train, const DataStageTimes* data,
              RunResult& r) {
    const auto& costs = rs.scenario.costs;
    const double hours = r.time_to_train_s / 3600.0;
    double itEnergyPerStepJ = 0.0;
    // With failures, redone computing draws the step's power and checkpoint stalls and recoveries idle power.
    const WholeRun* run = r.whole_run ? &*r.whole_run : nullptr;
    const double redone = run && run->ideal_s > 0.0 ? 1.0 + run->lost_work_s / run->ideal_s : 1.0;
    const double idleSeconds = run ? run->checkpoint_total_s + run->recovery_total_s : 0.0;
    r.cost_hardware_usd = r.cost_electricity_usd = r.energy_kWh = 0.0;
    for (std::size_t i = 0; i < rs.pools.size(); ++i) {
        const ResolvedPool& rp = rs.pools[i];
        PoolResult pool = poolResultOf(rp, poolStages(rs, i, data != nullptr));
        if (servesOnly(pool.stages)) {
            r.pools.push_back(std::move(pool));
            continue;
        }
        const double busy = i == rs.training_pool
                                ? std::max(0.0, r.breakdown.compute_s + r.breakdown.eval_s -
                                                    trainingWaitSeconds(rs, train.compute_split))
                                : busySeconds(rs, i, r);
        pool.utilisation = busy / r.step_time_s;
        const double energyPerStepJ =
            poolEnergyPerStep(rs, i, train, busy, r.breakdown.eval_s, r.step_time_s);
        itEnergyPerStepJ += energyPerStepJ;
        pool.energy_kWh = (energyPerStepJ * r.steps * redone +
                           idleSeconds * rp.device->idle_W.value * static_cast<double>(rp.pool.count)) *
                          costs.pue / 3.6e6;
        addPoolCost(r, std::move(pool), rp, costs, hours);
    }
    r.cost_usd = r.cost_hardware_usd + r.cost_electricity_usd;
    if (r.whole_run && r.time_to_train_s > 0.0) { // what the failures cost beyond the ideal run
        const double idealEnergy = itEnergyPerStepJ * r.steps * costs.pue / 3.6e6;
        WholeRun& w = *r.whole_run;
        w.lost_energy_kWh = r.energy_kWh - idealEnergy;
        w.lost_cost_usd =
            r.cost_hardware_usd * (1.0 - w.ideal_s / r.time_to_train_s) +
            (costs.mode == CostMode::Buy ? w.lost_energy_kWh * costs.electricity_usd_per_kWh : 0.0);
    }
    r.it_power_kW = itEnergyPerStepJ / r.step_time_s / 1e3;
    if (spareDevices(rs) > 0)
        addSparePool(rs, hours, r);
    r.average_power_kW = r.it_power_kW * costs.pue;
}

// The cluster against the site's power cap: every pool at its rated power, times PUE.
std::optional<SitePower> sitePower(const ResolvedScenario& rs) {
    const auto& costs = rs.scenario.costs;
    if (!costs.site_power_MW)
        return std::nullopt;
    SitePower out;
    out.cap_MW = *costs.site_power_MW;
    double othersW = 0.0;
    for (std::size_t i = 0; i < rs.pools.size(); ++i)
        if (i != rs.training_pool)
            othersW += static_cast<double>(rs.pools[i].pool.count) * rs.pools[i].device->tdp_W.value;
    othersW += spareIdleW(rs);
    const double perDeviceW = rs.device().tdp_W.value;
    const auto count = static_cast<double>(rs.pool().count);
    out.peak_MW = (othersW + count * perDeviceW) * costs.pue / 1e6;
    out.fits = out.peak_MW <= out.cap_MW;
    const double room = out.cap_MW * 1e6 / costs.pue - othersW;
    out.devices_that_fit =
        perDeviceW > 0.0 ? static_cast<std::int64_t>(std::clamp(std::floor(room / perDeviceW), 0.0, count))
                         : rs.pool().count;
    return out;
}

// How long one training device waits for its offloaded experts in a step: every micro-batch's MoE layers,
// forward, backward and a recomputed forward (the first pipeline stage's share of the layers).
double expertsWaitSeconds(const Workload& w, const ExpertWave& wave) {
    const bool recomputed = w.recompute == Recompute::Full || w.recompute == Recompute::SelectiveOps;
    const double layers = static_cast<double>(w.model.moeLayers()) / static_cast<double>(w.parallel.pp);
    return static_cast<double>(w.microBatchesPerStep()) * layers *
           (wave.forward_s() * (recomputed ? 2.0 : 1.0) + wave.backward_s());
}

// Which stage limits the step, and the step without it. The data stage does when it is slower than the
// training step; an offload stage when the training devices wait for it longer than they do anything else.
Bottleneck findBottleneck(const ResolvedScenario& rs, double trainStep, const DataStageTimes* data) {
    const std::string& training = rs.pool().name;
    if (data && data->stage_s() > trainStep)
        return {"data", rs.data->pool ? rs.pools[*rs.data->pool].pool.name : training + " host CPUs",
                data->limit(), trainStep};
    if (const ResolvedOffload* experts = rs.offloaded(OffloadTarget::Experts)) {
        const ExpertWave wave = expertWave(*experts, rs.workload());
        const double wait = expertsWaitSeconds(rs.workload(), wave);
        if (wait > trainStep - wait)
            return {"experts", experts->pool_name,
                    2.0 * wave.transfer_s > wave.compute_s ? "the link between the pools" : "expert compute",
                    std::max(trainStep - wait, data ? data->stage_s() : 0.0)};
    }
    if (const ResolvedOffload* embeddings = rs.offloaded(OffloadTarget::Embeddings)) {
        const StageCost first = stageCost(rs, 0);
        const double wait =
            static_cast<double>(rs.workload().microBatchesPerStep()) * first.embedding_wait_s +
            first.embedding_tail_s;
        const EmbeddingTraffic traffic = embeddingTraffic(*embeddings, rs.workload());
        if (wait > trainStep - wait)
            return {"embeddings", embeddings->pool_name,
                    traffic.transfer_s >= traffic.pool_work_s ? "the link between the pools"
                                                              : "the pool's memory bandwidth",
                    std::max(trainStep - wait, data ? data->stage_s() : 0.0)};
    }
    return {"train", training, "", data ? data->stage_s() : 0.0};
}

} // namespace

std::string announcedFigures(const ResolvedScenario& rs) {
    std::vector<const Device*> devices;
    for (const auto& pool : rs.pools)
        if (pool.device && pool.device->announced() &&
            std::none_of(devices.begin(), devices.end(),
                         [&](const Device* d) { return d->id == pool.device->id; }))
            devices.push_back(pool.device);
    std::string sentence;
    for (const Device* d : devices)
        sentence += (sentence.empty() ? "" : "; ") + d->id + "'s " + announcedFigureList(*d);
    if (!sentence.empty())
        sentence += devices.size() == 1 && devices[0]->announced_figures.size() == 1
                        ? " was only announced; no shipped part was measured"
                        : " were only announced; no shipped part was measured";
    return sentence;
}

RunResult finishResult(const ResolvedScenario& rs, const StepMeasurement& step) {
    const auto& w = rs.workload();
    RunResult r;
    r.scenario = rs.scenario.name;
    r.device = rs.device().id;
    r.devices = rs.pool().count;
    r.fidelity = step.fidelity;
    r.calibration = rs.calibration.empty() ? withAssumedEfficiencies(rs, step.calibration) : rs.calibration;
    // The table was measured with the catalog's figures: a calibrated run's own error is not known.
    r.accuracy = rs.device().accuracy ? describeAccuracy(*rs.device().accuracy)
                                      : "no published run on " + rs.device().id + " compared yet";
    if (!rs.calibration.empty())
        r.accuracy += " (with the catalog's figures, not this calibration)";
    r.announced = announcedFigures(rs);
    r.framework = rs.framework;
    // In steady state the prefetch queue hides the data stage while it keeps up; when it does not, every
    // step waits for its batch: step = max(train, data).
    if (step.data_stage)
        r.data_stage = step.data_stage;
    else if (rs.data)
        r.data_stage = dataStageTimes(*rs.data, w.global_batch);
    const DataStageTimes* data = r.data_stage ? &*r.data_stage : nullptr;
    // An evaluation on the training devices pauses the training (the data stage keeps preparing batches).
    if (rs.eval)
        r.eval = evalTimes(*rs.eval, w);
    const double evalPause = r.eval ? r.eval->per_step_s : 0.0;
    const double paced = std::max(step.step_time_s, data ? data->stage_s() : 0.0);
    r.step_time_s = paced + evalPause;
    r.breakdown = step.breakdown;
    r.breakdown.data_wait_s = paced - step.step_time_s;
    r.breakdown.eval_s = evalPause;
    r.bottleneck = findBottleneck(rs, step.step_time_s, data);
    const double tokensPerStep = static_cast<double>(w.global_batch) * static_cast<double>(w.model.seq_len);
    r.tokens_per_s = tokensPerStep / r.step_time_s;
    r.steps = w.tokens_to_train / tokensPerStep;
    r.time_to_train_s = r.steps * r.step_time_s;
    if (rs.reliability) {
        r.whole_run = wholeRun(*rs.reliability, w.reliability, r.time_to_train_s, r.step_time_s);
        r.time_to_train_s = r.whole_run->p50_s;
    }
    r.model_flops_per_step = stepFlops(w).model();
    const double peak = rs.device().peakFlops(w.precision).value_or(0.0);
    r.achieved_tflops_per_device =
        r.model_flops_per_step / r.step_time_s / static_cast<double>(r.devices) / 1e12;
    r.mfu = peak > 0 ? r.achieved_tflops_per_device * 1e12 / peak : 0.0;
    r.cost_mode = toString(rs.scenario.costs.mode);
    if (rs.scenario.costs.mode == CostMode::Rent)
        r.provider = rs.scenario.costs.provider;
    for (const auto& offload : rs.offload) {
        r.offload.push_back(offloadLoad(offload, w));
        r.offload.back().simulated =
            (step.expert_transfers_simulated && offload.stage.target == OffloadTarget::Experts) ||
            (step.optimizer_transfers_simulated && offload.stage.target == OffloadTarget::Optimizer);
    }
    addPools(rs, step, data, r);
    r.site_power = sitePower(rs);
    r.memory = rs.memory;
    r.memory_per_device_GB = rs.memory.total();
    r.compute_split = step.compute_split;
    r.simulated_activities = step.simulated_activities;
    r.topology = rs.topology;
    // Power from the timeline as simulated; the reported timeline then keeps the size bound.
    r.power = powerTrace(rs, step.timeline);
    r.timeline = step.timeline;
    capTimeline(r.timeline);
    return r;
}

std::string unphysicalQuantity(const RunResult& r) {
    if (r.whole_run)
        if (std::string why = unphysicalWholeRun(*r.whole_run); !why.empty())
            return why;
    const std::pair<const char*, double> quantities[] = {
        {"step_time_s", r.step_time_s},
        {"tokens_per_s", r.tokens_per_s},
        {"steps", r.steps},
        {"time_to_train_s", r.time_to_train_s},
        {"energy_kWh", r.energy_kWh},
        {"average_power_kW", r.average_power_kW},
        {"it_power_kW", r.it_power_kW},
        {"cost_usd", r.cost_usd},
        {"memory_per_device_GB", r.memory_per_device_GB},
        {"mfu", r.mfu},
    };
    for (const auto& [name, value] : quantities) {
        if (!std::isfinite(value))
            return std::string(name) + " is " + (std::isnan(value) ? "not a number" : "infinite");
        if (value < 0.0)
            return std::string(name) + " is negative (" + formatNumber(value) + ")";
    }
    if (r.serving)
        return unphysicalServingQuantity(*r.serving);
    return {};
}

namespace {

// {"mode", "hardware", "electricity"[, "provider"]}
Json costBreakdownToJson(const RunResult& r) {
    Json j{{"mode", r.cost_mode}, {"hardware", r.cost_hardware_usd}, {"electricity", r.cost_electricity_usd}};
    if (!r.provider.empty())
        j["provider"] = r.provider;
    return j;
}

Json poolsToJson(const std::vector<PoolResult>& list) {
    Json pools = Json::array();
    for (const auto& pool : list) {
        Json j{{"name", pool.name},        {"device", pool.device},           {"count", pool.count},
               {"stages", pool.stages},    {"utilisation", pool.utilisation}, {"energy_kWh", pool.energy_kWh},
               {"cost_usd", pool.cost_usd}};
        if (pool.power_limit_W) {
            j["power_limit_W"] = *pool.power_limit_W;
            j["clock_fraction"] = pool.clock_fraction;
        }
        pools.push_back(std::move(j));
    }
    return pools;
}

// A serving workload's result: what it shares with a training result, and the serving.
// What produced the result: the scenario, its devices, the fidelity, calibration and accuracy.
void putProvenance(Json& j, const RunResult& r) {
    j["scenario"] = r.scenario;
    j["device"] = r.device;
    j["devices"] = r.devices;
    j["fidelity"] = r.fidelity;
    j["calibration"] = r.calibration;
    j["accuracy"] = r.accuracy;
    if (!r.announced.empty())
        j["announced"] = r.announced;
    if (!r.framework.empty())
        j["framework"] = r.framework;
}

Json servingRunToJson(const RunResult& r) {
    Json j;
    j["kind"] = r.kind;
    putProvenance(j, r);
    j["energy_kWh"] = r.energy_kWh;
    j["average_power_kW"] = r.average_power_kW;
    j["it_power_kW"] = r.it_power_kW;
    j["cost_usd"] = r.cost_usd;
    j["cost_breakdown_usd"] = costBreakdownToJson(r);
    j["pools"] = poolsToJson(r.pools);
    if (r.serving)
        j["serving"] = servingToJson(*r.serving);
    return j;
}

} // namespace

void addPoolCost(RunResult& r, PoolResult pool, const ResolvedPool& rp, const Costs& costs, double hours) {
    const double count = static_cast<double>(rp.pool.count);
    double hardware = 0.0, electricity = 0.0;
    if (costs.mode == CostMode::Rent) {
        // Rented capacity: power and cooling are in the hourly price.
        hardware = rp.rent_usd_per_device_hour * count * hours;
    } else {
        // Owned capacity: straight-line depreciation over the amortisation period, plus electricity.
        hardware = rp.buy_usd_per_device * count * hours / (costs.amortisation_years * 8766.0);
        electricity = pool.energy_kWh * costs.electricity_usd_per_kWh;
    }
    pool.cost_usd = hardware + electricity;
    r.cost_hardware_usd += hardware;
    r.cost_electricity_usd += electricity;
    r.energy_kWh += pool.energy_kWh;
    r.pools.push_back(std::move(pool));
}

Json resultToJson(const RunResult& r) {
    if (r.kind == "serve")
        return servingRunToJson(r);
    Json j;
    putProvenance(j, r);
    j["step_time_s"] = r.step_time_s;
    j["tokens_per_s"] = r.tokens_per_s;
    j["mfu"] = r.mfu;
    j["achieved_tflops_per_device"] = r.achieved_tflops_per_device;
    j["model_flops_per_step"] = r.model_flops_per_step;
    j["steps"] = r.steps;
    j["time_to_train_s"] = r.time_to_train_s;
    j["time_to_train_days"] = r.time_to_train_s / 86400.0;
    if (r.whole_run)
        putWholeRun(j, *r.whole_run);
    if (r.site_power)
        j["site_power"] = Json{{"cap_MW", r.site_power->cap_MW},
                               {"peak_MW", r.site_power->peak_MW},
                               {"fits", r.site_power->fits},
                               {"devices_that_fit", r.site_power->devices_that_fit}};
    j["energy_kWh"] = r.energy_kWh;
    j["average_power_kW"] = r.average_power_kW;
    j["it_power_kW"] = r.it_power_kW;
    j["cost_usd"] = r.cost_usd;
    j["cost_breakdown_usd"] = costBreakdownToJson(r);
    j["memory_per_device_GB"] = r.memory_per_device_GB;
    j["memory_breakdown_GB"] =
        Json{{"weights", r.memory.weights_GB},     {"gradients", r.memory.gradients_GB},
             {"optimizer", r.memory.optimizer_GB}, {"activations", r.memory.activations_GB},
             {"buffers", r.memory.buffers_GB},     {"stage", r.memory.stage}};
    if (r.memory.off_chip_GB > 0.0)
        j["memory_breakdown_GB"]["off_chip"] = r.memory.off_chip_GB;
    j["breakdown_s"] = Json{{"compute", r.breakdown.compute_s},
                            {"exposed_communication", r.breakdown.exposed_communication_s},
                            {"pipeline_bubble", r.breakdown.pipeline_bubble_s}};
    const auto& cs = r.compute_split;
    j["compute_split_s"] = Json{{"gemm", cs.gemm_s},
                                {"attention", cs.attention_s},
                                {"memory_bound", cs.memory_bound_s},
                                {"optimizer", cs.optimizer_s},
                                {"stage", cs.stage}};
    if (cs.offload_wait_s > 0.0) // omitted without activation offloading or offloaded experts
        j["compute_split_s"]["offload_wait"] = cs.offload_wait_s;
    if (r.breakdown.data_wait_s > 0.0) // omitted while the data stage keeps up
        j["breakdown_s"]["data_wait"] = r.breakdown.data_wait_s;
    if (r.breakdown.eval_s > 0.0) // omitted without evaluation on the training devices
        j["breakdown_s"]["eval"] = r.breakdown.eval_s;
    if (r.eval)
        j["eval_s"] = Json{{"forward", r.eval->forward_s},
                           {"weights_copy", r.eval->weights_s},
                           {"per_step", r.eval->per_step_s},
                           {"busy_per_step", r.eval->busy_per_step_s}};
    j["pools"] = poolsToJson(r.pools);
    j["bottleneck"] = Json{{"stage", r.bottleneck.stage},
                           {"pool", r.bottleneck.pool},
                           {"step_time_without_s", r.bottleneck.step_time_without_s}};
    if (!r.bottleneck.detail.empty())
        j["bottleneck"]["detail"] = r.bottleneck.detail;
    if (r.data_stage)
        j["data_stage_s"] = Json{{"read", r.data_stage->read_s},
                                 {"preprocess", r.data_stage->preprocess_s},
                                 {"loader_bound", r.data_stage->loader_bound},
                                 {"deliver", r.data_stage->deliver_s},
                                 {"limit", r.data_stage->limit()},
                                 {"samples_per_batch", r.data_stage->samples},
                                 {"delivered_bytes_per_batch", r.data_stage->delivered_bytes},
                                 {"simulated", r.data_stage->simulated},
                                 {"span", r.data_stage->span_s}};
    if (!r.offload.empty()) {
        Json offload = Json::array();
        for (const auto& o : r.offload)
            offload.push_back(Json{{"target", o.target},
                                   {"pool", o.pool},
                                   {"link", o.link},
                                   {"link_GBps", o.link_GBps},
                                   {"bytes_per_step", o.bytes_per_step},
                                   {"busy_s", o.busy_s},
                                   {"simulated", o.simulated}});
        j["offload"] = offload;
    }
    j["simulated_activities"] = r.simulated_activities;
    const auto& t = r.topology;
    j["topology"] = Json{{"kind", t.kind},
                         {"scale_up", t.scale_up},
                         {"tiers", t.tiers},
                         {"bisection_GBps", t.bisection_GBps},
                         {"diameter_hops", t.diameter_hops},
                         {"switches", t.switches},
                         {"scale_up_switches", t.scale_up_switches},
                         {"nics", t.nics},
                         {"cables", t.cables},
                         {"scale_up_links", t.scale_up_links}};
    if (!r.timeline.empty())
        j["timeline"] = timelineToJson(r.timeline);
    if (!r.power.empty())
        j["power_trace"] = powerTraceToJson(r.power);
    if (r.serving) {
        j["serving"] = servingToJson(*r.serving);
        // Train here, serve there: both, the serving over its horizon (derived; not read back).
        if (const auto& s = *r.serving; s.horizon_months > 0.0)
            j["train_and_serve"] = Json{{"months_of_serving", s.horizon_months},
                                        {"training_cost_usd", r.cost_usd},
                                        {"serving_cost_usd", s.horizon_serving_usd},
                                        {"cost_usd", r.cost_usd + s.horizon_serving_usd},
                                        {"energy_MWh", r.energy_kWh / 1e3 + s.horizon_serving_MWh}};
    }
    return j;
}

namespace {

// Results written before pools were reported have none: empty, not an error.
void readPoolsAndBottleneck(JsonReader& rd, const Json& j, const std::string& p, RunResult& r) {
    if (auto it = j.find("pools"); it != j.end() && it->is_array()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& o = (*it)[i];
            const std::string here = JsonReader::index(p + ".pools", i);
            if (!rd.expectObject(o, here))
                continue;
            PoolResult pool;
            pool.name = rd.text(o, here, "name").value_or("");
            pool.device = rd.text(o, here, "device").value_or("");
            pool.count = rd.integer(o, here, "count", 0).value_or(0);
            if (auto stages = o.find("stages"); stages != o.end() && stages->is_array())
                for (const auto& stage : *stages)
                    if (stage.is_string())
                        pool.stages.push_back(stage.get<std::string>());
            pool.utilisation = rd.number(o, here, "utilisation", false).value_or(0.0);
            pool.energy_kWh = rd.number(o, here, "energy_kWh", false).value_or(0.0);
            pool.cost_usd = rd.number(o, here, "cost_usd", false).value_or(0.0);
            pool.power_limit_W = rd.number(o, here, "power_limit_W", true, false);
            pool.clock_fraction = rd.number(o, here, "clock_fraction", true, false).value_or(1.0);
            r.pools.push_back(std::move(pool));
        }
    }
    if (auto it = j.find("bottleneck"); it != j.end() && rd.expectObject(*it, p + ".bottleneck")) {
        const std::string bp = p + ".bottleneck";
        r.bottleneck.stage = rd.text(*it, bp, "stage").value_or("");
        r.bottleneck.pool = rd.text(*it, bp, "pool").value_or("");
        r.bottleneck.detail = rd.text(*it, bp, "detail", false).value_or("");
        r.bottleneck.step_time_without_s = rd.number(*it, bp, "step_time_without_s", false).value_or(0.0);
    }
    if (auto it = j.find("data_stage_s"); it != j.end() && rd.expectObject(*it, p + ".data_stage_s")) {
        const std::string dp = p + ".data_stage_s";
        DataStageTimes t;
        t.read_s = rd.number(*it, dp, "read", false).value_or(0.0);
        t.preprocess_s = rd.number(*it, dp, "preprocess", false).value_or(0.0);
        t.loader_bound = rd.boolean(*it, dp, "loader_bound", false).value_or(false); // absent before: cores
        t.deliver_s = rd.number(*it, dp, "deliver", false).value_or(0.0);
        t.samples = rd.number(*it, dp, "samples_per_batch", false).value_or(0.0); // absent before: 0
        t.delivered_bytes = rd.number(*it, dp, "delivered_bytes_per_batch", false).value_or(0.0);
        t.simulated = rd.boolean(*it, dp, "simulated", false).value_or(false); // absent before: closed form
        t.span_s = rd.number(*it, dp, "span", false, false).value_or(0.0);     // absent before: 0
        r.data_stage = t;
    }
    if (auto it = j.find("eval_s"); it != j.end() && rd.expectObject(*it, p + ".eval_s")) {
        const std::string ep = p + ".eval_s";
        EvalTimes t;
        t.forward_s = rd.number(*it, ep, "forward", false).value_or(0.0);
        t.weights_s = rd.number(*it, ep, "weights_copy", false).value_or(0.0);
        t.per_step_s = rd.number(*it, ep, "per_step", false).value_or(0.0);
        t.busy_per_step_s = rd.number(*it, ep, "busy_per_step", false).value_or(0.0);
        r.eval = t;
    }
    if (auto it = j.find("offload"); it != j.end() && it->is_array()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& o = (*it)[i];
            const std::string here = JsonReader::index(p + ".offload", i);
            if (!rd.expectObject(o, here))
                continue;
            OffloadLoad load;
            load.target = rd.text(o, here, "target").value_or("");
            load.pool = rd.text(o, here, "pool").value_or("");
            load.link = rd.text(o, here, "link", false).value_or("");
            load.link_GBps = rd.number(o, here, "link_GBps", false).value_or(0.0);
            load.bytes_per_step = rd.number(o, here, "bytes_per_step", false).value_or(0.0);
            load.busy_s = rd.number(o, here, "busy_s", false).value_or(0.0);
            load.simulated = rd.boolean(o, here, "simulated", false).value_or(false); // absent before: no
            r.offload.push_back(std::move(load));
        }
    }
}

} // namespace

std::optional<RunResult> resultFromJson(const Json& j, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader rd(errors);
    if (!rd.expectObject(j, "result"))
        return std::nullopt;
    RunResult r;
    const std::string p = "result";
    r.kind = rd.text(j, p, "kind", false).value_or("train"); // absent from training results
    r.scenario = rd.text(j, p, "scenario").value_or("");
    r.device = rd.text(j, p, "device").value_or("");
    r.devices = rd.integer(j, p, "devices").value_or(0);
    r.fidelity = rd.text(j, p, "fidelity").value_or("");
    r.calibration = rd.text(j, p, "calibration").value_or("");
    r.accuracy = rd.text(j, p, "accuracy", false).value_or(""); // absent from older results
    r.announced = rd.text(j, p, "announced", false).value_or("");
    r.framework = rd.text(j, p, "framework", false).value_or("");
    auto num = [&](const Json& o, const std::string& path, const char* key) {
        return rd.number(o, path, key, false).value_or(0.0);
    };
    if (r.kind != "serve") { // a serving result has no step (its figures are in "serving")
        r.step_time_s = num(j, p, "step_time_s");
        r.tokens_per_s = num(j, p, "tokens_per_s");
        r.mfu = num(j, p, "mfu");
        r.achieved_tflops_per_device = num(j, p, "achieved_tflops_per_device");
        r.model_flops_per_step = num(j, p, "model_flops_per_step");
        r.steps = num(j, p, "steps");
        r.time_to_train_s = num(j, p, "time_to_train_s");
        r.memory_per_device_GB = num(j, p, "memory_per_device_GB");
        r.simulated_activities = rd.integer(j, p, "simulated_activities", 0).value_or(0);
    }
    r.energy_kWh = num(j, p, "energy_kWh");
    r.average_power_kW = num(j, p, "average_power_kW");
    r.it_power_kW = num(j, p, "it_power_kW");
    r.cost_usd = num(j, p, "cost_usd");
    if (auto it = j.find("cost_breakdown_usd");
        it != j.end() && rd.expectObject(*it, p + ".cost_breakdown_usd")) {
        r.cost_mode = rd.text(*it, p + ".cost_breakdown_usd", "mode").value_or("");
        r.provider = rd.text(*it, p + ".cost_breakdown_usd", "provider", false).value_or("");
        r.cost_hardware_usd = num(*it, p + ".cost_breakdown_usd", "hardware");
        r.cost_electricity_usd = num(*it, p + ".cost_breakdown_usd", "electricity");
    }
    if (auto it = j.find("memory_breakdown_GB");
        it != j.end() && rd.expectObject(*it, p + ".memory_breakdown_GB")) {
        const std::string mp = p + ".memory_breakdown_GB";
        r.memory.weights_GB = num(*it, mp, "weights");
        r.memory.gradients_GB = num(*it, mp, "gradients");
        r.memory.optimizer_GB = num(*it, mp, "optimizer");
        r.memory.activations_GB = num(*it, mp, "activations");
        r.memory.buffers_GB = num(*it, mp, "buffers");
        r.memory.stage = rd.integer(*it, mp, "stage", 0).value_or(0);
        if (it->contains("off_chip"))
            r.memory.off_chip_GB = num(*it, mp, "off_chip");
    }
    if (auto it = j.find("serving"); it != j.end())
        r.serving = servingFromJson(*it, errors);
    if (r.kind == "serve") {
        readPoolsAndBottleneck(rd, j, p, r);
        if (!r.serving)
            rd.error(p + ".serving", "missing required field of a serving result");
        return errors.size() == before ? std::optional<RunResult>(std::move(r)) : std::nullopt;
    }
    if (auto it = j.find("breakdown_s"); it == j.end()) {
        rd.error(p + ".breakdown_s", "missing required field");
    } else if (rd.expectObject(*it, p + ".breakdown_s")) {
        r.breakdown.compute_s = num(*it, p + ".breakdown_s", "compute");
        r.breakdown.exposed_communication_s = num(*it, p + ".breakdown_s", "exposed_communication");
        r.breakdown.pipeline_bubble_s = num(*it, p + ".breakdown_s", "pipeline_bubble");
        r.breakdown.data_wait_s = rd.number(*it, p + ".breakdown_s", "data_wait", false, false).value_or(0.0);
        r.breakdown.eval_s = rd.number(*it, p + ".breakdown_s", "eval", false, false).value_or(0.0);
    }
    readPoolsAndBottleneck(rd, j, p, r);
    // Results written before the compute split existed have none: zeros, not an error.
    if (auto it = j.find("compute_split_s"); it != j.end() && rd.expectObject(*it, p + ".compute_split_s")) {
        const std::string cp = p + ".compute_split_s";
        auto& cs = r.compute_split;
        cs.gemm_s = num(*it, cp, "gemm");
        cs.attention_s = num(*it, cp, "attention");
        cs.memory_bound_s = num(*it, cp, "memory_bound");
        cs.optimizer_s = num(*it, cp, "optimizer");
        cs.offload_wait_s = rd.number(*it, cp, "offload_wait", false, false).value_or(0.0); // absent: none
        cs.stage = rd.integer(*it, cp, "stage", 0).value_or(0);
    }
    if (auto it = j.find("topology"); it != j.end() && rd.expectObject(*it, p + ".topology")) {
        const std::string tp = p + ".topology";
        auto& t = r.topology;
        t.kind = rd.text(*it, tp, "kind").value_or("");
        t.scale_up = rd.text(*it, tp, "scale_up").value_or("");
        t.tiers = rd.integer(*it, tp, "tiers", 0).value_or(0);
        t.bisection_GBps = num(*it, tp, "bisection_GBps");
        t.diameter_hops = rd.integer(*it, tp, "diameter_hops", 0).value_or(0);
        t.switches = rd.integer(*it, tp, "switches", 0).value_or(0);
        t.scale_up_switches = rd.integer(*it, tp, "scale_up_switches", 0).value_or(0);
        t.nics = rd.integer(*it, tp, "nics", 0).value_or(0);
        t.cables = rd.integer(*it, tp, "cables", 0).value_or(0);
        t.scale_up_links = rd.integer(*it, tp, "scale_up_links", 0).value_or(0);
    }
    // Results written before timelines existed have neither: empty, not an error.
    if (auto it = j.find("timeline"); it != j.end())
        if (auto t = timelineFromJson(*it, p + ".timeline", errors))
            r.timeline = std::move(*t);
    if (auto it = j.find("power_trace"); it != j.end())
        if (auto t = powerTraceFromJson(*it, p + ".power_trace", errors))
            r.power = std::move(*t);
    r.whole_run = wholeRunFromJson(j, rd);
    if (auto it = j.find("site_power"); it != j.end() && rd.expectObject(*it, p + ".site_power")) {
        const std::string sp = p + ".site_power";
        r.site_power = SitePower{num(*it, sp, "cap_MW"), num(*it, sp, "peak_MW"),
                                 rd.boolean(*it, sp, "fits").value_or(true),
                                 rd.integer(*it, sp, "devices_that_fit", 0).value_or(0)};
    }
    if (errors.size() != before)
        return std::nullopt;
    return r;
}

} // namespace choreo::models
