#include "models/servingresult.h"

#include "models/result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace choreo::models {

namespace {

constexpr double kHoursPerMonth = 8766.0 / 12.0;

Json percentilesToJson(const Percentiles& p) {
    return Json{{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
}

Percentiles percentilesFromJson(JsonReader& r, const Json& j, const std::string& path, const char* key) {
    Percentiles p;
    auto it = j.find(key);
    const std::string here = JsonReader::join(path, key);
    if (it == j.end() || !r.expectObject(*it, here))
        return p;
    p.mean = r.number(*it, here, "mean", false).value_or(0);
    p.p50 = r.number(*it, here, "p50", false).value_or(0);
    p.p90 = r.number(*it, here, "p90", false).value_or(0);
    p.p99 = r.number(*it, here, "p99", false).value_or(0);
    return p;
}

// The hourly price of the devices the replicas hold, in each cost mode (0 where the pool has no price).
struct HourlyPrice {
    double rent = 0, buy = 0;
    bool rentKnown = true, buyKnown = true;
};

HourlyPrice hourlyPrice(const ResolvedScenario& rs, const ServingMeasurement& m) {
    HourlyPrice price;
    for (const auto& load : m.loads) {
        const ResolvedPool& pool = rs.pools[load.pool];
        const double devices = static_cast<double>(load.devices);
        price.rent += pool.rent_usd_per_device_hour * devices;
        price.buy += pool.buy_usd_per_device * devices / (rs.scenario.costs.amortisation_years * 8766.0);
        price.rentKnown = price.rentKnown && pool.rent_usd_per_device_hour > 0.0;
        price.buyKnown = price.buyKnown && pool.buy_usd_per_device > 0.0;
    }
    return price;
}

} // namespace

Percentiles percentilesOf(std::vector<double> values) {
    Percentiles p;
    if (values.empty())
        return p;
    std::sort(values.begin(), values.end());
    const auto rank = [&](double q) {
        const auto n = static_cast<double>(values.size());
        const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n))) - 1;
        return values[std::min(index, values.size() - 1)];
    };
    double sum = 0.0;
    for (double v : values)
        sum += v;
    p.mean = sum / static_cast<double>(values.size());
    p.p50 = rank(0.50);
    p.p90 = rank(0.90);
    p.p99 = rank(0.99);
    return p;
}

ServingResult finishServing(const ResolvedScenario& rs, const ServingMeasurement& m) {
    ServingResult r;
    r.stream = m;
    const ResolvedServing& s = *rs.serving;
    const auto& costs = rs.scenario.costs;
    const double span = m.span_s > 0.0 ? m.span_s : 0.0;
    if (span > 0.0) {
        r.output_tokens_per_s = m.output_tokens / span;
        r.requests_per_s = static_cast<double>(m.completed) / span;
        r.goodput_rps = static_cast<double>(m.completed) * m.within_slo_fraction / span;
    }
    double itEnergyJ = 0.0;
    for (const auto& load : m.loads) {
        r.devices += load.devices;
        itEnergyJ += load.it_energy_J;
    }
    if (span > 0.0)
        r.it_power_kW = itEnergyJ / span / 1e3;
    r.average_power_kW = r.it_power_kW * costs.pue;
    if (m.output_tokens > 0.0)
        r.joules_per_token = itEnergyJ * costs.pue / m.output_tokens;
    const HourlyPrice price = hourlyPrice(rs, m);
    const double electricityPerHour = r.average_power_kW * costs.electricity_usd_per_kWh;
    r.usd_per_hour = costs.mode == CostMode::Rent ? price.rent : price.buy + electricityPerHour;
    const double tokensPerHour = r.output_tokens_per_s * 3600.0;
    if (tokensPerHour > 0.0) {
        r.usd_per_million_tokens = r.usd_per_hour / tokensPerHour * 1e6;
        if (price.rentKnown)
            r.usd_per_million_tokens_rent = price.rent / tokensPerHour * 1e6;
        if (price.buyKnown)
            r.usd_per_million_tokens_buy = (price.buy + electricityPerHour) / tokensPerHour * 1e6;
    }
    r.weights_GB_per_device = s.serve.weights_GB_per_device;
    r.kv_GB_per_device = s.serve.kv_GB_per_device;
    r.engine = s.engine->id;
    r.weights = toString(s.weights);
    r.kv_cache = toString(s.kv_cache);
    r.target_rate_rps = s.stage.target_rate_per_s;
    if (rs.trains()) {
        r.horizon_months = s.stage.horizon_months;
        const double hours = r.horizon_months * kHoursPerMonth;
        r.horizon_serving_usd = r.usd_per_hour * hours;
        r.horizon_serving_MWh = r.average_power_kW * hours / 1e3;
    }
    return r;
}

std::string unphysicalServingQuantity(const ServingResult& r) {
    const std::pair<const char*, double> quantities[] = {{"output_tokens_per_s", r.output_tokens_per_s},
                                                         {"requests_per_s", r.requests_per_s},
                                                         {"ttft_p99_s", r.stream.ttft_s.p99},
                                                         {"tpot_p99_s", r.stream.tpot_s.p99},
                                                         {"e2e_p99_s", r.stream.e2e_s.p99},
                                                         {"usd_per_million_tokens", r.usd_per_million_tokens},
                                                         {"joules_per_token", r.joules_per_token},
                                                         {"average_power_kW", r.average_power_kW},
                                                         {"span_s", r.stream.span_s}};
    for (const auto& [name, value] : quantities)
        if (!std::isfinite(value) || value < 0.0)
            return std::string(name) + " is " + formatNumber(value);
    if (r.stream.completed == 0)
        return "no request completed";
    return {};
}

Json measurementToJson(const ServingMeasurement& m) {
    Json loads = Json::array();
    for (const auto& l : m.loads)
        loads.push_back({{"role", l.role},
                         {"pool", l.pool},
                         {"replicas", l.replicas},
                         {"devices", l.devices},
                         {"busy_fraction", l.busy_fraction},
                         {"it_energy_J", l.it_energy_J},
                         {"iterations", l.iterations},
                         {"mean_batch", l.mean_batch},
                         {"kv_tokens_per_replica", l.kv_tokens_per_replica},
                         {"kv_peak_fraction", l.kv_peak_fraction}});
    return Json{{"requests", m.requests},
                {"completed", m.completed},
                {"rejected", m.rejected},
                {"preemptions", m.preemptions},
                {"span_s", m.span_s},
                {"arrival_span_s", m.arrival_span_s},
                {"final_request_done_s", m.final_request_done_s},
                {"input_tokens", m.input_tokens},
                {"output_tokens", m.output_tokens},
                {"ttft_s", percentilesToJson(m.ttft_s)},
                {"tpot_s", percentilesToJson(m.tpot_s)},
                {"e2e_s", percentilesToJson(m.e2e_s)},
                {"queue_s", percentilesToJson(m.queue_s)},
                {"mean_in_system", m.mean_in_system},
                {"queue_second_quarter_s", m.queue_second_quarter_s},
                {"queue_last_quarter_s", m.queue_last_quarter_s},
                {"within_slo_fraction", m.within_slo_fraction},
                {"kv_transferred_GB", m.kv_transferred_GB},
                {"kv_transfer_s", percentilesToJson(m.kv_transfer_s)},
                {"replicas", loads},
                {"fidelity", m.fidelity},
                {"simulated_activities", m.simulated_activities}};
}

std::optional<ServingMeasurement> measurementFromJson(const Json& j, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader r(errors);
    ServingMeasurement m;
    const std::string p = "serving";
    if (!r.expectObject(j, p))
        return std::nullopt;
    m.requests = r.integer(j, p, "requests", 0).value_or(0);
    m.completed = r.integer(j, p, "completed", 0).value_or(0);
    m.rejected = r.integer(j, p, "rejected", 0).value_or(0);
    m.preemptions = r.integer(j, p, "preemptions", 0).value_or(0);
    m.span_s = r.number(j, p, "span_s", false).value_or(0);
    m.arrival_span_s = r.number(j, p, "arrival_span_s", false).value_or(0);
    m.final_request_done_s = r.number(j, p, "final_request_done_s", false).value_or(0);
    m.input_tokens = r.number(j, p, "input_tokens", false).value_or(0);
    m.output_tokens = r.number(j, p, "output_tokens", false).value_or(0);
    m.ttft_s = percentilesFromJson(r, j, p, "ttft_s");
    m.tpot_s = percentilesFromJson(r, j, p, "tpot_s");
    m.e2e_s = percentilesFromJson(r, j, p, "e2e_s");
    m.queue_s = percentilesFromJson(r, j, p, "queue_s");
    m.mean_in_system = r.number(j, p, "mean_in_system", false).value_or(0);
    m.queue_second_quarter_s = r.number(j, p, "queue_second_quarter_s", false, false).value_or(0);
    m.queue_last_quarter_s = r.number(j, p, "queue_last_quarter_s", false, false).value_or(0);
    m.within_slo_fraction = r.number(j, p, "within_slo_fraction", false).value_or(0);
    m.kv_transferred_GB = r.number(j, p, "kv_transferred_GB", false).value_or(0);
    m.kv_transfer_s = percentilesFromJson(r, j, p, "kv_transfer_s");
    m.fidelity = r.text(j, p, "fidelity").value_or("");
    m.simulated_activities = r.integer(j, p, "simulated_activities", 0).value_or(0);
    if (auto it = j.find("replicas"); it != j.end() && it->is_array())
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& o = (*it)[i];
            const std::string here = JsonReader::index(p + ".replicas", i);
            if (!r.expectObject(o, here))
                continue;
            ReplicaLoad l;
            l.role = r.text(o, here, "role").value_or("");
            l.pool = static_cast<std::size_t>(r.integer(o, here, "pool", 0).value_or(0));
            l.replicas = r.integer(o, here, "replicas", 0).value_or(0);
            l.devices = r.integer(o, here, "devices", 0).value_or(0);
            l.busy_fraction = r.number(o, here, "busy_fraction", false).value_or(0);
            l.it_energy_J = r.number(o, here, "it_energy_J", false).value_or(0);
            l.iterations = r.integer(o, here, "iterations", 0).value_or(0);
            l.mean_batch = r.number(o, here, "mean_batch", false).value_or(0);
            l.kv_tokens_per_replica = r.integer(o, here, "kv_tokens_per_replica", 0).value_or(0);
            l.kv_peak_fraction = r.number(o, here, "kv_peak_fraction", false).value_or(0);
            m.loads.push_back(l);
        }
    if (errors.size() != before)
        return std::nullopt;
    return m;
}

namespace {

template <typename T>
Json optionalJson(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json rateSearchToJson(const RateSearch& s) {
    Json curve = Json::array();
    for (const auto& point : s.curve)
        curve.push_back(Json{{"rate_rps", point.rate_rps},
                             {"output_tokens_per_s", point.output_tokens_per_s},
                             {"ttft_s", percentilesToJson(point.ttft_s)},
                             {"tpot_s", percentilesToJson(point.tpot_s)},
                             {"meets_slo", point.meets_slo},
                             {"queue_grows", point.queue_grows}});
    return Json{{"probes", s.probes},
                {"output_tokens_per_s_at_max", s.output_tokens_per_s_at_max},
                {"loadgen_tokens_per_s_at_max", s.loadgen_tokens_per_s_at_max},
                {"ttft_at_max_s", percentilesToJson(s.ttft_at_max_s)},
                {"tpot_at_max_s", percentilesToJson(s.tpot_at_max_s)},
                {"ttft_slo_s", optionalJson(s.ttft_slo_s)},
                {"tpot_slo_s", optionalJson(s.tpot_slo_s)},
                {"curve", curve}};
}

} // namespace

Json servingToJson(const ServingResult& r) {
    const auto& m = r.stream;
    Json j{{"output_tokens_per_s", r.output_tokens_per_s},
           {"requests_per_s", r.requests_per_s},
           {"goodput_rps", r.goodput_rps},
           {"ttft_p50_s", m.ttft_s.p50},
           {"ttft_p90_s", m.ttft_s.p90},
           {"ttft_p99_s", m.ttft_s.p99},
           {"tpot_p50_s", m.tpot_s.p50},
           {"tpot_p90_s", m.tpot_s.p90},
           {"tpot_p99_s", m.tpot_s.p99},
           {"e2e_p50_s", m.e2e_s.p50},
           {"e2e_p90_s", m.e2e_s.p90},
           {"e2e_p99_s", m.e2e_s.p99},
           {"max_rate_within_slo_rps", optionalJson(r.search.max_rate_rps)},
           {"slo_verdict", r.search.verdict},
           {"usd_per_million_tokens", r.usd_per_million_tokens},
           {"usd_per_million_tokens_rent", optionalJson(r.usd_per_million_tokens_rent)},
           {"usd_per_million_tokens_buy", optionalJson(r.usd_per_million_tokens_buy)},
           {"usd_per_hour", r.usd_per_hour},
           {"joules_per_token", r.joules_per_token},
           {"average_power_kW", r.average_power_kW},
           {"it_power_kW", r.it_power_kW},
           {"devices", r.devices},
           {"engine", r.engine},
           {"weights", r.weights},
           {"kv_cache", r.kv_cache},
           {"weights_GB_per_device", r.weights_GB_per_device},
           {"kv_cache_GB_per_device", r.kv_GB_per_device}};
    if (r.target_rate_rps) {
        j["target_rate_rps"] = *r.target_rate_rps;
        j["devices_for_target"] = optionalJson(r.devices_for_target);
        j["replicas_for_target"] = optionalJson(r.replicas_for_target);
    }
    if (r.search.searched)
        j["rate_search"] = rateSearchToJson(r.search);
    if (r.horizon_months > 0.0)
        j["horizon"] = Json{{"months", r.horizon_months},
                            {"serving_cost_usd", r.horizon_serving_usd},
                            {"serving_energy_MWh", r.horizon_serving_MWh}};
    j["stream"] = measurementToJson(m);
    return j;
}

namespace {

std::optional<double> optionalNumber(const Json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

} // namespace

namespace {

// Reads what rateSearchToJson wrote; the SLOs and the curve are absent from older results.
RateSearch rateSearchFromJson(JsonReader& r, const Json& j, const std::string& path) {
    RateSearch s;
    s.searched = true;
    s.probes = static_cast<int>(r.integer(j, path, "probes", 0).value_or(0));
    s.output_tokens_per_s_at_max = r.number(j, path, "output_tokens_per_s_at_max", false).value_or(0.0);
    s.loadgen_tokens_per_s_at_max = r.number(j, path, "loadgen_tokens_per_s_at_max", false).value_or(0.0);
    s.ttft_at_max_s = percentilesFromJson(r, j, path, "ttft_at_max_s");
    s.tpot_at_max_s = percentilesFromJson(r, j, path, "tpot_at_max_s");
    s.ttft_slo_s = optionalNumber(j, "ttft_slo_s");
    s.tpot_slo_s = optionalNumber(j, "tpot_slo_s");
    auto curve = j.find("curve");
    if (curve == j.end() || !curve->is_array())
        return s;
    for (std::size_t i = 0; i < curve->size(); ++i) {
        const std::string pointPath = path + ".curve[" + std::to_string(i) + "]";
        const Json& point = (*curve)[i];
        if (!r.expectObject(point, pointPath))
            continue;
        LoadPoint lp;
        lp.rate_rps = r.number(point, pointPath, "rate_rps", false).value_or(0.0);
        lp.output_tokens_per_s = r.number(point, pointPath, "output_tokens_per_s", false).value_or(0.0);
        lp.ttft_s = percentilesFromJson(r, point, pointPath, "ttft_s");
        lp.tpot_s = percentilesFromJson(r, point, pointPath, "tpot_s");
        lp.meets_slo = r.boolean(point, pointPath, "meets_slo", false).value_or(false);
        lp.queue_grows = r.boolean(point, pointPath, "queue_grows", false).value_or(false);
        s.curve.push_back(lp);
    }
    return s;
}

} // namespace

std::optional<ServingResult> servingFromJson(const Json& j, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader r(errors);
    const std::string p = "result.serving";
    if (!r.expectObject(j, p))
        return std::nullopt;
    ServingResult out;
    auto num = [&](const char* key) { return r.number(j, p, key, false).value_or(0.0); };
    out.output_tokens_per_s = num("output_tokens_per_s");
    out.requests_per_s = num("requests_per_s");
    out.goodput_rps = num("goodput_rps");
    out.usd_per_million_tokens = num("usd_per_million_tokens");
    out.usd_per_hour = num("usd_per_hour");
    out.joules_per_token = num("joules_per_token");
    out.average_power_kW = num("average_power_kW");
    out.it_power_kW = num("it_power_kW");
    out.weights_GB_per_device = num("weights_GB_per_device");
    out.kv_GB_per_device = num("kv_cache_GB_per_device");
    out.devices = r.integer(j, p, "devices", 0).value_or(0);
    out.engine = r.text(j, p, "engine").value_or("");
    out.weights = r.text(j, p, "weights").value_or("");
    out.kv_cache = r.text(j, p, "kv_cache").value_or("");
    out.usd_per_million_tokens_rent = optionalNumber(j, "usd_per_million_tokens_rent");
    out.usd_per_million_tokens_buy = optionalNumber(j, "usd_per_million_tokens_buy");
    out.target_rate_rps = optionalNumber(j, "target_rate_rps");
    if (auto v = optionalNumber(j, "devices_for_target"))
        out.devices_for_target = static_cast<std::int64_t>(*v);
    if (auto v = optionalNumber(j, "replicas_for_target"))
        out.replicas_for_target = static_cast<std::int64_t>(*v);
    if (auto it = j.find("rate_search"); it != j.end() && r.expectObject(*it, p + ".rate_search"))
        out.search = rateSearchFromJson(r, *it, p + ".rate_search");
    out.search.max_rate_rps = optionalNumber(j, "max_rate_within_slo_rps");
    out.search.verdict = r.text(j, p, "slo_verdict", false).value_or("");
    if (auto it = j.find("horizon"); it != j.end() && r.expectObject(*it, p + ".horizon")) {
        out.horizon_months = r.number(*it, p + ".horizon", "months", false).value_or(0.0);
        out.horizon_serving_usd = r.number(*it, p + ".horizon", "serving_cost_usd", false).value_or(0.0);
        out.horizon_serving_MWh = r.number(*it, p + ".horizon", "serving_energy_MWh", false).value_or(0.0);
    }
    if (auto it = j.find("stream"); it == j.end())
        r.error(p + ".stream", "missing required field");
    else if (auto m = measurementFromJson(*it, errors))
        out.stream = std::move(*m);
    if (errors.size() != before)
        return std::nullopt;
    return out;
}

const ServingAccuracy& servingAccuracy() {
    static const ServingAccuracy figures{"2026-12-07", 150, 12.1, 111, 5.9, 12, 33.4, 14};
    return figures;
}

namespace {

std::string servingAccuracyText() {
    const ServingAccuracy& a = servingAccuracy();
    char text[400];
    std::snprintf(text, sizeof text,
                  "serving, all devices together (not yet per device): against %d published measurements "
                  "(validate published-inference.csv, flow, %s) median |error| %.1f %% on throughput (n %d), "
                  "%.1f %% on p99 TPOT (%d), %.1f %% on p99 TTFT (%d); worst rows in docs/validation.md",
                  a.measurements, a.date, a.throughput_pct, a.throughput_rows, a.tpot_p99_pct,
                  a.tpot_p99_rows, a.ttft_p99_pct, a.ttft_p99_rows);
    return text;
}

} // namespace

RunResult servingRunResult(const ResolvedScenario& rs, const ServingResult& serving) {
    RunResult r;
    r.accuracy = servingAccuracyText();
    r.announced = announcedFigures(rs);
    r.kind = "serve";
    r.scenario = rs.scenario.name;
    r.device = rs.device().id;
    r.devices = serving.devices;
    r.fidelity = serving.stream.fidelity;
    r.calibration = rs.calibration;
    r.serving = serving;
    const auto& costs = rs.scenario.costs;
    r.cost_mode = toString(costs.mode);
    if (costs.mode == CostMode::Rent)
        r.provider = costs.provider;
    const double span = serving.stream.span_s;
    const double hours = span / 3600.0;
    double itEnergyJ = 0.0;
    for (std::size_t i = 0; i < rs.pools.size(); ++i) {
        const ResolvedPool& rp = rs.pools[i];
        PoolResult pool{rp.pool.name,
                        rp.device->id,
                        rp.pool.count,
                        {},
                        0.0,
                        0.0,
                        0.0,
                        rp.pool.power_limit_W,
                        rp.power_limit ? rp.power_limit->clock_fraction : 1.0};
        double busyDevices = 0.0, usedDevices = 0.0, energyJ = 0.0;
        for (const auto& load : serving.stream.loads)
            if (load.pool == i) {
                pool.stages.push_back(load.role);
                busyDevices += load.busy_fraction * static_cast<double>(load.devices);
                usedDevices += static_cast<double>(load.devices);
                energyJ += load.it_energy_J;
            }
        // Devices no replica uses idle through the stream.
        energyJ +=
            rp.device->idle_W.value * std::max(0.0, static_cast<double>(rp.pool.count) - usedDevices) * span;
        pool.utilisation = rp.pool.count > 0 ? busyDevices / static_cast<double>(rp.pool.count) : 0.0;
        pool.energy_kWh = energyJ * costs.pue / 3.6e6;
        itEnergyJ += energyJ;
        addPoolCost(r, std::move(pool), rp, costs, hours);
    }
    r.cost_usd = r.cost_hardware_usd + r.cost_electricity_usd;
    if (span > 0.0)
        r.it_power_kW = itEnergyJ / span / 1e3;
    r.average_power_kW = r.it_power_kW * costs.pue;
    return r;
}

} // namespace choreo::models
