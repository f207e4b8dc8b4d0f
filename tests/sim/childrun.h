#pragma once
// Shared by the sim tests that simulate whole scenarios: one run in a forked child (one SimGrid engine per
// process), its result read back as the CLI's JSON.

#include "models/resolved.h"
#include "models/result.h"
#include "sim/isolate.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace choreo::test {

// `scenario` simulated at `fidelity` in a child process; throws with the child's output when it fails.
inline models::RunResult runInChild(const models::ResolvedScenario& scenario, sim::Fidelity fidelity) {
    const auto jobs =
        sim::runIsolated({[&] {
                             return models::resultToJson(sim::runScenario(scenario, {fidelity, {}})).dump();
                         }},
                         1);
    if (!jobs.front().ok)
        throw std::runtime_error(jobs.front().output);
    models::Diagnostics errors;
    auto result = models::resultFromJson(models::Json::parse(jobs.front().output), errors);
    if (!result)
        throw std::runtime_error(models::joinDiagnostics(errors));
    return std::move(*result);
}

// |a - b| / |b|.
inline double relative(double a, double b) {
    return std::fabs(a - b) / std::max(std::fabs(b), 1e-30);
}

} // namespace choreo::test
