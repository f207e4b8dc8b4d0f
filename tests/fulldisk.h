#pragma once
// A full disk for the tests, without root or a small file system: while a FullDisk lives, this process may
// not write files past `bytes` (RLIMIT_FSIZE), so writes fail as on a full disk (EFBIG instead of ENOSPC),
// and SIGXFSZ is ignored so the write returns an error instead of killing the process.
#include <csignal>
#include <sys/resource.h>

namespace choreo::testing {

class FullDisk {
public:
    explicit FullDisk(rlim_t bytes) {
        previousHandler_ = std::signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &previous_);
        rlimit limited = previous_;
        limited.rlim_cur = bytes;
        active_ = setrlimit(RLIMIT_FSIZE, &limited) == 0;
    }
    ~FullDisk() {
        setrlimit(RLIMIT_FSIZE, &previous_);
        std::signal(SIGXFSZ, previousHandler_);
    }
    FullDisk(const FullDisk&) = delete;
    FullDisk& operator=(const FullDisk&) = delete;
    // False when the limit could not be set (the test should skip).
    [[nodiscard]] bool active() const { return active_; }

private:
    rlimit previous_{};
    void (*previousHandler_)(int) = SIG_DFL;
    bool active_ = false;
};

} // namespace choreo::testing
