#pragma once

#include <string>
#include <vector>

namespace choreo::models {

// One problem found in user input: where (a JSON path such as "workload.parallel.tp") and what.
struct Diagnostic {
    std::string path;
    std::string message;

    // "path: message", or just the message when the path is empty.
    [[nodiscard]] std::string text() const { return path.empty() ? message : path + ": " + message; }
    bool operator==(const Diagnostic&) const = default;
};

using Diagnostics = std::vector<Diagnostic>;

// All diagnostics, one per line.
std::string joinDiagnostics(const Diagnostics& diagnostics);

} // namespace choreo::models
