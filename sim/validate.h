#pragma once

#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/validationcase.h"
#include "sim/simulator.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::sim {

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
};

struct ValidationSummary {
    int n = 0; // simulated cases
    int skipped = 0;
    double median_abs_error_pct = 0;
    double p90_abs_error_pct = 0;
    double max_abs_error_pct = 0;
};

struct ValidationReport {
    std::vector<ValidationRow> rows;
    ValidationSummary summary;
    std::string fidelity;
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

// Simulates every case in its own process (`jobs` at a time) and compares with the measured step time.
ValidationReport validateCases(const std::vector<models::ValidationCase>& cases,
                               const models::Catalog& catalog, Fidelity fidelity, int jobs);

// {"cases":[{"id","predicted_step_time_s","measured_step_time_s","error_pct",...}], "skipped":[...],
//  "summary":{"n","median_abs_error_pct","p90_abs_error_pct","max_abs_error_pct"}}
// With a grouping, also "groups": [{"key","n","median_abs_error_pct","max_abs_error_pct","mean_error_pct"}].
models::Json validationToJson(const ValidationReport& report, GroupBy by = GroupBy::None);
// A fixed-width table and the summary, for terminals (then the groups, with a grouping).
std::string validationToText(const ValidationReport& report, GroupBy by = GroupBy::None);
// The same as a Markdown table with the summary, for docs/validation.md.
std::string validationToMarkdown(const ValidationReport& report, GroupBy by = GroupBy::None);

} // namespace choreo::sim
