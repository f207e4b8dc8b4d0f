#pragma once

#include "models/result.h"
#include "ui/runs/workerfailure.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace choreo::ui {

// What became of one point of a sweep. A failed point stays in the list: "did not fit" is an answer.
struct SweepOutcome {
    enum class State { Pending, Running, Succeeded, Failed, Cancelled };

    QString label;
    std::int64_t devices = 0;
    State state = State::Pending;
    std::optional<models::RunResult> result; // when Succeeded
    std::optional<WorkerFailure> failure;    // when Failed
};

} // namespace choreo::ui
