#pragma once

#include "models/exitcodes.h" // kWorkerProtocol, the protocol this client speaks

#include <QString>
#include <QStringList>

namespace choreo::ui {

// How to start one worker process: `choreo-sim worker --assets DIR`, or a fake in tests.
struct WorkerCommand {
    QString program;
    QStringList arguments;
};

} // namespace choreo::ui
