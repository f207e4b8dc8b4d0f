#pragma once

// A step timeline and power trace for ui tests, without a worker: a uniform pipeline of `stages` stages and
// `micro` micro-batches laid out by hand, finished into a RunResult against the example scenario.
#include "models/resolved.h"
#include "models/result.h"

#include <stdexcept>

#include "tests/ui/testsupport.h"

namespace choreo::test {

inline models::StepTimeline cannedTimeline(std::int64_t stages, std::int64_t micro) {
    using K = models::ActivityKind;
    const double f = 0.010, b = 0.020, tensor = 0.002, optimizer = 0.005;
    models::StepTimeline t;
    t.step_time_s = static_cast<double>(micro + stages - 1) * (f + b + 2 * tensor) + optimizer + 0.004;
    for (std::int64_t s = 0; s < stages; ++s) {
        std::vector<models::TimelineSpan> spans;
        for (std::int64_t m = 0; m < micro; ++m) {
            const double fs = static_cast<double>(s + m) * (f + tensor);
            spans.push_back({K::Forward, 0, m, -1, fs, fs + f});
            spans.push_back({K::TensorComm, 2, m, -1, fs + f, fs + f + tensor});
            const double bs = static_cast<double>(micro + stages - 1) * (f + tensor) +
                              static_cast<double>(stages - 1 - s + m) * (b + tensor);
            spans.push_back({K::Recompute, 0, m, -1, bs, bs + 0.25 * b});
            spans.push_back({K::Backward, 0, m, -1, bs + 0.25 * b, bs + b});
            spans.push_back({K::PipelineComm, 3, m, -1, bs + b, bs + b + tensor});
        }
        const double end = static_cast<double>(micro + stages - 1) * (f + b + 2 * tensor);
        spans.push_back({K::DataComm, 4, -1, -1, end, end + 0.004});
        spans.push_back({K::Optimizer, 0, -1, -1, end + 0.004, end + 0.004 + optimizer});
        t.stages.push_back(models::partitionStage(s, 16, spans, t.step_time_s, 4096));
    }
    return t;
}

// The example scenario's result with a canned step: timeline and power trace filled in.
inline models::RunResult cannedStepResult(std::int64_t stages, std::int64_t micro) {
    const auto catalog = loadCatalog();
    const auto scenario = loadDefaultScenario();
    models::Diagnostics errors;
    const auto rs = catalog && scenario ? models::resolveScenario(*scenario, *catalog, errors) : std::nullopt;
    if (!rs)
        throw std::runtime_error("the example scenario does not resolve");
    models::StepMeasurement m;
    m.timeline = cannedTimeline(stages, micro);
    m.step_time_s = m.timeline.step_time_s;
    m.it_energy_per_step_J = models::powerTrace(*rs, m.timeline).itEnergy_J();
    m.fidelity = "flow";
    return models::finishResult(*rs, m);
}

} // namespace choreo::test
