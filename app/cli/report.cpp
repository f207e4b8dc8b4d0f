#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "sim/process.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace choreo::cli {

namespace {

namespace fs = std::filesystem;

const Option kSectionsOption{"--sections", "LIST",
                             "Writes only the listed sections, comma-separated, of: summary, memory, charts, "
                             "timeline, scenario, calibration, sources, sweep (default: all)",
                             "a comma-separated list of report sections"};

// The report is drawn by choreo-report (Qt), the program beside this one; choreo-sim links no Qt. This
// process becomes choreo-report, which runs the simulations in choreo-sim workers.
int run(const Invocation& call) {
    const auto out = call.value("--out");
    if (call.positional.size() != 1)
        return usageError(call, "report needs one SCENARIO file (and -o REPORT.pdf or REPORT.html)");
    const fs::path drawer = sim::siblingProgram(call.self, "choreo-report");
    if (drawer.empty()) {
        std::cerr
            << "choreo-sim: report needs choreo-report next to choreo-sim (built with CHOREO_BUILD_GUI=ON)\n";
        return kExitUsage;
    }
    std::vector<std::string> args{
        drawer.string(),      "report",   call.positional[0], "--out", *out, "--assets",
        call.assets.string(), "--worker", call.self.string()};
    if (const auto sections = call.value("--sections")) {
        args.emplace_back("--sections");
        args.push_back(*sections);
    }
    std::vector<char*> argv;
    for (auto& arg : args)
        argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(drawer.c_str(), argv.data());
    std::cerr << "choreo-sim: cannot start " << drawer.string() << ": " << std::strerror(errno) << "\n";
    return kExitIo;
}

} // namespace

const Command kReportCommand{
    "report",
    "SCENARIO",
    "Simulate SCENARIO and a scaling sweep of it (in worker processes) and write the report (PDF, or "
    "self-contained HTML when the name ends in .html) and the sweep as CSV next to it. Drawn by "
    "choreo-report, "
    "the program beside choreo-sim.",
    {&kOutOption, &kSectionsOption},
    run,
    {&kOutOption}};

} // namespace choreo::cli
