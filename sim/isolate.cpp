#include "sim/isolate.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <map>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace choreo::sim {

namespace {

void writeAll(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += static_cast<std::size_t>(n);
    }
}

struct Running {
    pid_t pid = -1;
    int fd = -1;
    std::size_t index = 0;
    std::string buffer;
    std::chrono::steady_clock::time_point started;
};

} // namespace

int defaultJobs() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

std::vector<IsolatedOutcome> runIsolated(const std::vector<std::function<std::string()>>& work, int jobs) {
    std::vector<IsolatedOutcome> outcomes(work.size());
    std::map<int, Running> running; // by fd
    std::size_t next = 0;
    if (jobs < 1)
        jobs = 1;

    auto startOne = [&](std::size_t index) {
        int fds[2];
        if (::pipe(fds) != 0) {
            outcomes[index] = {false, std::string("cannot create a pipe: ") + std::strerror(errno), 5};
            return;
        }
        const pid_t pid = ::fork();
        if (pid < 0) {
            ::close(fds[0]);
            ::close(fds[1]);
            outcomes[index] = {false, std::string("cannot fork: ") + std::strerror(errno), 5};
            return;
        }
        if (pid == 0) { // child: run, write, leave without running the parent's atexit handlers
            ::close(fds[0]);
            int code = 0;
            std::string out;
            try {
                out = work[index]();
            } catch (const std::exception& e) {
                out = e.what();
                code = 3;
            } catch (...) {
                out = "unknown error";
                code = 5;
            }
            writeAll(fds[1], out);
            ::close(fds[1]);
            ::_exit(code);
        }
        ::close(fds[1]);
        running[fds[0]] = Running{pid, fds[0], index, {}, std::chrono::steady_clock::now()};
    };

    while (next < work.size() || !running.empty()) {
        while (next < work.size() && static_cast<int>(running.size()) < jobs)
            startOne(next++);
        if (running.empty())
            continue;
        std::vector<pollfd> polls;
        polls.reserve(running.size());
        for (const auto& [fd, r] : running)
            polls.push_back({fd, POLLIN, 0});
        if (::poll(polls.data(), polls.size(), -1) < 0 && errno != EINTR)
            break;
        for (const auto& p : polls) {
            if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            Running& r = running[p.fd];
            char buffer[65536];
            const ssize_t n = ::read(p.fd, buffer, sizeof buffer);
            if (n > 0) {
                r.buffer.append(buffer, static_cast<std::size_t>(n));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            // End of output: reap the child.
            ::close(p.fd);
            int status = 0;
            rusage usage{};
            while (::wait4(r.pid, &status, 0, &usage) < 0 && errno == EINTR) {
            }
            IsolatedOutcome& o = outcomes[r.index];
            o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count();
            o.max_rss_kB = usage.ru_maxrss;
            if (WIFEXITED(status)) {
                o.exit_code = WEXITSTATUS(status);
                o.ok = o.exit_code == 0;
                o.output = std::move(r.buffer);
            } else if (WIFSIGNALED(status)) {
                o.exit_code = 128 + WTERMSIG(status);
                o.ok = false;
                o.output = std::string("the simulation process died of signal ") +
                           std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
            }
            running.erase(p.fd);
        }
    }
    return outcomes;
}

} // namespace choreo::sim
