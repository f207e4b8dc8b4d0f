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

// The year a source was published, from "2024", "SC'21" or "(24.07)"-style text; nullopt if none.
std::optional<int> publicationYear(const std::string& source);

// The NGC container release a source names, "(25.04)" as 2504; nullopt if none.
std::optional<int> containerRelease(const std::string& source);
// The first "YYYY-MM" date in a source, as YYYYMM ("(2024-12, Grand Teton ...)" gives 202412).
std::optional<int> publicationMonth(const std::string& source);

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
