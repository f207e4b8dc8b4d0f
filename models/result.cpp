#include "models/result.h"

#include "models/jsonreader.h"
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

ComputeSplit computeSplit(const Workload& w, const std::vector<StageCost>& costs) {
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
        s.optimizer_s += c.optimizer_s;
    }
    return *std::max_element(stages.begin(), stages.end(), [](const ComputeSplit& a, const ComputeSplit& b) {
        return a.total() < b.total();
    });
}

RunResult finishResult(const ResolvedScenario& rs, const StepMeasurement& step) {
    const auto& w = rs.workload();
    const auto& costs = rs.scenario.costs;
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
    r.step_time_s = step.step_time_s;
    const double tokensPerStep = static_cast<double>(w.global_batch) * static_cast<double>(w.model.seq_len);
    r.tokens_per_s = tokensPerStep / step.step_time_s;
    r.steps = w.tokens_to_train / tokensPerStep;
    r.time_to_train_s = r.steps * step.step_time_s;
    r.model_flops_per_step = stepFlops(w).model();
    const double peak = rs.device().peakFlops(w.precision).value_or(0.0);
    r.achieved_tflops_per_device =
        r.model_flops_per_step / step.step_time_s / static_cast<double>(r.devices) / 1e12;
    r.mfu = peak > 0 ? r.achieved_tflops_per_device * 1e12 / peak : 0.0;

    // Energy: the simulated devices of every pool, then the facility overhead (PUE).
    const double itEnergyJ = step.it_energy_per_step_J * r.steps;
    r.it_power_kW = step.it_energy_per_step_J / step.step_time_s / 1e3;
    r.average_power_kW = r.it_power_kW * costs.pue;
    r.energy_kWh = itEnergyJ * costs.pue / 3.6e6;

    double rentPerHour = 0.0, buyTotal = 0.0;
    for (const auto& p : rs.pools) {
        const double rent = costs.rent_usd_per_device_hour.value_or(p.device->rent_usd_per_hour.value);
        const double buy = costs.buy_usd_per_device.value_or(p.device->buy_usd.value);
        rentPerHour += rent * static_cast<double>(p.pool.count);
        buyTotal += buy * static_cast<double>(p.pool.count);
    }
    const double hours = r.time_to_train_s / 3600.0;
    r.cost_mode = toString(costs.mode);
    if (costs.mode == CostMode::Rent) {
        // Rented capacity: power and cooling are in the hourly price.
        r.cost_hardware_usd = rentPerHour * hours;
        r.cost_electricity_usd = 0.0;
    } else {
        // Owned capacity: straight-line depreciation over the amortisation period, plus electricity.
        r.cost_hardware_usd = buyTotal * hours / (costs.amortisation_years * 8766.0);
        r.cost_electricity_usd = r.energy_kWh * costs.electricity_usd_per_kWh;
    }
    r.cost_usd = r.cost_hardware_usd + r.cost_electricity_usd;
    r.memory = rs.memory;
    r.memory_per_device_GB = rs.memory.total();
    r.breakdown = step.breakdown;
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
    return {};
}

Json resultToJson(const RunResult& r) {
    Json j;
    j["scenario"] = r.scenario;
    j["device"] = r.device;
    j["devices"] = r.devices;
    j["fidelity"] = r.fidelity;
    j["calibration"] = r.calibration;
    j["accuracy"] = r.accuracy;
    j["step_time_s"] = r.step_time_s;
    j["tokens_per_s"] = r.tokens_per_s;
    j["mfu"] = r.mfu;
    j["achieved_tflops_per_device"] = r.achieved_tflops_per_device;
    j["model_flops_per_step"] = r.model_flops_per_step;
    j["steps"] = r.steps;
    j["time_to_train_s"] = r.time_to_train_s;
    j["time_to_train_days"] = r.time_to_train_s / 86400.0;
    j["energy_kWh"] = r.energy_kWh;
    j["average_power_kW"] = r.average_power_kW;
    j["it_power_kW"] = r.it_power_kW;
    j["cost_usd"] = r.cost_usd;
    j["cost_breakdown_usd"] = Json{
        {"mode", r.cost_mode}, {"hardware", r.cost_hardware_usd}, {"electricity", r.cost_electricity_usd}};
    j["memory_per_device_GB"] = r.memory_per_device_GB;
    j["memory_breakdown_GB"] =
        Json{{"weights", r.memory.weights_GB},     {"gradients", r.memory.gradients_GB},
             {"optimizer", r.memory.optimizer_GB}, {"activations", r.memory.activations_GB},
             {"buffers", r.memory.buffers_GB},     {"stage", r.memory.stage}};
    j["breakdown_s"] = Json{{"compute", r.breakdown.compute_s},
                            {"exposed_communication", r.breakdown.exposed_communication_s},
                            {"pipeline_bubble", r.breakdown.pipeline_bubble_s}};
    const auto& cs = r.compute_split;
    j["compute_split_s"] = Json{{"gemm", cs.gemm_s},
                                {"attention", cs.attention_s},
                                {"memory_bound", cs.memory_bound_s},
                                {"optimizer", cs.optimizer_s},
                                {"stage", cs.stage}};
    if (cs.offload_wait_s > 0.0) // omitted without activation offloading
        j["compute_split_s"]["offload_wait"] = cs.offload_wait_s;
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
    return j;
}

std::optional<RunResult> resultFromJson(const Json& j, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader rd(errors);
    if (!rd.expectObject(j, "result"))
        return std::nullopt;
    RunResult r;
    const std::string p = "result";
    r.scenario = rd.text(j, p, "scenario").value_or("");
    r.device = rd.text(j, p, "device").value_or("");
    r.devices = rd.integer(j, p, "devices").value_or(0);
    r.fidelity = rd.text(j, p, "fidelity").value_or("");
    r.calibration = rd.text(j, p, "calibration").value_or("");
    r.accuracy = rd.text(j, p, "accuracy", false).value_or(""); // absent from older results
    auto num = [&](const Json& o, const std::string& path, const char* key) {
        return rd.number(o, path, key, false).value_or(0.0);
    };
    r.step_time_s = num(j, p, "step_time_s");
    r.tokens_per_s = num(j, p, "tokens_per_s");
    r.mfu = num(j, p, "mfu");
    r.achieved_tflops_per_device = num(j, p, "achieved_tflops_per_device");
    r.model_flops_per_step = num(j, p, "model_flops_per_step");
    r.steps = num(j, p, "steps");
    r.time_to_train_s = num(j, p, "time_to_train_s");
    r.energy_kWh = num(j, p, "energy_kWh");
    r.average_power_kW = num(j, p, "average_power_kW");
    r.it_power_kW = num(j, p, "it_power_kW");
    r.cost_usd = num(j, p, "cost_usd");
    r.memory_per_device_GB = num(j, p, "memory_per_device_GB");
    r.simulated_activities = rd.integer(j, p, "simulated_activities", 0).value_or(0);
    if (auto it = j.find("cost_breakdown_usd");
        it != j.end() && rd.expectObject(*it, p + ".cost_breakdown_usd")) {
        r.cost_mode = rd.text(*it, p + ".cost_breakdown_usd", "mode").value_or("");
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
    }
    if (auto it = j.find("breakdown_s"); it == j.end()) {
        rd.error(p + ".breakdown_s", "missing required field");
    } else if (rd.expectObject(*it, p + ".breakdown_s")) {
        r.breakdown.compute_s = num(*it, p + ".breakdown_s", "compute");
        r.breakdown.exposed_communication_s = num(*it, p + ".breakdown_s", "exposed_communication");
        r.breakdown.pipeline_bubble_s = num(*it, p + ".breakdown_s", "pipeline_bubble");
    }
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
    if (errors.size() != before)
        return std::nullopt;
    return r;
}

} // namespace choreo::models
