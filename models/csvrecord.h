#pragma once
// One record of a validation CSV: fields by column name, read as text, integers or numbers, with each
// problem a diagnostic naming the line and the column ("line 12.n_accel").

#include "models/diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace choreo::models {

// Splits one CSV record (RFC 4180 quoting).
std::vector<std::string> splitCsvRecord(const std::string& line);
// A cell as a record holds it: quoted when it has a comma, a quote or a line break (splitCsvRecord's
// inverse).
std::string csvCell(const std::string& cell);

// The header's column indices by name.
std::map<std::string, std::size_t> csvColumns(const std::string& headerLine);

class CsvRow {
public:
    CsvRow(const std::map<std::string, std::size_t>& columns, std::vector<std::string> fields,
           std::string where, Diagnostics& errors)
        : columns_(columns)
        , fields_(std::move(fields))
        , where_(std::move(where))
        , errors_(errors) {}

    // The cell, or empty when the row is shorter or the column absent.
    [[nodiscard]] std::string text(const std::string& name) const;
    // The cell as an integer; `fallback` when empty (an error if required) or malformed (an error).
    std::int64_t integer(const std::string& name, std::int64_t fallback, bool required = true);
    // The cell as a finite number; 0 and an error when empty or malformed.
    double number(const std::string& name);
    [[nodiscard]] const std::string& where() const { return where_; }
    void error(const std::string& column, const std::string& message) {
        errors_.push_back({where_ + "." + column, message});
    }

private:
    const std::map<std::string, std::size_t>& columns_;
    std::vector<std::string> fields_;
    std::string where_;
    Diagnostics& errors_;
};

} // namespace choreo::models
