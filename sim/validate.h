#pragma once

#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/validationcase.h"
#include "sim/simulator.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::sim {

// `validate --vary FIELD=V1,V2,...`: each row simulated again with one field the sources often leave
// unstated (the validation README: "the row carries the usual default for that source") set to each value.
// The row's own prediction stays the scored one; the variants give the range of predictions over layouts
// the publication does not rule out.
struct Variation {
    std::string field;               // micro_batch, vp or recompute
    std::vector<std::string> values; // integers (without leading zeros), or none|selective|full
};
// The fields --vary accepts, for messages.
inline constexpr const char* kVariationFields = "micro_batch, vp, recompute";
// Parses "FIELD=V1,V2,..."; nullopt and `error` (naming the field or value and the problem) if malformed.
std::optional<Variation> parseVariation(const std::string& text, std::string& error);
// The values as a reader sees them: "1, 2, 4".
std::string joinedValues(const Variation& variation);

// Parses `csvText` once per value of `variation` (the rows in the file's order, with the variation's field
// set to that value), in the order of the values; problems become diagnostics.
std::vector<std::vector<models::ValidationCase>>
variantCases(const std::string& csvText, const Variation& variation, models::Diagnostics& errors);

// One layout of a row under --vary.
struct ValidationVariant {
    std::string value;
    bool own = false; // the row as written: its prediction is the row's
    bool simulated = false;
    std::string skipped; // why not (invalid layout for the row, failed)
    double predicted_step_time_s = 0;
    bool fits = true;       // other values that do not fit in memory stay out of the range
    std::string assumption; // the row's own fallback (a sharded optimizer), kept for every value
};

// One published run against its prediction.
struct ValidationRow {
    models::ValidationCase source;
    bool simulated = false;
    std::string skipped; // why it was not simulated (not modelled yet, invalid for the catalog, failed)
    double predicted_step_time_s = 0;
    double error_pct = 0; // (predicted - measured) / measured * 100
    double memory_GB = 0;
    bool fits = true; // the memory model's verdict for the device
    // What was assumed beyond the row as written (e.g. a sharded optimizer when it cannot fit without),
    // empty if nothing.
    std::string assumption;
    // With --vary: every value's prediction, and the range over the row's own prediction (the scored one,
    // whether or not the memory model says it fits) and the other values that fit in memory; `outside_pct`
    // is how far the measured step lies outside that range, in % of the measured step (0 inside; positive
    // when even the fastest layout is slower than the run, as error_pct, negative when the slowest is
    // faster).
    std::vector<ValidationVariant> variants;
    double range_min_s = 0;
    double range_max_s = 0;
    double outside_pct = 0;
    // With --fidelity both: the closed form's prediction of the same scenario; nullopt where either level did
    // not simulate the row.
    std::optional<double> analytical_step_time_s;
    // How far the closed form is from this row's prediction: analytical / flow - 1, in % (0 without one).
    [[nodiscard]] double disagreement_pct() const {
        return analytical_step_time_s ? (*analytical_step_time_s / predicted_step_time_s - 1.0) * 100.0 : 0.0;
    }
};

struct ValidationSummary {
    int n = 0; // simulated cases
    int skipped = 0;
    double median_abs_error_pct = 0;
    double p90_abs_error_pct = 0;
    double max_abs_error_pct = 0;
    // With --vary: rows whose measured step lies inside their range, and |outside_pct| over the others.
    int inside_range = 0;
    double median_abs_outside_pct = 0;
    double max_abs_outside_pct = 0;
};

// n, median, p90 and max of the absolute errors (in %), as every validation summary takes them.
ValidationSummary summariseAbsErrors(std::vector<double> absErrors);

// `validate --fidelity both`: the analytical level against the flow level, over the rows both simulated.
struct FidelityAgreement {
    ValidationSummary spread; // n, median, p90 and max of |disagreement_pct|
    double limit_pct = 10.0;  // how far the two levels may be apart on a row (issue 31)
    int over_limit = 0;       // rows further apart than that
};

struct ValidationReport {
    std::vector<ValidationRow> rows;
    ValidationSummary summary;
    std::string fidelity;
    std::optional<Variation> variation;
    std::optional<FidelityAgreement> agreement; // with --fidelity both
};

// How `validate --group-by` summarises the rows.
enum class GroupBy { None, Source, Accelerator, Model };
std::optional<GroupBy> groupByFromString(const std::string& name);

// The error of the simulated rows that share a source (publication and table), an accelerator or a model.
struct ValidationGroup {
    std::string key;
    int n = 0;
    double median_abs_error_pct = 0;
    double max_abs_error_pct = 0;
    double mean_error_pct = 0; // signed: negative = predicted too fast on average
};

// The group a row belongs to (for GroupBy::None, "all").
std::string groupKey(const ValidationRow& row, GroupBy by);
// One group per key, in order of first appearance; skipped rows are left out.
std::vector<ValidationGroup> groupRows(const ValidationReport& report, GroupBy by);

// Simulates every case in its own process (`jobs` at a time) and compares with the measured step time;
// with a variation, also each case at each of its values (`variants`, from variantCases on the same file).
ValidationReport validateCases(const std::vector<models::ValidationCase>& cases,
                               const models::Catalog& catalog, Fidelity fidelity, int jobs,
                               const std::optional<Variation>& variation = std::nullopt,
                               const std::vector<std::vector<models::ValidationCase>>& variants = {});

// Adds to `report` (a flow-level report) the closed form's prediction of each row, from `analytical` (the
// same cases validated at the analytical level), and the distribution of the two levels' disagreement.
void compareWithAnalytical(ValidationReport& report, const ValidationReport& analytical);

// {"cases":[{"id","predicted_step_time_s","measured_step_time_s","error_pct",...}], "skipped":[...],
//  "summary":{"n","median_abs_error_pct","p90_abs_error_pct","max_abs_error_pct"}}
// With a grouping, also "groups": [{"key","n","median_abs_error_pct","max_abs_error_pct","mean_error_pct"}].
// With a variation, each case has "variants": [{"value","own","predicted_step_time_s","fits","assumption"}
// or {"value","skipped"}] and "range_s": [min, max], "outside_pct"; the document has "variation":
// {"field","values"} and the summary "inside_range", and "median_abs_outside_pct" and
// "max_abs_outside_pct" over the rows outside their range (0 when none). With an agreement, each case has
// "analytical_step_time_s" and "disagreement_pct" (where the closed form simulated it), and the document
// has "agreement": {"compared", "n", "median_abs_pct", "p90_abs_pct", "max_abs_pct", "limit_pct",
// "over_limit"}.
models::Json validationToJson(const ValidationReport& report, GroupBy by = GroupBy::None);
// `choreo-sim accuracy`: the error of every simulated row of several validation files, per catalog device
// (rows name a device by id or alias): rows, rows predicted too fast, median signed error, the |error| 90 %
// of the rows are within, the worst row (signed, with its file's name and id). As a catalog document,
// {"format":"choreo-catalog/1","accuracy":{"fidelity","as_of","command","devices":{ID:{...}}}}, the form
// assets/catalog/accuracy.json has (models::DeviceAccuracy). Rows on devices the catalog lacks are left out.
struct NamedReport {
    std::string file; // the CSV's file name, for worst_run
    ValidationReport report;
};
models::Json accuracyDocument(const std::vector<NamedReport>& reports, const models::Catalog& catalog,
                              const std::string& command, const std::string& asOf);

// A fixed-width table and the summary, for terminals (then the groups, with a grouping).
std::string validationToText(const ValidationReport& report, GroupBy by = GroupBy::None);
// The same as a Markdown table with the summary, for docs/validation.md.
std::string validationToMarkdown(const ValidationReport& report, GroupBy by = GroupBy::None);

} // namespace choreo::sim
