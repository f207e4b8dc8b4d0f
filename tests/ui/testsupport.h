#pragma once

// Shared by the ui tests: the fake worker, the assets, the example scenario.
#include "models/catalog.h"
#include "models/scenario.h"
#include "models/scenarioio.h"
#include "ui/runs/workercommand.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace choreo::test {

// The fake worker (tests/ui/fakeworker.cpp) in one of its modes.
inline ui::WorkerCommand fakeWorker(const QString& mode) {
    return {QString::fromUtf8(CHOREO_FAKE_WORKER), {mode}};
}

// A scenario the fake worker (mode "scenario") answers by its name: "sleep=N", "fail", "hang". The
// device count makes its content, and so a run queue's cache key, distinct.
inline models::Scenario fakeScenario(const std::string& name, std::int64_t devices) {
    models::Scenario s;
    s.name = name;
    s.cluster.pools.push_back({"gpus", "h100-sxm", devices, 8});
    return s;
}

// The assets folder: $CHOREO_ASSETS (set by CTest), else the source tree's.
inline std::filesystem::path assetsDir() {
    const QByteArray env = qgetenv("CHOREO_ASSETS");
    return env.isEmpty() ? std::filesystem::path(CHOREO_TEST_ASSETS_DIR)
                         : std::filesystem::path(env.toStdString());
}

inline std::optional<models::Catalog> loadCatalog() {
    models::Diagnostics errors;
    return models::Catalog::load(assetsDir() / "catalog", errors);
}

inline std::filesystem::path defaultScenarioPath() {
    return assetsDir() / "scenarios" / "default.json";
}

inline std::optional<models::Scenario> loadDefaultScenario() {
    models::Diagnostics errors;
    return models::loadScenarioFile(defaultScenarioPath(), errors);
}

} // namespace choreo::test
