#pragma once

// `--set PATH=VALUE`: one field of a scenario document overridden by its JSON path, before the document is
// read, so that an override gets the same validation and the same error messages as the file.

#include "models/diagnostic.h"
#include "models/jsonreader.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

struct FieldOverride {
    std::string path; // "cluster.pools[1].count"
    Json value;       // VALUE read as JSON; a bare word that is not JSON is a string ("full")
};

// Reads "PATH=VALUE"; nullopt with what is wrong in `error`.
std::optional<FieldOverride> parseFieldOverride(const std::string& assignment, std::string& error);

// Sets the field in `document`. Objects along the path that are absent are created (the scenario reader
// then names a misspelt key as an unknown field); an array index must name an existing element. Returns
// false with `error` when the path cannot lead to a field.
bool applyFieldOverride(Json& document, const FieldOverride& field, std::string& error);

// Applies each override in order; each one that cannot be applied is a diagnostic on its path.
bool applyFieldOverrides(Json& document, const std::vector<FieldOverride>& fields, Diagnostics& errors);

} // namespace choreo::models
