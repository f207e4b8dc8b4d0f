#include "sim/validate.h"

#include "models/resolved.h"
#include "sim/isolate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace choreo::sim {

namespace {

// The median of values sorted ascending (not empty).
double medianOfSorted(const std::vector<double>& sorted) {
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

} // namespace

ValidationReport validateCases(const std::vector<models::ValidationCase>& cases,
                               const models::Catalog& catalog, Fidelity fidelity, int jobs) {
    ValidationReport report;
    report.fidelity = toString(fidelity);
    std::vector<std::function<std::string()>> work;
    std::vector<std::size_t> workRow;
    for (const auto& c : cases) {
        ValidationRow row;
        row.source = c;
        row.assumption = c.assumption;
        if (c.skip) {
            row.skipped = *c.skip;
        } else {
            models::Diagnostics errors;
            auto resolved = models::resolveScenario(c.scenario, catalog, errors, /*checkMemory=*/false);
            // A run that happened fitted in memory: when the row as written (no ZeRO) cannot, its framework
            // sharded the optimizer states over data-parallel ranks, as Megatron's distributed optimizer
            // and NeMo's default do. Simulate that, and say so.
            if (resolved && !resolved->fitsInMemory() && c.scenario.workload.parallel.zero == 0 &&
                c.scenario.workload.parallel.dataParallelGroup() > 1) {
                models::Scenario sharded = c.scenario;
                sharded.workload.parallel.zero = 1;
                models::Diagnostics ignored;
                if (auto alt = models::resolveScenario(sharded, catalog, ignored, /*checkMemory=*/false)) {
                    resolved = std::move(alt);
                    row.assumption +=
                        (row.assumption.empty() ? "" : "; ") + std::string("zero 1, distributed optimizer");
                }
            }
            if (!resolved) {
                row.skipped = "invalid for the catalog: " + models::joinDiagnostics(errors);
            } else {
                workRow.push_back(report.rows.size());
                work.emplace_back([rs = *resolved, fidelity] {
                    SimulationOptions options;
                    options.fidelity = fidelity;
                    const auto m = simulateStep(rs, options);
                    return models::Json{{"step_time_s", m.step_time_s},
                                        {"memory_GB", rs.memory.total()},
                                        {"fits", rs.fitsInMemory()}}
                        .dump();
                });
            }
        }
        report.rows.push_back(std::move(row));
    }
    const auto outcomes = runIsolated(work, jobs);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ValidationRow& row = report.rows[workRow[i]];
        if (!outcomes[i].ok) {
            row.skipped = "simulation failed: " + outcomes[i].output;
            continue;
        }
        try {
            const auto j = models::Json::parse(outcomes[i].output);
            row.predicted_step_time_s = j.at("step_time_s").get<double>();
            row.memory_GB = j.at("memory_GB").get<double>();
            row.fits = j.at("fits").get<bool>();
            row.simulated = true;
            row.error_pct = (row.predicted_step_time_s - row.source.measured_step_time_s) /
                            row.source.measured_step_time_s * 100.0;
        } catch (const std::exception& e) {
            row.skipped = std::string("unreadable simulation output: ") + e.what();
        }
    }
    std::vector<double> errors;
    for (const auto& row : report.rows) {
        if (row.simulated)
            errors.push_back(std::fabs(row.error_pct));
        else
            report.summary.skipped++;
    }
    std::sort(errors.begin(), errors.end());
    report.summary.n = static_cast<int>(errors.size());
    if (!errors.empty()) {
        const std::size_t n = errors.size();
        report.summary.median_abs_error_pct = medianOfSorted(errors);
        const auto p90 = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1;
        report.summary.p90_abs_error_pct = errors[std::min(p90, n - 1)];
        report.summary.max_abs_error_pct = errors.back();
    }
    return report;
}

models::Json validationToJson(const ValidationReport& report, GroupBy by) {
    models::Json cases = models::Json::array();
    models::Json skipped = models::Json::array();
    for (const auto& row : report.rows) {
        const auto& c = row.source;
        if (row.simulated)
            cases.push_back(models::Json{{"id", c.id},
                                         {"model", c.model},
                                         {"accelerator", c.accelerator},
                                         {"devices", c.devices},
                                         {"predicted_step_time_s", row.predicted_step_time_s},
                                         {"measured_step_time_s", c.measured_step_time_s},
                                         {"error_pct", row.error_pct},
                                         {"memory_per_device_GB", row.memory_GB},
                                         {"fits_in_memory", row.fits},
                                         {"assumption", row.assumption}});
        else
            skipped.push_back(models::Json{{"id", c.id}, {"model", c.model}, {"reason", row.skipped}});
    }
    models::Json out{{"fidelity", report.fidelity},
                     {"cases", cases},
                     {"skipped", skipped},
                     {"summary",
                      {{"n", report.summary.n},
                       {"skipped", report.summary.skipped},
                       {"median_abs_error_pct", report.summary.median_abs_error_pct},
                       {"p90_abs_error_pct", report.summary.p90_abs_error_pct},
                       {"max_abs_error_pct", report.summary.max_abs_error_pct}}}};
    if (by != GroupBy::None) {
        models::Json groups = models::Json::array();
        for (const auto& g : groupRows(report, by))
            groups.push_back(models::Json{{"key", g.key},
                                          {"n", g.n},
                                          {"median_abs_error_pct", g.median_abs_error_pct},
                                          {"max_abs_error_pct", g.max_abs_error_pct},
                                          {"mean_error_pct", g.mean_error_pct}});
        out["groups"] = groups;
    }
    return out;
}

std::optional<GroupBy> groupByFromString(const std::string& name) {
    if (name == "source")
        return GroupBy::Source;
    if (name == "accelerator")
        return GroupBy::Accelerator;
    if (name == "model")
        return GroupBy::Model;
    return std::nullopt;
}

std::string groupKey(const ValidationRow& row, GroupBy by) {
    switch (by) {
    case GroupBy::None:
        return "all";
    case GroupBy::Accelerator:
        return row.source.accelerator;
    case GroupBy::Model:
        return row.source.model;
    case GroupBy::Source: {
        // The publication and its table, without asides ("(also ...)") or detail after a colon.
        std::string key = row.source.source;
        if (auto also = key.find(" (also"); also != std::string::npos)
            key.erase(also);
        if (auto colon = key.find(':'); colon != std::string::npos)
            key.erase(colon);
        while (!key.empty() && key.back() == ' ')
            key.pop_back();
        return key;
    }
    }
    return "all";
}

std::vector<ValidationGroup> groupRows(const ValidationReport& report, GroupBy by) {
    std::vector<ValidationGroup> groups;
    std::vector<std::vector<double>> errors;
    for (const auto& row : report.rows) {
        if (!row.simulated)
            continue;
        const std::string key = groupKey(row, by);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.key == key; });
        if (it == groups.end()) {
            groups.push_back({key});
            errors.emplace_back();
            it = groups.end() - 1;
        }
        const auto i = static_cast<std::size_t>(it - groups.begin());
        errors[i].push_back(row.error_pct);
    }
    for (std::size_t i = 0; i < groups.size(); ++i) {
        auto& e = errors[i];
        auto& g = groups[i];
        g.n = static_cast<int>(e.size());
        double sum = 0;
        for (double x : e)
            sum += x;
        g.mean_error_pct = sum / static_cast<double>(e.size());
        std::vector<double> a;
        for (double x : e)
            a.push_back(std::fabs(x));
        std::sort(a.begin(), a.end());
        g.median_abs_error_pct = medianOfSorted(a);
        g.max_abs_error_pct = a.back();
    }
    return groups;
}

namespace {

// What a row's line adds after its error: an assumption made, or the memory model's verdict.
std::string rowNote(const ValidationRow& row, const char* prefix) {
    std::string note;
    if (!row.assumption.empty())
        note += std::string(prefix) + "(assumed " + row.assumption + ")";
    if (!row.fits)
        note += std::string(prefix) + "(memory model: does not fit)";
    return note;
}

} // namespace

std::string validationToText(const ValidationReport& report, GroupBy by) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "%-4s %-34s %-14s %6s %12s %12s %8s\n", "id", "model", "accelerator",
                  "devs", "predicted_s", "measured_s", "error%");
    out += line;
    for (const auto& row : report.rows) {
        const auto& c = row.source;
        if (row.simulated)
            std::snprintf(line, sizeof line, "%-4s %-34.34s %-14s %6lld %12.3f %12.3f %+8.1f%s\n",
                          c.id.c_str(), c.model.c_str(), c.accelerator.c_str(),
                          static_cast<long long>(c.devices), row.predicted_step_time_s,
                          c.measured_step_time_s, row.error_pct, rowNote(row, "  ").c_str());
        else
            std::snprintf(line, sizeof line, "%-4s %-34.34s %-14s %6lld  skipped: %s\n", c.id.c_str(),
                          c.model.c_str(), c.accelerator.c_str(), static_cast<long long>(c.devices),
                          row.skipped.c_str());
        out += line;
    }
    std::snprintf(
        line, sizeof line,
        "\nsummary (%s fidelity): %d simulated, %d skipped; |error| median %.1f%%, p90 %.1f%%, max %.1f%%\n",
        report.fidelity.c_str(), report.summary.n, report.summary.skipped,
        report.summary.median_abs_error_pct, report.summary.p90_abs_error_pct,
        report.summary.max_abs_error_pct);
    out += line;
    if (by != GroupBy::None) {
        out += "\n";
        std::snprintf(line, sizeof line, "%-70s %4s %9s %9s %9s\n", "group", "n", "median|e|", "max|e|",
                      "mean e");
        out += line;
        for (const auto& g : groupRows(report, by)) {
            std::snprintf(line, sizeof line, "%-70.70s %4d %8.1f%% %8.1f%% %+8.1f%%\n", g.key.c_str(), g.n,
                          g.median_abs_error_pct, g.max_abs_error_pct, g.mean_error_pct);
            out += line;
        }
    }
    return out;
}

std::string validationToMarkdown(const ValidationReport& report, GroupBy by) {
    std::string out = "| id | model | accelerator | devices | predicted (s) | measured (s) | error |\n"
                      "| --- | --- | --- | ---: | ---: | ---: | ---: |\n";
    char line[768];
    for (const auto& row : report.rows) {
        const auto& c = row.source;
        if (row.simulated)
            std::snprintf(line, sizeof line, "| %s | %s | %s | %lld | %.3f | %.3f | %+.1f%%%s |\n",
                          c.id.c_str(), c.model.c_str(), c.accelerator.c_str(),
                          static_cast<long long>(c.devices), row.predicted_step_time_s,
                          c.measured_step_time_s, row.error_pct, rowNote(row, " ").c_str());
        else
            std::snprintf(line, sizeof line, "| %s | %s | %s | %lld | skipped | %.3f | %s |\n", c.id.c_str(),
                          c.model.c_str(), c.accelerator.c_str(), static_cast<long long>(c.devices),
                          c.measured_step_time_s, row.skipped.c_str());
        out += line;
    }
    std::snprintf(
        line, sizeof line,
        "\n**Summary (%s fidelity):** %d cases simulated, %d skipped; absolute error median %.1f%%, "
        "p90 %.1f%%, max %.1f%%.\n",
        report.fidelity.c_str(), report.summary.n, report.summary.skipped,
        report.summary.median_abs_error_pct, report.summary.p90_abs_error_pct,
        report.summary.max_abs_error_pct);
    out += line;
    if (by != GroupBy::None) {
        out += "\n| group | cases | median \\|error\\| | max \\|error\\| | mean error |\n"
               "| --- | ---: | ---: | ---: | ---: |\n";
        for (const auto& g : groupRows(report, by)) {
            std::snprintf(line, sizeof line, "| %s | %d | %.1f%% | %.1f%% | %+.1f%% |\n", g.key.c_str(), g.n,
                          g.median_abs_error_pct, g.max_abs_error_pct, g.mean_error_pct);
            out += line;
        }
    }
    return out;
}

} // namespace choreo::sim
