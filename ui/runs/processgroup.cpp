#include "ui/runs/processgroup.h"

#ifdef Q_OS_UNIX
#include <csignal>
#include <sys/types.h>
#include <unistd.h>
#endif

namespace choreo::ui {

void startInOwnProcessGroup(QProcess& process) {
#ifdef Q_OS_UNIX
    process.setChildProcessModifier([] { ::setpgid(0, 0); });
#else
    Q_UNUSED(process);
#endif
}

void killProcessGroup(QProcess& process) {
#ifdef Q_OS_UNIX
    if (const qint64 pid = process.processId(); pid > 0)
        ::kill(-static_cast<pid_t>(pid), SIGKILL);
#endif
    process.kill();
}

} // namespace choreo::ui
