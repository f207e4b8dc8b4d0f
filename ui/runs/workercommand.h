#pragma once

#include <QString>
#include <QStringList>

namespace choreo::ui {

// How to start one worker process: `choreo-sim worker --assets DIR`, or a fake in tests.
struct WorkerCommand {
    QString program;
    QStringList arguments;
};

// The worker protocol this client speaks (docs/protocol.md).
inline constexpr char kWorkerProtocol[] = "choreo-worker/1";

} // namespace choreo::ui
