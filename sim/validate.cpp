#include "sim/validate.h"

#include "models/resolved.h"
#include "models/scenarioio.h"
#include "sim/isolate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace choreo::sim {

namespace {

// The median of values sorted ascending (not empty).
double medianOfSorted(const std::vector<double>& sorted) {
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

constexpr const char* kShardedOptimizer = "zero 1, distributed optimizer";

// The value 90 % of `sorted` (ascending, not empty) are at or below, as validate's summary takes it.
double p90OfSorted(const std::vector<double>& sorted) {
    const std::size_t n = sorted.size();
    const auto i = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1;
    return sorted[std::min(i, n - 1)];
}

// The scenario a row is simulated as. A run that happened fitted in memory: when the row as written (no
// ZeRO) cannot, its framework sharded the optimizer states over data-parallel ranks, as Megatron's
// distributed optimizer and NeMo's default do. Simulate that, set `sharded`, and add it to `assumption`.
std::optional<models::ResolvedScenario> resolveRow(const models::Scenario& scenario,
                                                   const models::Catalog& catalog, std::string& assumption,
                                                   bool& sharded, models::Diagnostics& errors) {
    sharded = false;
    auto resolved = models::resolveScenario(scenario, catalog, errors, /*checkMemory=*/false);
    if (resolved && !resolved->fitsInMemory() && scenario.workload.parallel.zero == 0 &&
        scenario.workload.parallel.dataParallelGroup() > 1) {
        models::Scenario alternative = scenario;
        alternative.workload.parallel.zero = 1;
        models::Diagnostics ignored;
        if (auto alt = models::resolveScenario(alternative, catalog, ignored, /*checkMemory=*/false)) {
            resolved = std::move(alt);
            sharded = true;
            assumption += (assumption.empty() ? "" : "; ") + std::string(kShardedOptimizer);
        }
    }
    return resolved;
}

// One simulation in its own process: its step time and the memory model's verdict, as JSON text.
std::function<std::string()> simulation(models::ResolvedScenario rs, Fidelity fidelity) {
    return [rs = std::move(rs), fidelity] {
        SimulationOptions options;
        options.fidelity = fidelity;
        const auto m = simulateStep(rs, options);
        return models::Json{
            {"step_time_s", m.step_time_s}, {"memory_GB", rs.memory.total()}, {"fits", rs.fitsInMemory()}}
            .dump();
    };
}

struct Simulated {
    double step_time_s = 0;
    double memory_GB = 0;
    bool fits = true;
};

// What a simulation's process returned; nullopt and `why` when it failed.
std::optional<Simulated> readSimulation(const IsolatedOutcome& outcome, std::string& why) {
    if (!outcome.ok) {
        why = "simulation failed: " + outcome.output;
        return std::nullopt;
    }
    try {
        const auto j = models::Json::parse(outcome.output);
        return Simulated{j.at("step_time_s").get<double>(), j.at("memory_GB").get<double>(),
                         j.at("fits").get<bool>()};
    } catch (const std::exception& e) {
        why = std::string("unreadable simulation output: ") + e.what();
        return std::nullopt;
    }
}

// The range of a row's predictions over its own layout and the variants that fit, and how far outside it
// the measured step lies.
void settleRange(ValidationRow& row) {
    double lo = row.predicted_step_time_s, hi = row.predicted_step_time_s;
    for (const auto& v : row.variants)
        if (v.simulated && v.fits) {
            lo = std::min(lo, v.predicted_step_time_s);
            hi = std::max(hi, v.predicted_step_time_s);
        }
    row.range_min_s = lo;
    row.range_max_s = hi;
    const double measured = row.source.measured_step_time_s;
    row.outside_pct = measured < lo   ? (lo - measured) / measured * 100.0
                      : measured > hi ? (hi - measured) / measured * 100.0
                                      : 0.0;
}

// A whole number from 1 to 999,999,999 (a micro-batch or a chunk count), without leading zeros.
bool positiveInteger(const std::string& text) {
    if (text.empty() || text.size() > 9 || text[0] == '0')
        return false;
    return std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

} // namespace

std::optional<Variation> parseVariation(const std::string& text, std::string& error) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
        error =
            "expected FIELD=V1,V2,... (fields: " + std::string(kVariationFields) + "), got \"" + text + "\"";
        return std::nullopt;
    }
    Variation v;
    v.field = text.substr(0, eq);
    if (v.field != "micro_batch" && v.field != "vp" && v.field != "recompute") {
        error = "unknown field \"" + v.field + "\" (fields: " + kVariationFields + ")";
        return std::nullopt;
    }
    std::string rest = text.substr(eq + 1);
    std::size_t from = 0;
    while (true) {
        const auto comma = rest.find(',', from);
        const std::string value =
            rest.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        const bool ok = v.field == "recompute" ? value == "none" || value == "selective" || value == "full"
                                               : positiveInteger(value);
        if (!ok) {
            error = v.field;
            error += ": ";
            if (value.empty()) {
                error += "empty value";
            } else {
                error += "\"";
                error += value;
                error += "\" is not ";
                error += v.field == "recompute" ? "none, selective or full"
                                                : "a whole number from 1 to 999999999 without leading zeros";
            }
            error += " in \"";
            error += text;
            error += "\"";
            return std::nullopt;
        }
        if (std::find(v.values.begin(), v.values.end(), value) != v.values.end()) {
            error = v.field;
            error += ": \"";
            error += value;
            error += "\" is listed twice in \"";
            error += text;
            error += "\"";
            return std::nullopt;
        }
        v.values.push_back(value);
        if (comma == std::string::npos)
            break;
        from = comma + 1;
    }
    return v;
}

std::string joinedValues(const Variation& variation) {
    std::string values;
    for (const auto& v : variation.values)
        values += (values.empty() ? "" : ", ") + v;
    return values;
}

std::vector<std::vector<models::ValidationCase>>
variantCases(const std::string& csvText, const Variation& variation, models::Diagnostics& errors) {
    std::vector<std::vector<models::ValidationCase>> out;
    for (const auto& value : variation.values)
        out.push_back(
            models::parseValidationCsv(csvText, errors, models::CsvOverride{variation.field, value}));
    return out;
}

ValidationReport validateCases(const std::vector<models::ValidationCase>& cases,
                               const models::Catalog& catalog, Fidelity fidelity, int jobs,
                               const std::optional<Variation>& variation,
                               const std::vector<std::vector<models::ValidationCase>>& variants) {
    ValidationReport report;
    report.fidelity = toString(fidelity);
    report.variation = variation;
    std::vector<std::function<std::string()>> work;
    struct Job {
        std::size_t row;
        int variant; // -1: the row as written
    };
    std::vector<Job> jobsOf;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        ValidationRow row;
        row.source = c;
        row.assumption = c.assumption;
        if (c.skip) {
            row.skipped = *c.skip;
            report.rows.push_back(std::move(row));
            continue;
        }
        models::Diagnostics errors;
        bool sharded = false;
        auto resolved = resolveRow(c.scenario, catalog, row.assumption, sharded, errors);
        if (!resolved) {
            row.skipped = "invalid for the catalog: " + models::joinDiagnostics(errors);
            report.rows.push_back(std::move(row));
            continue;
        }
        jobsOf.push_back({report.rows.size(), -1});
        work.push_back(simulation(*resolved, fidelity));
        if (!variation || variants.empty()) {
            report.rows.push_back(std::move(row));
            continue;
        }
        // The same row under each value of the variation: its own layout is not simulated twice.
        const std::string own = models::serializeScenario(c.scenario);
        for (std::size_t k = 0; k < variants.size() && k < variation->values.size(); ++k) {
            ValidationVariant variant;
            variant.value = variation->values[k];
            const models::ValidationCase* vc = i < variants[k].size() ? &variants[k][i] : nullptr;
            if (!vc || vc->id != c.id) {
                variant.skipped = "no such row in the varied file";
            } else if (vc->skip) {
                variant.skipped = *vc->skip;
            } else if (models::serializeScenario(vc->scenario) == own) {
                variant.own = true; // takes the row's prediction below
                if (sharded)
                    variant.assumption = kShardedOptimizer;
            } else {
                // Every value is simulated as the row was: with the row's optimizer sharding, and no other
                // fallback (a value that does not fit then says so, and stays out of the range).
                models::Scenario scenario = vc->scenario;
                if (sharded) {
                    scenario.workload.parallel.zero = 1;
                    variant.assumption = kShardedOptimizer;
                }
                models::Diagnostics variantErrors;
                if (auto rs =
                        models::resolveScenario(scenario, catalog, variantErrors, /*checkMemory=*/false)) {
                    jobsOf.push_back({report.rows.size(), static_cast<int>(k)});
                    work.push_back(simulation(*rs, fidelity));
                } else {
                    variant.skipped = models::joinDiagnostics(variantErrors);
                }
            }
            row.variants.push_back(std::move(variant));
        }
        report.rows.push_back(std::move(row));
    }
    const auto outcomes = runIsolated(work, jobs);
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ValidationRow& row = report.rows[jobsOf[i].row];
        std::string why;
        const auto sim = readSimulation(outcomes[i], why);
        if (jobsOf[i].variant >= 0) {
            auto& variant = row.variants[static_cast<std::size_t>(jobsOf[i].variant)];
            if (sim) {
                variant.simulated = true;
                variant.predicted_step_time_s = sim->step_time_s;
                variant.fits = sim->fits;
            } else {
                variant.skipped = why;
            }
            continue;
        }
        if (!sim) {
            row.skipped = why;
            continue;
        }
        row.predicted_step_time_s = sim->step_time_s;
        row.memory_GB = sim->memory_GB;
        row.fits = sim->fits;
        row.simulated = true;
        row.error_pct = (row.predicted_step_time_s - row.source.measured_step_time_s) /
                        row.source.measured_step_time_s * 100.0;
    }
    std::vector<double> errors, outside;
    for (auto& row : report.rows) {
        if (!row.simulated) {
            report.summary.skipped++;
            continue;
        }
        errors.push_back(std::fabs(row.error_pct));
        for (auto& v : row.variants)
            if (v.own) {
                v.simulated = true;
                v.predicted_step_time_s = row.predicted_step_time_s;
                v.fits = row.fits;
            }
        if (variation) {
            settleRange(row);
            if (row.outside_pct == 0.0)
                report.summary.inside_range++;
            else
                outside.push_back(std::fabs(row.outside_pct));
        }
    }
    std::sort(errors.begin(), errors.end());
    std::sort(outside.begin(), outside.end());
    report.summary.n = static_cast<int>(errors.size());
    if (!errors.empty()) {
        const std::size_t n = errors.size();
        report.summary.median_abs_error_pct = medianOfSorted(errors);
        report.summary.p90_abs_error_pct = p90OfSorted(errors);
        report.summary.max_abs_error_pct = errors[n - 1];
    }
    if (!outside.empty()) {
        report.summary.median_abs_outside_pct = medianOfSorted(outside);
        report.summary.max_abs_outside_pct = outside.back();
    }
    return report;
}

models::Json validationToJson(const ValidationReport& report, GroupBy by) {
    models::Json cases = models::Json::array();
    models::Json skipped = models::Json::array();
    for (const auto& row : report.rows) {
        const auto& c = row.source;
        if (row.simulated) {
            models::Json one{{"id", c.id},
                             {"model", c.model},
                             {"accelerator", c.accelerator},
                             {"devices", c.devices},
                             {"predicted_step_time_s", row.predicted_step_time_s},
                             {"measured_step_time_s", c.measured_step_time_s},
                             {"error_pct", row.error_pct},
                             {"memory_per_device_GB", row.memory_GB},
                             {"fits_in_memory", row.fits},
                             {"assumption", row.assumption}};
            if (report.variation) {
                models::Json variants = models::Json::array();
                for (const auto& v : row.variants)
                    variants.push_back(v.simulated
                                           ? models::Json{{"value", v.value},
                                                          {"own", v.own},
                                                          {"predicted_step_time_s", v.predicted_step_time_s},
                                                          {"fits", v.fits},
                                                          {"assumption", v.assumption}}
                                           : models::Json{{"value", v.value}, {"skipped", v.skipped}});
                one["variants"] = variants;
                one["range_s"] = models::Json::array({row.range_min_s, row.range_max_s});
                one["outside_pct"] = row.outside_pct;
            }
            cases.push_back(std::move(one));
        } else
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
    if (report.variation) {
        out["variation"] = {{"field", report.variation->field}, {"values", report.variation->values}};
        out["summary"]["inside_range"] = report.summary.inside_range;
        out["summary"]["median_abs_outside_pct"] = report.summary.median_abs_outside_pct;
        out["summary"]["max_abs_outside_pct"] = report.summary.max_abs_outside_pct;
    }
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

// One variant's cell: its prediction, * for the row's own value, ~ when it does not fit in memory, - when
// it is not a layout the row can take.
std::string variantCell(const ValidationVariant& v) {
    if (!v.simulated)
        return "-";
    char cell[32];
    std::snprintf(cell, sizeof cell, "%.3f%s%s", v.predicted_step_time_s, v.own ? "*" : "",
                  v.fits ? "" : "~");
    return cell;
}

std::string outsideCell(const ValidationRow& row) {
    if (row.outside_pct == 0.0)
        return "inside";
    char cell[32];
    std::snprintf(cell, sizeof cell, std::fabs(row.outside_pct) < 0.05 ? "%+.2f%%" : "%+.1f%%",
                  row.outside_pct);
    return cell;
}

std::string variationLegend(const Variation& variation) {
    return "Each row again with " + variation.field + " = " + joinedValues(variation) +
           " (* the row's own value: the scored prediction, always in the range; ~ does not fit in memory, "
           "and another value marked so stays out of the range; - not simulated: not a layout the row can "
           "take, or failed, the JSON says why). Outside: how far the measured step lies beyond the range, "
           "in "
           "% of the measured step; positive when even the fastest value is slower than the run.";
}

std::string variationSummary(const ValidationReport& report) {
    char line[256];
    std::snprintf(
        line, sizeof line,
        "measured inside the range on %d of %d rows; outside on %d: |distance| median %.1f%%, max %.1f%%",
        report.summary.inside_range, report.summary.n, report.summary.n - report.summary.inside_range,
        report.summary.median_abs_outside_pct, report.summary.max_abs_outside_pct);
    return line;
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
    if (report.variation) {
        out +=
            "\nsensitivity to " + report.variation->field + ": " + variationLegend(*report.variation) + "\n";
        std::string head;
        std::snprintf(line, sizeof line, "%-4s ", "id");
        head += line;
        for (const auto& v : report.variation->values) {
            std::snprintf(line, sizeof line, "%12.12s ", v.c_str());
            head += line;
        }
        std::snprintf(line, sizeof line, "%15s %12s %9s\n", "range_s", "measured_s", "outside");
        out += head + line;
        for (const auto& row : report.rows) {
            if (!row.simulated)
                continue;
            std::snprintf(line, sizeof line, "%-4s ", row.source.id.c_str());
            std::string text = line;
            for (const auto& v : row.variants) {
                std::snprintf(line, sizeof line, "%12s ", variantCell(v).c_str());
                text += line;
            }
            char range[40];
            std::snprintf(range, sizeof range, "%.3f-%.3f", row.range_min_s, row.range_max_s);
            std::snprintf(line, sizeof line, "%15s %12.3f %9s\n", range, row.source.measured_step_time_s,
                          outsideCell(row).c_str());
            out += text + line;
        }
        out += variationSummary(report) + "\n";
    }
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
    if (report.variation) {
        out += "\n**Sensitivity to " + report.variation->field + ".** " + variationLegend(*report.variation) +
               "\n\n| id |";
        std::string rule = "| --- |";
        for (const auto& v : report.variation->values) {
            out += " " + report.variation->field + " " + v + " |";
            rule += " ---: |";
        }
        out += " range (s) | measured (s) | outside |\n" + rule + " ---: | ---: | ---: |\n";
        for (const auto& row : report.rows) {
            if (!row.simulated)
                continue;
            std::string text = "| " + row.source.id + " |";
            for (const auto& v : row.variants) {
                std::string cell = variantCell(v);
                if (cell.find('*') != std::string::npos) // Markdown emphasis
                    cell.replace(cell.find('*'), 1, "\\*");
                text += " " + cell + " |";
            }
            std::snprintf(line, sizeof line, " %.3f-%.3f | %.3f | %s |\n", row.range_min_s, row.range_max_s,
                          row.source.measured_step_time_s, outsideCell(row).c_str());
            out += text + line;
        }
        out += "\n" + variationSummary(report) + ".\n";
    }
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

models::Json accuracyDocument(const std::vector<NamedReport>& reports, const models::Catalog& catalog,
                              const std::string& command, const std::string& asOf) {
    struct Rows {
        std::vector<double> signedErrors;
        const ValidationRow* worst = nullptr;
        std::string worstFile;
    };
    std::map<std::string, Rows> byDevice;
    std::string fidelity;
    for (const auto& named : reports) {
        fidelity = named.report.fidelity;
        for (const auto& row : named.report.rows) {
            const models::Device* device = catalog.find(row.source.accelerator);
            if (!row.simulated || !device)
                continue;
            auto& rows = byDevice[device->id];
            rows.signedErrors.push_back(row.error_pct);
            if (!rows.worst || std::fabs(row.error_pct) > std::fabs(rows.worst->error_pct)) {
                rows.worst = &row;
                rows.worstFile = named.file;
            }
        }
    }
    models::Json devices = models::Json::object();
    for (auto& [id, rows] : byDevice) {
        auto& errors = rows.signedErrors;
        std::vector<double> magnitudes;
        int tooFast = 0;
        for (double e : errors) {
            magnitudes.push_back(std::fabs(e));
            tooFast += e < 0.0 ? 1 : 0;
        }
        std::sort(errors.begin(), errors.end());
        std::sort(magnitudes.begin(), magnitudes.end());
        // Rounded to 0.1 point, as the table is read (and compared when regenerated).
        auto round1 = [](double v) { return std::round(v * 10.0) / 10.0; };
        devices[id] = models::Json{{"runs", static_cast<int>(errors.size())},
                                   {"too_fast", tooFast},
                                   {"median_error_pct", round1(medianOfSorted(errors))},
                                   {"p90_abs_error_pct", round1(p90OfSorted(magnitudes))},
                                   {"worst_error_pct", round1(rows.worst->error_pct)},
                                   {"worst_run", rows.worstFile + " " + rows.worst->source.id}};
    }
    return models::Json{
        {"format", "choreo-catalog/1"},
        {"accuracy",
         models::Json{{"fidelity", fidelity}, {"as_of", asOf}, {"command", command}, {"devices", devices}}}};
}

} // namespace choreo::sim
