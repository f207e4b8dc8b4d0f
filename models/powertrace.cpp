#include "models/powertrace.h"

#include <algorithm>
#include <cmath>

namespace choreo::models {

namespace {

double integral(const std::vector<double>& edges, const std::vector<double>& power) {
    double total = 0.0;
    for (std::size_t k = 0; k < power.size() && k + 1 < edges.size(); ++k)
        total += power[k] * (edges[k + 1] - edges[k]);
    return total;
}

} // namespace

double PowerTrace::itEnergy_J() const {
    return integral(time_s, accelerators_W) + integral(time_s, cpus_W) + integral(time_s, network_W);
}

double PowerTrace::facilityEnergy_J() const {
    return itEnergy_J() + integral(time_s, cooling_W);
}

PowerTrace powerTrace(const ResolvedScenario& rs, const StepTimeline& timeline, std::size_t bins) {
    PowerTrace trace;
    const double step = timeline.step_time_s;
    if (timeline.empty() || !(step > 0.0) || bins == 0)
        return trace;
    const double width = step / static_cast<double>(bins);
    trace.time_s.resize(bins + 1);
    for (std::size_t k = 0; k <= bins; ++k)
        trace.time_s[k] = step * static_cast<double>(k) / static_cast<double>(bins);
    trace.accelerators_W.assign(bins, 0.0);
    trace.cpus_W.assign(bins, 0.0);
    trace.network_W.assign(bins, 0.0);
    trace.cooling_W.assign(bins, 0.0);

    // The training pool: per stage, idle power always, TDP - idle while its representative computes.
    const Device& dev = rs.device();
    auto& training = dev.kind == DeviceKind::Cpu ? trace.cpus_W : trace.accelerators_W;
    const double extra_W = dev.tdp_W.value - dev.idle_W.value;
    for (const auto& stage : timeline.stages) {
        const auto devices = static_cast<double>(stage.devices);
        for (double& p : training)
            p += devices * dev.idle_W.value;
        for (const auto& i : stage.intervals) {
            if (!isCompute(i.kind) || i.end_s <= i.start_s)
                continue;
            auto first = static_cast<std::size_t>(std::max(0.0, std::floor(i.start_s / width)));
            const auto last =
                std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, std::floor(i.end_s / width))));
            for (std::size_t k = std::min(first, bins - 1); k <= last; ++k) {
                const double overlap =
                    std::min(i.end_s, trace.time_s[k + 1]) - std::max(i.start_s, trace.time_s[k]);
                if (overlap > 0.0)
                    training[k] += devices * extra_W * overlap / width;
            }
        }
    }
    // Pools that do not train idle through the step (as the simulator charges them).
    std::int64_t cpuDevices = 0;
    std::string cpuPools;
    for (std::size_t i = 0; i < rs.pools.size(); ++i) {
        const auto& p = rs.pools[i];
        const bool cpu = p.device->kind == DeviceKind::Cpu;
        if (cpu) {
            cpuDevices += p.pool.count;
            cpuPools += (cpuPools.empty() ? "" : ", ") + p.pool.name;
        }
        if (i == rs.training_pool)
            continue;
        auto& series = cpu ? trace.cpus_W : trace.accelerators_W;
        for (double& w : series)
            w += p.device->idle_W.value * static_cast<double>(p.pool.count);
    }
    if (cpuDevices == 0)
        trace.cpus_note = "0 W: the scenario has no CPU pool, and the catalog describes no host CPU of the "
                          "accelerator nodes";
    else if (dev.kind == DeviceKind::Cpu)
        trace.cpus_note = std::to_string(cpuDevices) + " CPUs (" + cpuPools +
                          "), the training pool at TDP while "
                          "computing, the rest at idle power";
    else
        trace.cpus_note = std::to_string(cpuDevices) + " CPUs (" + cpuPools +
                          ") at catalog idle power: the simulated step gives them no work";

    const auto& t = rs.topology;
    trace.network_note = "0 W (assumption): the hardware reference gives no sourced power for scale-out "
                         "switches, NVLink switches or NICs; this network's " +
                         std::to_string(t.switches) + " switches, " + std::to_string(t.scale_up_switches) +
                         " scale-up switches and " + std::to_string(t.nics) +
                         " NICs are not counted, so facility power is a lower bound";

    const double overhead = std::max(0.0, rs.scenario.costs.pue - 1.0);
    for (std::size_t k = 0; k < bins; ++k)
        trace.cooling_W[k] = overhead * (trace.accelerators_W[k] + trace.cpus_W[k] + trace.network_W[k]);
    return trace;
}

Json powerTraceToJson(const PowerTrace& t) {
    return Json{{"time_s", t.time_s},
                {"accelerators_W", t.accelerators_W},
                {"cpus_W", t.cpus_W},
                {"network_W", t.network_W},
                {"cooling_W", t.cooling_W},
                {"cpus_note", t.cpus_note},
                {"network_note", t.network_note}};
}

std::optional<PowerTrace> powerTraceFromJson(const Json& j, const std::string& path, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader rd(errors);
    if (!rd.expectObject(j, path))
        return std::nullopt;
    PowerTrace t;
    auto numbers = [&](const char* key, std::vector<double>& out) {
        const std::string p = JsonReader::join(path, key);
        const auto it = j.find(key);
        if (it == j.end()) {
            rd.error(p, "missing required field");
            return;
        }
        if (!it->is_array()) {
            rd.error(p, "expected an array, got " + JsonReader::typeName(*it));
            return;
        }
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& v = (*it)[i];
            if (!v.is_number() || !std::isfinite(v.get<double>())) {
                rd.error(JsonReader::index(p, i), "expected a finite number, got " + JsonReader::typeName(v));
                return;
            }
            out.push_back(v.get<double>());
        }
    };
    numbers("time_s", t.time_s);
    numbers("accelerators_W", t.accelerators_W);
    numbers("cpus_W", t.cpus_W);
    numbers("network_W", t.network_W);
    numbers("cooling_W", t.cooling_W);
    t.cpus_note = rd.text(j, path, "cpus_note", false).value_or("");
    t.network_note = rd.text(j, path, "network_note", false).value_or("");
    if (errors.size() == before) {
        const std::size_t bins = t.time_s.empty() ? 0 : t.time_s.size() - 1;
        for (const auto* s : {&t.accelerators_W, &t.cpus_W, &t.network_W, &t.cooling_W})
            if (s->size() != bins) {
                rd.error(path, "every series needs one value per bin (" + std::to_string(bins) + " bins)");
                break;
            }
        for (std::size_t k = 1; k < t.time_s.size(); ++k)
            if (t.time_s[k] < t.time_s[k - 1]) {
                rd.error(JsonReader::index(JsonReader::join(path, "time_s"), k),
                         "bin edges must not decrease");
                break;
            }
    }
    if (errors.size() != before)
        return std::nullopt;
    return t;
}

} // namespace choreo::models
