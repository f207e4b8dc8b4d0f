#include "sim/process.h"

#include <cerrno>
#include <cstring>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace choreo::sim {

namespace fs = std::filesystem;

ProgramRun runProgram(const fs::path& exe, const std::vector<std::string>& args, std::chrono::seconds limit) {
    std::vector<std::string> all{exe.string()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(all.size() + 1);
    for (auto& a : all)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ProgramRun run;
    if (const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ); rc != 0) {
        run.error = "cannot start " + exe.string() + ": " + std::strerror(rc);
        return run;
    }
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0) {
            run.error = "waiting for " + exe.filename().string() + " failed: " + std::strerror(errno);
            return run;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            run.error =
                exe.filename().string() + " ran past " + std::to_string(limit.count()) + " s and was stopped";
            return run;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (WIFEXITED(status))
        run.exit_code = WEXITSTATUS(status);
    else
        run.error = exe.filename().string() + " ended by signal " + std::to_string(WTERMSIG(status));
    return run;
}

fs::path siblingProgram(const fs::path& self, const char* name) {
    std::error_code ec;
    const fs::path candidate = fs::weakly_canonical(self, ec).parent_path() / name;
    return fs::is_regular_file(candidate, ec) ? candidate : fs::path();
}

} // namespace choreo::sim
