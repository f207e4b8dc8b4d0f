#pragma once

#include <QProcess>

namespace choreo::ui {

// Makes `process` start in a process group of its own (Unix), so that killProcessGroup reaches whatever it
// starts in turn: the GPU tool under `choreo-sim calibrate`, the confirmations `choreo-sim plan` forks.
void startInOwnProcessGroup(QProcess& process);

// Kills `process` and every process of its group (Unix); elsewhere the process alone. Its finished() follows.
void killProcessGroup(QProcess& process);

} // namespace choreo::ui
