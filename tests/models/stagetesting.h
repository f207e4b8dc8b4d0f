#pragma once
// Shared by the models tests of pipeline stages: the catalog, and a shipped scenario resolved with --set
// style overrides applied, as choreo-sim run would read it.
#include "models/fieldoverride.h"
#include "models/resolved.h"
#include "models/scenarioio.h"

#include <QtGlobal>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace choreo::test {

inline const std::filesystem::path kAssets(CHOREO_TEST_ASSETS);
// The shipped default scenario (Llama 3 70B on 128 H100).
inline const std::filesystem::path kDefaultScenario = kAssets / "scenarios" / "default.json";

inline const models::Catalog& catalog() {
    static const models::Catalog c = [] {
        models::Diagnostics errors;
        auto loaded = models::Catalog::load(kAssets / "catalog", errors);
        if (!loaded)
            qFatal("catalog: %s", models::joinDiagnostics(errors).c_str());
        return std::move(*loaded);
    }();
    return c;
}

// `file` with `assignments` (PATH=VALUE) applied, unresolved; nullopt with the errors in `errors`.
inline std::optional<models::Scenario> loadWith(const std::filesystem::path& file,
                                                const std::vector<std::string>& assignments,
                                                models::Diagnostics& errors) {
    std::vector<models::FieldOverride> overrides;
    for (const auto& a : assignments) {
        std::string error;
        auto o = models::parseFieldOverride(a, error);
        if (!o)
            qFatal("%s: %s", a.c_str(), error.c_str());
        overrides.push_back(*o);
    }
    return models::loadScenarioFile(file, errors, overrides);
}

// The same, resolved.
inline std::optional<models::ResolvedScenario> resolveWith(const std::filesystem::path& file,
                                                           const std::vector<std::string>& assignments,
                                                           models::Diagnostics& errors) {
    auto scenario = loadWith(file, assignments, errors);
    return scenario ? models::resolveScenario(*scenario, catalog(), errors) : std::nullopt;
}

// The same, and the test stops when it does not resolve.
inline models::ResolvedScenario resolveOrFail(const std::filesystem::path& file,
                                              const std::vector<std::string>& assignments = {}) {
    models::Diagnostics errors;
    auto rs = resolveWith(file, assignments, errors);
    if (!rs)
        qFatal("%s: %s", file.filename().string().c_str(), models::joinDiagnostics(errors).c_str());
    return std::move(*rs);
}

// The training pool's network of a shipped scenario, planned; the test stops when it cannot be.
inline models::NetworkPlan planOrFail(const std::filesystem::path& file) {
    models::Diagnostics errors;
    const auto scenario = loadWith(file, {}, errors);
    auto plan = scenario ? models::planTrainingPoolNetwork(*scenario, catalog(), errors) : std::nullopt;
    if (!plan)
        qFatal("%s: %s", file.filename().string().c_str(), models::joinDiagnostics(errors).c_str());
    return std::move(*plan);
}

// Whether `errors` hold one at `path` whose message contains `message`.
inline bool hasError(const models::Diagnostics& errors, const std::string& path, const std::string& message) {
    for (const auto& e : errors)
        if (e.path == path && e.message.find(message) != std::string::npos)
            return true;
    return false;
}

} // namespace choreo::test
