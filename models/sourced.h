#pragma once

#include <string>

namespace choreo::models {

// The source key of a modelling assumption: a figure Choreo supposes where no source or measurement gives
// one.
inline constexpr const char* kAssumedSource = "CHOREO-DEFAULT";

// A catalog number with the source it was taken from (a key of the catalog's source table).
struct Sourced {
    double value = 0.0;
    std::string source;
    std::string note;
    // Only announced by its vendor (a keynote or a press release): no shipped part was measured or sold with
    // it. The catalog and every result that uses it say so.
    bool announced = false;

    [[nodiscard]] bool present() const { return !source.empty(); }
    bool operator==(const Sourced&) const = default;
};

// Where a number comes from: a key of the catalog's source table, resolved to a title and a date.
struct Source {
    std::string key;
    std::string title;
    std::string url;
    std::string as_of;
    bool operator==(const Source&) const = default;
};

} // namespace choreo::models
