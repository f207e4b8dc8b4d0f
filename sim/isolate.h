#pragma once

#include <functional>
#include <string>
#include <vector>

namespace choreo::sim {

// What one isolated job produced.
struct IsolatedOutcome {
    bool ok = false;     // the job returned normally
    std::string output;  // what it returned (ok) or its error message (not ok)
    int exit_code = 0;   // the child's exit code, or 128 + signal when it died of one
    double wall_s = 0;   // from fork to exit
    long max_rss_kB = 0; // the child's peak resident memory
};

// Runs each job in a forked child process, at most `jobs` at a time, so that one simulation's
// process-wide SimGrid state, abort or crash never reaches the caller or the next job. A job returns
// its output; an exception becomes `ok == false` with the exception's message (exit code 3).
// Outcomes are returned in the order of `work`.
std::vector<IsolatedOutcome> runIsolated(const std::vector<std::function<std::string()>>& work, int jobs);

// The number of jobs to run at once by default: the number of online CPUs (at least 1).
int defaultJobs();

} // namespace choreo::sim
