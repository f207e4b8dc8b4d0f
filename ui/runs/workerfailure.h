#pragma once

#include "models/diagnostic.h"
#include "models/result.h"

#include <QMetaType>
#include <QString>

namespace choreo::ui {

// Why a worker conversation ended without a result; a value, safe to queue and keep.
struct WorkerFailure {
    enum class Kind {
        Reported,    // the worker sent an `error` message (invalid input, simulation failed, ...)
        Crashed,     // the process died, or exited without a `result` or an `error`
        Protocol,    // a `hello` of another protocol version, or output that is not the protocol
        StartFailed, // the worker executable could not be started
    };

    Kind kind = Kind::Crashed;
    QString code;      // the protocol's error code ("invalid-input", ...) when Reported
    int exitCode = -1; // the process exit code, or the signal number when bySignal
    bool bySignal = false;
    QString message; // one sentence for the user
    models::Diagnostics diagnostics;
    QString stderrTail; // the last lines the worker logged, shown as details, never parsed

    // The message, then one "path: message" line per diagnostic.
    [[nodiscard]] QString text() const;
};

} // namespace choreo::ui

Q_DECLARE_METATYPE(choreo::models::RunResult)
Q_DECLARE_METATYPE(choreo::ui::WorkerFailure)
