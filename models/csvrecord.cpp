#include "models/csvrecord.h"

#include <charconv>
#include <cmath>
#include <exception>

namespace choreo::models {

std::vector<std::string> splitCsvRecord(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(field);
            field.clear();
        } else if (c != '\r') {
            field += c;
        }
    }
    fields.push_back(field);
    return fields;
}

std::string csvCell(const std::string& cell) {
    if (cell.find_first_of(",\"\r\n") == std::string::npos)
        return cell;
    std::string quoted = "\"";
    for (const char c : cell)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::map<std::string, std::size_t> csvColumns(const std::string& headerLine) {
    std::map<std::string, std::size_t> columns;
    const auto header = splitCsvRecord(headerLine);
    for (std::size_t i = 0; i < header.size(); ++i)
        columns[header[i]] = i;
    return columns;
}

std::string CsvRow::text(const std::string& name) const {
    auto it = columns_.find(name);
    if (it == columns_.end() || it->second >= fields_.size())
        return {};
    return fields_[it->second];
}

std::int64_t CsvRow::integer(const std::string& name, std::int64_t fallback, bool required) {
    const std::string t = text(name);
    if (t.empty()) {
        if (required)
            error(name, "missing value");
        return fallback;
    }
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size()) {
        error(name, "expected an integer, got \"" + t + "\"");
        return fallback;
    }
    return v;
}

double CsvRow::number(const std::string& name) {
    const std::string t = text(name);
    try {
        std::size_t used = 0;
        const double v = std::stod(t, &used);
        if (used == t.size() && std::isfinite(v))
            return v;
    } catch (const std::exception&) {
    }
    error(name, "expected a number, got \"" + t + "\"");
    return 0.0;
}

} // namespace choreo::models
