#pragma once

#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/validationcase.h"
#include "sim/simulator.h"

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

// Simulates every case in its own process (`jobs` at a time) and compares with the measured step time.
ValidationReport validateCases(const std::vector<models::ValidationCase>& cases,
                               const models::Catalog& catalog, Fidelity fidelity, int jobs);

// {"cases":[{"id","predicted_step_time_s","measured_step_time_s","error_pct",...}], "skipped":[...],
//  "summary":{"n","median_abs_error_pct","p90_abs_error_pct","max_abs_error_pct"}}
models::Json validationToJson(const ValidationReport& report);
// A fixed-width table and the summary, for terminals.
std::string validationToText(const ValidationReport& report);
// The same as a Markdown table with the summary, for docs/validation.md.
std::string validationToMarkdown(const ValidationReport& report);

} // namespace choreo::sim
