#pragma once

// Training-framework profiles: what a framework's release does that a run's layout does not say (its
// attention kernels, which communication it overlaps, how it accumulates and reduces gradients), as named,
// sourced catalog entries (assets/catalog/frameworks.json). A scenario names its framework and release
// (workload.framework, workload.framework_version); a validation file does so in its framework and
// framework_version columns. Nothing reads a run's source text.

#include "models/diagnostic.h"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choreo::models {

class Catalog;
class JsonReader;
struct Scenario;

// A test on the run as written: the workload field `field` ("parallel.zero") holds one of `values` (each
// JSON text: "0", "\"fp8\"").
struct FrameworkCondition {
    std::string field;
    std::vector<std::string> values;
};

// One behaviour: the workload field `field` (its path under "workload.", as the field table names it, or
// "gradient_precision") takes `value` where every `when` holds, no `unless` does, and the training device
// is one of `devices` (when given) and none of `except_devices`.
struct FrameworkBehaviour {
    std::string field;
    std::string value;  // JSON text: "false", "\"unfused\""
    std::string source; // a key of the catalog's source table
    std::string note;
    std::vector<FrameworkCondition> when;
    std::vector<FrameworkCondition> unless;
    std::vector<std::string> devices;
    std::vector<std::string> except_devices;
};

// One release line of a framework, from the month `from` ("2024-01") until the next profile of the same
// framework. `extends` names a profile whose behaviours it takes first (its own replace those of the same
// field).
struct FrameworkProfile {
    std::string id;
    std::string framework; // what workload.framework names ("megatron", "nemo", ...)
    std::string name;
    std::string from;
    std::string extends;
    std::vector<FrameworkBehaviour> behaviours;
};

// Reads one entry of a catalog file's "training_frameworks" at `path`, checking each behaviour's field and
// value against the field table; each source cited is added to `citations` as (path, key).
std::optional<FrameworkProfile>
readFrameworkProfile(JsonReader& reader, const nlohmann::ordered_json& entry, const std::string& path,
                     std::vector<std::pair<std::string, std::string>>& citations);

// Checks across the catalog: each `extends` names a profile of the same framework that starts earlier, each
// device named is a catalog device, no framework starts two profiles in the same month.
void checkFrameworkProfiles(const Catalog& catalog, Diagnostics& errors);

// The profile of `framework` (case-insensitive) in force at `version` ("YYYY-MM"; empty: the newest), or
// nullptr with an error at workload.framework or workload.framework_version.
const FrameworkProfile* selectFrameworkProfile(const Catalog& catalog, const std::string& framework,
                                               const std::string& version, Diagnostics& errors);

// Applies the profile the scenario names to its workload. Conditions read the workload as written. Returns
// what was applied, in words ("megatron-2019 (Megatron-LM ...): Attention unfused ..."); an empty string when
// the scenario names no framework; nullopt with errors when it names one the catalog lacks.
std::optional<std::string> applyFrameworkProfile(Scenario& s, const Catalog& catalog, Diagnostics& errors);

} // namespace choreo::models
