#include "sim/validateserving.h"

#include "models/resolved.h"
#include "sim/isolate.h"
#include "sim/serving.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace choreo::sim {

namespace {

// What a row's metric is read from: one measured stream, or the stream at the highest rate within the SLOs.
struct MeasuredFigures {
    double output_tokens_per_s = 0;
    double requests_per_s = 0;
    models::Percentiles ttft_s, tpot_s;
    std::optional<models::Percentiles> e2e_s; // the rate search keeps none
};

std::optional<double> metricValue(const std::string& metric, const MeasuredFigures& f) {
    if (metric == "output_tokens_per_s_total")
        return f.output_tokens_per_s;
    if (metric == "requests_per_s")
        return f.requests_per_s;
    if (metric == "ttft_ms_mean")
        return f.ttft_s.mean * 1000;
    if (metric == "ttft_ms_p99")
        return f.ttft_s.p99 * 1000;
    if (metric == "tpot_ms_p99")
        return f.tpot_s.p99 * 1000;
    if (metric == "itl_ms_mean")
        return f.tpot_s.mean * 1000;
    if (metric == "request_latency_ms_p99" && f.e2e_s)
        return f.e2e_s->p99 * 1000;
    return std::nullopt;
}

// One replica's stream (offline) or the whole system's (fixed rate), throughput over `replicas`.
MeasuredFigures fromStream(const models::ServingMeasurement& m, double replicas) {
    const double span = m.span_s > 0 ? m.span_s : 1;
    return {m.output_tokens / span * replicas, static_cast<double>(m.completed) / span * replicas, m.ttft_s,
            m.tpot_s, m.e2e_s};
}

// The highest rate within the SLOs, a replica's, served by every replica; its tokens a second as MLPerf
// LoadGen reports a Server run. LoadGen divides the tokens by the time until the query issued last is done,
// and its runs are long (min_query_count 210,624 for DeepSeek-R1: 78 minutes of arrivals, and that query
// done 31 s after it arrived), so that is the rate times the mean output within 1 %. A 600 s probe's last
// request may instead be one of a dataset's longest outputs, whose decode could be half the probe.
MeasuredFigures fromSearch(const models::RateSearch& s, double replicas) {
    return {s.output_tokens_per_s_at_max * replicas, s.max_rate_rps.value_or(0.0) * replicas, s.ttft_at_max_s,
            s.tpot_at_max_s, std::nullopt};
}

// One row, in a child: {"predicted": x, "how": "..."} or {"skipped": "..."}.
std::string simulateRow(const models::ServingCase& c, const models::ResolvedScenario& rs, Fidelity fidelity) {
    const auto replicas = static_cast<double>(c.replicas);
    models::Json out;
    std::optional<double> predicted;
    char how[200];
    if (c.benchmark == models::ServingBenchmark::Slo) {
        SimulationOptions options;
        options.fidelity = fidelity;
        const auto search = searchServingRate(rs, options, 1);
        if (search.max_rate_rps)
            predicted = metricValue(c.metric, fromSearch(search, replicas));
        if (!predicted) {
            out["skipped"] = search.max_rate_rps ? "the search gives no " + c.metric : search.verdict;
            return out.dump();
        }
        std::snprintf(how, sizeof how, "at %.4g requests/s a replica, the highest within the SLOs",
                      *search.max_rate_rps);
    } else {
        const auto m = simulateServing(rs, fidelity);
        predicted = metricValue(
            c.metric, fromStream(m, c.benchmark == models::ServingBenchmark::Rate ? 1.0 : replicas));
        std::snprintf(how, sizeof how, "%lld requests over %.4g s%s", static_cast<long long>(m.completed),
                      m.span_s,
                      c.benchmark == models::ServingBenchmark::Offline ? ", all queued at once" : "");
    }
    out["predicted"] = *predicted;
    out["how"] = how;
    return out.dump();
}

void summarise(ServingValidationReport& report) {
    std::vector<double> all;
    std::map<std::string, std::vector<double>> perMetric;
    for (const auto& row : report.rows) {
        if (!row.simulated) {
            report.summary.skipped++;
            continue;
        }
        all.push_back(std::fabs(row.error_pct));
        perMetric[row.source.metric].push_back(std::fabs(row.error_pct));
    }
    const int skipped = report.summary.skipped;
    report.summary = summariseAbsErrors(all);
    report.summary.skipped = skipped;
    for (auto& [metric, errors] : perMetric)
        report.by_metric[metric] = summariseAbsErrors(errors);
}

models::Json summaryJson(const ValidationSummary& s) {
    return {{"n", s.n},
            {"median_abs_error_pct", s.median_abs_error_pct},
            {"p90_abs_error_pct", s.p90_abs_error_pct},
            {"max_abs_error_pct", s.max_abs_error_pct}};
}

} // namespace

ServingValidationReport validateServingCases(const std::vector<models::ServingCase>& cases,
                                             const models::Catalog& catalog, Fidelity fidelity, int jobs) {
    ServingValidationReport report;
    report.fidelity = toString(fidelity);
    std::vector<std::function<std::string()>> work;
    std::vector<std::size_t> rowOfWork;
    std::vector<models::ResolvedScenario> resolved;
    resolved.reserve(cases.size());
    for (const auto& c : cases) {
        ServingValidationRow row;
        row.source = c;
        if (c.skip) {
            row.skipped = *c.skip;
        } else {
            models::Diagnostics errors;
            auto rs = models::resolveScenario(c.scenario, catalog, errors);
            if (!rs) {
                row.skipped = "invalid for the catalog: " + models::joinDiagnostics(errors);
            } else {
                resolved.push_back(std::move(*rs));
                const models::ResolvedScenario* scenario = &resolved.back();
                const models::ServingCase* source = &c;
                work.emplace_back(
                    [source, scenario, fidelity] { return simulateRow(*source, *scenario, fidelity); });
                rowOfWork.push_back(report.rows.size());
            }
        }
        report.rows.push_back(std::move(row));
    }
    const auto outcomes = runIsolated(work, jobs);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        auto& row = report.rows[rowOfWork[i]];
        if (!outcomes[i].ok) {
            row.skipped = "the simulation failed: " + outcomes[i].output;
            continue;
        }
        const auto out = models::Json::parse(outcomes[i].output);
        if (out.contains("skipped")) {
            row.skipped = out["skipped"].get<std::string>();
            continue;
        }
        row.simulated = true;
        row.predicted = out["predicted"].get<double>();
        row.how = out["how"].get<std::string>();
        row.error_pct = (row.predicted - row.source.measured) / row.source.measured * 100.0;
    }
    summarise(report);
    return report;
}

models::Json servingValidationToJson(const ServingValidationReport& report) {
    models::Json cases = models::Json::array(), skipped = models::Json::array();
    for (const auto& row : report.rows) {
        if (!row.simulated) {
            skipped.push_back(
                {{"id", row.source.id}, {"metric", row.source.metric}, {"reason", row.skipped}});
            continue;
        }
        models::Json c{{"id", row.source.id},
                       {"model", row.source.model},
                       {"accelerator", row.source.accelerator},
                       {"metric", row.source.metric},
                       {"predicted", row.predicted},
                       {"measured", row.source.measured},
                       {"error_pct", row.error_pct},
                       {"how", row.how}};
        if (!row.source.assumption.empty())
            c["assumption"] = row.source.assumption;
        cases.push_back(std::move(c));
    }
    models::Json summary = summaryJson(report.summary);
    summary["skipped"] = report.summary.skipped;
    models::Json byMetric = models::Json::object();
    for (const auto& [metric, s] : report.by_metric)
        byMetric[metric] = summaryJson(s);
    summary["by_metric"] = byMetric;
    return {{"kind", "serving"},
            {"fidelity", report.fidelity},
            {"cases", cases},
            {"skipped", skipped},
            {"summary", summary}};
}

namespace {

std::string summaryLine(const std::string& what, const ValidationSummary& s) {
    char b[200];
    std::snprintf(b, sizeof b, "%-26s n %3d   median |error| %5.1f %%   p90 %5.1f %%   max %6.1f %%\n",
                  what.c_str(), s.n, s.median_abs_error_pct, s.p90_abs_error_pct, s.max_abs_error_pct);
    return b;
}

} // namespace

std::string servingValidationToText(const ServingValidationReport& report) {
    std::ostringstream out;
    char b[400];
    std::snprintf(b, sizeof b, "%-58s %-26s %12s %12s %8s\n", "case", "metric", "predicted", "measured",
                  "error");
    out << b;
    for (const auto& row : report.rows)
        if (row.simulated) {
            std::snprintf(b, sizeof b, "%-58.58s %-26s %12.4g %12.4g %+7.1f%%\n", row.source.id.c_str(),
                          row.source.metric.c_str(), row.predicted, row.source.measured, row.error_pct);
            out << b;
        }
    for (const auto& row : report.rows)
        if (!row.simulated)
            out << "skipped " << row.source.id << " (" << row.source.metric << "): " << row.skipped << "\n";
    out << "\nfidelity " << report.fidelity << ", " << report.summary.skipped << " skipped\n";
    out << summaryLine("all metrics", report.summary);
    for (const auto& [metric, s] : report.by_metric)
        out << summaryLine(metric, s);
    return out.str();
}

std::string servingValidationToMarkdown(const ServingValidationReport& report) {
    std::ostringstream out;
    char b[400];
    out << "| case | metric | predicted | measured | error |\n| --- | --- | ---: | ---: | ---: |\n";
    for (const auto& row : report.rows)
        if (row.simulated) {
            std::snprintf(b, sizeof b, "| %s | %s | %.4g | %.4g | %+.1f %% |\n", row.source.id.c_str(),
                          row.source.metric.c_str(), row.predicted, row.source.measured, row.error_pct);
            out << b;
        }
    out << "\n| metric | n | median abs error | p90 | max |\n| --- | ---: | ---: | ---: | ---: |\n";
    auto line = [&](const std::string& what, const ValidationSummary& s) {
        std::snprintf(b, sizeof b, "| %s | %d | %.1f %% | %.1f %% | %.1f %% |\n", what.c_str(), s.n,
                      s.median_abs_error_pct, s.p90_abs_error_pct, s.max_abs_error_pct);
        out << b;
    };
    line("all", report.summary);
    for (const auto& [metric, s] : report.by_metric)
        line(metric, s);
    out << "\n" << report.summary.skipped << " rows skipped (fidelity " << report.fidelity << ").\n";
    return out.str();
}

} // namespace choreo::sim
