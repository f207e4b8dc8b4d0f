#pragma once

#include "models/diagnostic.h"
#include "models/fieldoverride.h"
#include "models/jsonreader.h"
#include "models/scenario.h"

#include <filesystem>
#include <optional>
#include <string>

namespace choreo::models {

// Parses a scenario document. On failure returns nullopt and appends one diagnostic per problem
// (malformed JSON, unknown or missing fields, wrong types, zero or negative sizes, bad enum values).
std::optional<Scenario> parseScenario(const std::string& text, Diagnostics& errors);
// The same, for a document already parsed as JSON.
std::optional<Scenario> readScenarioDocument(const Json& document, Diagnostics& errors);

// Serialises a scenario; parseScenario(serializeScenario(s)) == s, and serialising again gives the same text.
std::string serializeScenario(const Scenario& scenario);

// Reads and parses a file, with `overrides` (--set) applied to its document first; a missing or unreadable
// file is a diagnostic, not an exception.
std::optional<Scenario> loadScenarioFile(const std::filesystem::path& path, Diagnostics& errors,
                                         const std::vector<FieldOverride>& overrides = {});

// Writes atomically (temporary file, then rename), so a failed save never destroys the old file.
bool saveScenarioFile(const std::filesystem::path& path, const Scenario& scenario, std::string& error);

// The largest file readTextFile reads (scenarios, catalogs, profiles, validation CSVs are far smaller).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t(64) << 20;

// Reads a whole file into `out`; false with a message when it cannot, or when it is over kMaxInputFileBytes.
bool readTextFile(const std::filesystem::path& path, std::string& out, std::string& error);
// Writes a whole file atomically.
bool writeTextFileAtomically(const std::filesystem::path& path, const std::string& text, std::string& error);

} // namespace choreo::models
