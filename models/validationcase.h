#pragma once

#include "models/diagnostic.h"
#include "models/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// One published training run (a row of ../shared/validation/published-runs.csv).
struct ValidationCase {
    std::string id;
    std::string source;
    std::string reliability;
    std::string model;
    std::string accelerator;
    std::int64_t devices = 0;
    double measured_step_time_s = 0;
    std::string basis;
    Scenario scenario;               // the run as a Choreo scenario
    std::optional<std::string> skip; // why the case cannot be simulated yet, if so
    std::string assumption;          // what the scenario assumes beyond the row's columns, if anything
};

// A validation file's columns joined with those of `extra`, another CSV with an id column: each row of
// `text` gains the extra file's cells of the row with its id (empty where it has none); `text` unchanged
// when it has all of those columns already. Nullopt with an error when `extra` has no id column, repeats an
// id, names an id `text` lacks, or has some but not all of `text`'s columns (framework columns for a
// published file that lacks them: validation/README.md).
std::optional<std::string> joinCsvColumns(const std::string& text, const std::string& extra,
                                          Diagnostics& errors);

// One column's value set for every row, as `validate --vary` rewrites a field the sources left unstated.
struct CsvOverride {
    std::string column; // added to the header when the file has no such column
    std::string value;
};

// Parses the CSV (header row required). Malformed rows become diagnostics naming the line and column.
// With an override, every row reads `override->value` in that column instead of what it holds.
std::vector<ValidationCase> parseValidationCsv(const std::string& text, Diagnostics& errors,
                                               const std::optional<CsvOverride>& override = std::nullopt);

} // namespace choreo::models
