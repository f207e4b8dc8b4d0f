#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace choreo::sim {

// A program run to its end by runProgram.
struct ProgramRun {
    int exit_code = -1; // -1: it could not start, was stopped at its limit, or ended by a signal
    std::string error;  // why exit_code is -1
};

// Runs `exe` with `args`, its standard output and error passed through, and waits for it; stops it
// (SIGKILL) past `limit`. Used for Choreo's sibling programs (choreo-calibrate-gpu, choreo-report).
ProgramRun runProgram(const std::filesystem::path& exe, const std::vector<std::string>& args,
                      std::chrono::seconds limit);

// The program `name` in the same folder as `self` (this program), or an empty path when there is none.
std::filesystem::path siblingProgram(const std::filesystem::path& self, const char* name);

} // namespace choreo::sim
