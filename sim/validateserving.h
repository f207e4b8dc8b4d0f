#pragma once
// `choreo-sim validate` on a serving file (../shared/validation/published-inference.csv): each row's
// benchmark simulated as its scenario says, and the predicted figure in the row's metric against the
// published one.

#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/servingcase.h"
#include "sim/simulator.h"
#include "sim/validate.h"

#include <map>
#include <string>
#include <vector>

namespace choreo::sim {

struct ServingValidationRow {
    models::ServingCase source;
    bool simulated = false;
    std::string skipped;
    double predicted = 0; // in the metric's unit
    double error_pct = 0; // (predicted - measured) / measured * 100
    std::string how;      // what the figure was read from ("max rate within the SLOs, 12.3 requests/s")
};

struct ServingValidationReport {
    std::vector<ServingValidationRow> rows;
    ValidationSummary summary;                          // over every simulated row
    std::map<std::string, ValidationSummary> by_metric; // per metric
    std::string fidelity;
};

// Simulates every case, each in its own process (`jobs` at a time; a row's rate search runs its probes in
// that process's children).
ServingValidationReport validateServingCases(const std::vector<models::ServingCase>& cases,
                                             const models::Catalog& catalog, Fidelity fidelity, int jobs);

// The training file's shape ({"cases", "skipped", "summary": {n, median_abs_error_pct, p90_abs_error_pct,
// max_abs_error_pct}}), each case with "metric", "predicted", "measured", "error_pct", and the summary with
// "by_metric": {METRIC: {n, median_abs_error_pct, p90_abs_error_pct, max_abs_error_pct}}.
models::Json servingValidationToJson(const ServingValidationReport& report);
std::string servingValidationToText(const ServingValidationReport& report);
std::string servingValidationToMarkdown(const ServingValidationReport& report);

} // namespace choreo::sim
