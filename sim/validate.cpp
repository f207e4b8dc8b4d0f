#include "sim/validate.h"

#include "models/resolved.h"
#include "models/scenarioio.h"
#include "sim/isolate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <variant>

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
    // The framework's profile (the row's framework columns) may shard the optimizer itself.
    if (resolved && !resolved->framework.empty())
        assumption += (assumption.empty() ? "" : "; ") + resolved->framework;
    if (resolved && !resolved->fitsInMemory() && resolved->workload().parallel.zero == 0 &&
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

namespace {

// The simulations a validation runs, each with the row (and the variant of it, -1 for the row as written)
// its outcome belongs to.
struct ValidationJobs {
    struct Job {
        std::size_t row;
        int variant;
    };
    std::vector<std::function<std::string()>> work;
    std::vector<Job> of;

    void add(std::size_t row, int variant, std::function<std::string()> simulation) {
        of.push_back({row, variant});
        work.push_back(std::move(simulation));
    }
};

// The row `c` (report row `rowIndex`) under each value of the variation: its own layout is not simulated
// twice, and every value is simulated as the row was, with the row's optimizer sharding and no other
// fallback (a value that does not fit then says so, and stays out of the range).
void planVariants(ValidationRow& row, std::size_t rowIndex, std::size_t caseIndex, bool sharded,
                  const Variation& variation,
                  const std::vector<std::vector<models::ValidationCase>>& variants,
                  const models::Catalog& catalog, Fidelity fidelity, ValidationJobs& jobs) {
    const models::ValidationCase& c = row.source;
    const std::string own = models::serializeScenario(c.scenario);
    for (std::size_t k = 0; k < variants.size() && k < variation.values.size(); ++k) {
        ValidationVariant variant;
        variant.value = variation.values[k];
        const models::ValidationCase* vc = caseIndex < variants[k].size() ? &variants[k][caseIndex] : nullptr;
        if (!vc || vc->id != c.id) {
            variant.skipped = "no such row in the varied file";
        } else if (vc->skip) {
            variant.skipped = *vc->skip;
        } else if (models::serializeScenario(vc->scenario) == own) {
            variant.own = true; // takes the row's prediction (summarise)
            if (sharded)
                variant.assumption = kShardedOptimizer;
        } else {
            models::Scenario scenario = vc->scenario;
            if (sharded) {
                scenario.workload.parallel.zero = 1;
                variant.assumption = kShardedOptimizer;
            }
            models::Diagnostics variantErrors;
            if (auto rs = models::resolveScenario(scenario, catalog, variantErrors, /*checkMemory=*/false))
                jobs.add(rowIndex, static_cast<int>(k), simulation(*rs, fidelity));
            else
                variant.skipped = models::joinDiagnostics(variantErrors);
        }
        row.variants.push_back(std::move(variant));
    }
}

// Puts each simulation's outcome into its row or variant.
void applyOutcomes(ValidationReport& report, const ValidationJobs& jobs,
                   const std::vector<IsolatedOutcome>& outcomes) {
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        ValidationRow& row = report.rows[jobs.of[i].row];
        std::string why;
        const auto sim = readSimulation(outcomes[i], why);
        if (jobs.of[i].variant >= 0) {
            auto& variant = row.variants[static_cast<std::size_t>(jobs.of[i].variant)];
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
}

// The error distribution over the simulated rows, and each row's range under the variation.
void summarise(ValidationReport& report, bool varied) {
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
        if (varied) {
            settleRange(row);
            if (row.outside_pct == 0.0)
                report.summary.inside_range++;
            else
                outside.push_back(std::fabs(row.outside_pct));
        }
    }
    const auto ofErrors = summariseAbsErrors(errors);
    report.summary.n = ofErrors.n;
    report.summary.median_abs_error_pct = ofErrors.median_abs_error_pct;
    report.summary.p90_abs_error_pct = ofErrors.p90_abs_error_pct;
    report.summary.max_abs_error_pct = ofErrors.max_abs_error_pct;
    std::sort(outside.begin(), outside.end());
    if (!outside.empty()) {
        report.summary.median_abs_outside_pct = medianOfSorted(outside);
        report.summary.max_abs_outside_pct = outside.back();
    }
}

} // namespace

ValidationSummary summariseAbsErrors(std::vector<double> absErrors) {
    ValidationSummary summary;
    std::sort(absErrors.begin(), absErrors.end());
    summary.n = static_cast<int>(absErrors.size());
    if (!absErrors.empty()) {
        summary.median_abs_error_pct = medianOfSorted(absErrors);
        summary.p90_abs_error_pct = p90OfSorted(absErrors);
        summary.max_abs_error_pct = absErrors.back();
    }
    return summary;
}

ValidationReport validateCases(const std::vector<models::ValidationCase>& cases,
                               const models::Catalog& catalog, Fidelity fidelity, int jobs,
                               const std::optional<Variation>& variation,
                               const std::vector<std::vector<models::ValidationCase>>& variants) {
    ValidationReport report;
    report.fidelity = toString(fidelity);
    report.variation = variation;
    ValidationJobs planned;
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
        planned.add(report.rows.size(), -1, simulation(*resolved, fidelity));
        if (variation && !variants.empty())
            planVariants(row, report.rows.size(), i, sharded, *variation, variants, catalog, fidelity,
                         planned);
        report.rows.push_back(std::move(row));
    }
    applyOutcomes(report, planned, runIsolated(planned.work, jobs));
    summarise(report, variation.has_value());
    return report;
}

void compareWithAnalytical(ValidationReport& report, const ValidationReport& analytical) {
    FidelityAgreement agreement;
    std::vector<double> apart;
    for (std::size_t i = 0; i < report.rows.size() && i < analytical.rows.size(); ++i) {
        ValidationRow& row = report.rows[i];
        const ValidationRow& closedForm = analytical.rows[i];
        if (!row.simulated || !closedForm.simulated || closedForm.source.id != row.source.id ||
            !(row.predicted_step_time_s > 0.0))
            continue;
        row.analytical_step_time_s = closedForm.predicted_step_time_s;
        apart.push_back(std::fabs(row.disagreement_pct()));
        if (apart.back() > agreement.limit_pct)
            agreement.over_limit++;
    }
    agreement.spread = summariseAbsErrors(apart);
    report.agreement = agreement;
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
            if (row.analytical_step_time_s) {
                one["analytical_step_time_s"] = *row.analytical_step_time_s;
                one["disagreement_pct"] = row.disagreement_pct();
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
    if (const auto& a = report.agreement)
        out["agreement"] = {{"compared", "analytical / " + report.fidelity + " - 1, in %"},
                            {"n", a->spread.n},
                            {"median_abs_pct", a->spread.median_abs_error_pct},
                            {"p90_abs_pct", a->spread.p90_abs_error_pct},
                            {"max_abs_pct", a->spread.max_abs_error_pct},
                            {"limit_pct", a->limit_pct},
                            {"over_limit", a->over_limit}};
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

// The validation report's content, built once from the report and written either as plain text for a
// terminal (fixed-width columns, terse labels) or as Markdown for docs/validation.md.

// A table cell: a value and what follows it, a unit ("%") or marks ("*", "~").
struct Cell {
    std::string value;
    std::string suffix;

    // Implicit, so that a row's cells can be listed as text.
    Cell(std::string text, std::string after = {})
        : value(std::move(text))
        , suffix(std::move(after)) {}
};

struct Column {
    std::string heading;                      // Markdown's ("predicted (s)")
    std::string shortHeading;                 // plain text's, terse to fit its width ("predicted_s")
    int width = 0;                            // plain text pads cells to this many characters
    bool left = false;                        // left-aligned text; otherwise right-aligned, as numbers
    std::size_t maxChars = std::string::npos; // plain text cuts longer cells (and the heading)
    bool suffixInHeading = false;             // plain text: the cells' unit is in the short heading instead
};

struct TableRow {
    std::vector<Cell> cells = {};        // one per column
    std::vector<std::string> notes = {}; // after the last cell: "(assumed ...)", "(memory model: ...)"
    // A row that was not simulated; its last cell says why. Plain text writes only its key cells and then
    // the reason, as its figure columns would be empty; Markdown writes every cell.
    bool skipped = false;
};

struct Table {
    std::vector<Column> columns;
    std::vector<TableRow> rows;
    std::size_t keyColumns = 1; // the columns that name a row: all plain text shows of a skipped one
};

struct Paragraph {
    // Bold in Markdown ("Summary (analytical fidelity):"); plain text writes it in lower case, ending in a
    // colon. Empty: none.
    std::string lead;
    std::string text;      // Markdown ends it with a full stop where it has none
    std::string terseText; // plain text's wording where it is shorter; empty: `text`
};

using Block = std::variant<Table, Paragraph>;
// Plain text separates the sections by a blank line and writes a section's blocks line after line;
// Markdown separates every block by a blank line.
using Section = std::vector<Block>;
using ValidationContent = std::vector<Section>;

// printf's formatting, into a string of any length (each call passes at least one value).
template <typename... Values>
std::string printed(const char* format, Values... values) {
    const int length = std::snprintf(nullptr, 0, format, values...);
    std::string text(static_cast<std::size_t>(std::max(length, 0)), '\0');
    std::snprintf(text.data(), text.size() + 1, format, values...);
    return text;
}

// What a row adds after its error: an assumption made, or the memory model's verdict.
std::vector<std::string> rowNotes(const ValidationRow& row) {
    std::vector<std::string> notes;
    if (!row.assumption.empty())
        notes.push_back("(assumed " + row.assumption + ")");
    if (!row.fits)
        notes.emplace_back("(memory model: does not fit)");
    return notes;
}

// The published runs, one row each, with their predictions.
Table rowsTable(const ValidationReport& report) {
    Table table;
    table.columns = {{"id", "id", 4, true},
                     {"model", "model", 34, true, 34},
                     {"accelerator", "accelerator", 14, true},
                     {"devices", "devs", 6},
                     {"predicted (s)", "predicted_s", 12},
                     {"measured (s)", "measured_s", 12},
                     {"error", "error%", 8, false, std::string::npos, true}};
    table.keyColumns = 4;
    for (const auto& row : report.rows) {
        const auto& c = row.source;
        TableRow line;
        line.cells = {c.id, c.model, c.accelerator, std::to_string(static_cast<long long>(c.devices))};
        if (row.simulated) {
            line.cells.insert(line.cells.end(), {printed("%.3f", row.predicted_step_time_s),
                                                 printed("%.3f", c.measured_step_time_s),
                                                 Cell(printed("%+.1f", row.error_pct), "%")});
            line.notes = rowNotes(row);
        } else {
            line.cells.insert(line.cells.end(),
                              {Cell("skipped"), printed("%.3f", c.measured_step_time_s), row.skipped});
            line.skipped = true;
        }
        table.rows.push_back(std::move(line));
    }
    return table;
}

Paragraph summaryParagraph(const ValidationReport& report) {
    const ValidationSummary& s = report.summary;
    const std::string errors = printed("median %.1f%%, p90 %.1f%%, max %.1f%%", s.median_abs_error_pct,
                                       s.p90_abs_error_pct, s.max_abs_error_pct);
    const std::string skipped = std::to_string(s.skipped) + " skipped; ";
    return {"Summary (" + report.fidelity + " fidelity):",
            std::to_string(s.n) + " cases simulated, " + skipped + "absolute error " + errors,
            std::to_string(s.n) + " simulated, " + skipped + "|error| " + errors};
}

// One variant's cell: its prediction, * for the row's own value, ~ when it does not fit in memory, - when
// it is not a layout the row can take.
Cell variantCell(const ValidationVariant& v) {
    if (!v.simulated)
        return Cell("-");
    return Cell(printed("%.3f", v.predicted_step_time_s),
                std::string(v.own ? "*" : "") + (v.fits ? "" : "~"));
}

std::string outsideCell(const ValidationRow& row) {
    if (row.outside_pct == 0.0)
        return "inside";
    return std::fabs(row.outside_pct) < 0.05 ? printed("%+.2f%%", row.outside_pct)
                                             : printed("%+.1f%%", row.outside_pct);
}

std::string variationLegend(const Variation& variation) {
    return "Each row again with " + variation.field + " = " + joinedValues(variation) +
           " (* the row's own value: the scored prediction, always in the range; ~ does not fit in memory, "
           "and another value marked so stays out of the range; - not simulated: not a layout the row can "
           "take, or failed, the JSON says why). Outside: how far the measured step lies beyond the range, "
           "in % of the measured step; positive when even the fastest value is slower than the run.";
}

// Each simulated row's prediction at every value of the variation, and its range.
Table variationTable(const ValidationReport& report) {
    const Variation& variation = *report.variation;
    Table table;
    table.columns.push_back({"id", "id", 4, true});
    for (const auto& v : variation.values)
        table.columns.push_back({variation.field + " " + v, v.substr(0, 12), 12});
    table.columns.insert(
        table.columns.end(),
        {{"range (s)", "range_s", 15}, {"measured (s)", "measured_s", 12}, {"outside", "outside", 9}});
    for (const auto& row : report.rows) {
        if (!row.simulated)
            continue;
        TableRow line;
        line.cells.emplace_back(row.source.id);
        for (const auto& v : row.variants)
            line.cells.push_back(variantCell(v));
        line.cells.insert(line.cells.end(),
                          {printed("%.3f-%.3f", row.range_min_s, row.range_max_s),
                           printed("%.3f", row.source.measured_step_time_s), outsideCell(row)});
        table.rows.push_back(std::move(line));
    }
    return table;
}

Section variationSection(const ValidationReport& report) {
    const ValidationSummary& s = report.summary;
    Paragraph inside{{},
                     printed("measured inside the range on %d of %d rows; outside on %d: |distance| median "
                             "%.1f%%, max %.1f%%",
                             s.inside_range, s.n, s.n - s.inside_range, s.median_abs_outside_pct,
                             s.max_abs_outside_pct),
                     {}};
    return {
        Paragraph{"Sensitivity to " + report.variation->field + ".", variationLegend(*report.variation), {}},
        variationTable(report), std::move(inside)};
}

// With --fidelity both: each row's prediction at both levels, then how far apart they are.
Section agreementSection(const ValidationReport& report) {
    Table table;
    table.columns = {{"id", "id", 4, true},
                     {report.fidelity + " (s)", report.fidelity + "_s", 12},
                     {"analytical (s)", "analytical_s", 12},
                     {"apart", "apart%", 8, false, std::string::npos, true}};
    for (const auto& row : report.rows)
        if (row.analytical_step_time_s)
            table.rows.push_back({{row.source.id, printed("%.3f", row.predicted_step_time_s),
                                   printed("%.3f", *row.analytical_step_time_s),
                                   Cell(printed("%+.2f", row.disagreement_pct()), "%")}});
    const FidelityAgreement& a = *report.agreement;
    const std::string spread = printed("median %.2f%%, p90 %.2f%%, max %.2f%%", a.spread.median_abs_error_pct,
                                       a.spread.p90_abs_error_pct, a.spread.max_abs_error_pct);
    const std::string over = printed("; %d further apart than %.0f%%", a.over_limit, a.limit_pct);
    return {Paragraph{"Analytical against " + report.fidelity + ".",
                      "The closed form's prediction of each row beside the " + report.fidelity +
                          " level's (apart: analytical / " + report.fidelity + " - 1).",
                      {}},
            std::move(table),
            Paragraph{{}, std::to_string(a.spread.n) + " rows at both levels: |apart| " + spread + over, {}}};
}

// The error per source, accelerator or model.
Table groupsTable(const ValidationReport& report, GroupBy by) {
    Table table;
    table.columns = {{"group", "group", 70, true, 70},
                     {"cases", "n", 4},
                     {"median |error|", "median|e|", 9},
                     {"max |error|", "max|e|", 9},
                     {"mean error", "mean e", 9}};
    for (const auto& g : groupRows(report, by))
        table.rows.push_back({{g.key, std::to_string(g.n), Cell(printed("%.1f", g.median_abs_error_pct), "%"),
                               Cell(printed("%.1f", g.max_abs_error_pct), "%"),
                               Cell(printed("%+.1f", g.mean_error_pct), "%")}});
    return table;
}

ValidationContent validationContent(const ValidationReport& report, GroupBy by) {
    ValidationContent content;
    content.push_back({rowsTable(report)});
    content.push_back({summaryParagraph(report)});
    if (report.variation)
        content.push_back(variationSection(report));
    if (report.agreement)
        content.push_back(agreementSection(report));
    if (by != GroupBy::None)
        content.push_back({groupsTable(report, by)});
    return content;
}

// Plain text: fixed-width columns, a space apart.

std::string padded(std::string text, const Column& column) {
    if (text.size() > column.maxChars)
        text.resize(column.maxChars);
    const auto width = static_cast<std::size_t>(column.width);
    if (text.size() >= width)
        return text;
    const std::string padding(width - text.size(), ' ');
    return column.left ? text + padding : padding + text;
}

std::string plainTable(const Table& table) {
    std::string out;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (c)
            out += ' ';
        out += padded(table.columns[c].shortHeading, table.columns[c]);
    }
    out += "\n";
    for (const auto& row : table.rows) {
        const std::size_t shown = row.skipped ? table.keyColumns : row.cells.size();
        for (std::size_t c = 0; c < shown && c < table.columns.size(); ++c) {
            const Cell& cell = row.cells[c];
            const Column& column = table.columns[c];
            if (c)
                out += ' ';
            out += padded(cell.value + (column.suffixInHeading ? "" : cell.suffix), column);
        }
        if (row.skipped)
            out += "  skipped: " + row.cells.back().value;
        for (const auto& note : row.notes)
            out += "  " + note;
        out += "\n";
    }
    return out;
}

std::string plainParagraph(const Paragraph& paragraph) {
    const std::string& text = paragraph.terseText.empty() ? paragraph.text : paragraph.terseText;
    if (paragraph.lead.empty())
        return text + "\n";
    std::string lead = paragraph.lead;
    lead[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lead[0])));
    if (lead.back() == '.')
        lead.back() = ':';
    return lead + " " + text + "\n";
}

// Markdown: pipe tables and paragraphs with a bold lead.

std::string markdownTable(const Table& table) {
    std::string head = "|";
    std::string rule = "|";
    for (const auto& column : table.columns) {
        std::string heading = column.heading;
        for (auto bar = heading.find('|'); bar != std::string::npos; bar = heading.find('|', bar + 2))
            heading.insert(bar, "\\");
        head += " " + heading + " |";
        rule += column.left ? " --- |" : " ---: |";
    }
    std::string out = head + "\n" + rule + "\n";
    for (const auto& row : table.rows) {
        out += "|";
        for (std::size_t c = 0; c < row.cells.size(); ++c) {
            std::string suffix = row.cells[c].suffix;
            if (const auto star = suffix.find('*'); star != std::string::npos) // Markdown emphasis
                suffix.replace(star, 1, "\\*");
            out += " " + row.cells[c].value + suffix;
            if (c + 1 == row.cells.size())
                for (const auto& note : row.notes)
                    out += " " + note;
            out += " |";
        }
        out += "\n";
    }
    return out;
}

std::string markdownParagraph(const Paragraph& paragraph) {
    std::string out = paragraph.lead.empty() ? std::string() : "**" + paragraph.lead + "** ";
    out += paragraph.text;
    if (out.back() != '.')
        out += ".";
    return out + "\n";
}

} // namespace

std::string validationToText(const ValidationReport& report, GroupBy by) {
    std::string out;
    for (const Section& section : validationContent(report, by)) {
        if (!out.empty())
            out += "\n";
        for (const Block& block : section)
            out += std::holds_alternative<Table>(block) ? plainTable(std::get<Table>(block))
                                                        : plainParagraph(std::get<Paragraph>(block));
    }
    return out;
}

std::string validationToMarkdown(const ValidationReport& report, GroupBy by) {
    std::string out;
    for (const Section& section : validationContent(report, by))
        for (const Block& block : section) {
            if (!out.empty())
                out += "\n";
            out += std::holds_alternative<Table>(block) ? markdownTable(std::get<Table>(block))
                                                        : markdownParagraph(std::get<Paragraph>(block));
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
