#pragma once
// Benchmarks of the simulator itself: wall time and peak memory per case (`choreo-sim bench`).

#include "models/catalog.h"
#include "models/jsonreader.h"

#include <string>
#include <vector>

namespace choreo::sim {

struct BenchCase {
    std::string name;
    std::int64_t devices = 0;
    std::string fidelity;
    bool ok = false;
    std::string error;
    double wall_s = 0;      // the whole case, process start to exit (a sweep: all its points)
    double peak_MiB = 0;    // the largest peak resident memory of its processes
    double per_call_s = 0;  // analytical cases: one closed-form estimate
    double platform_s = 0;  // SimGrid platform construction alone (platform cases)
    double step_time_s = 0; // the simulated step (step cases)
    std::int64_t activities = 0;
    std::int64_t candidates = 0;        // plan cases: candidates screened (per_call_s: each)
    int points = 0;                     // sweep cases
    std::vector<BenchCase> point_cases; // sweep cases: each point on its own
};

struct BenchOptions {
    bool packet = false; // also the 1,024-device packet-fidelity case (minutes)
    int jobs = 0;        // sweep parallelism; 0: every core
};

// Runs the benchmark cases, each simulation in its own process.
std::vector<BenchCase> runBenchmarks(const models::Catalog& catalog, const BenchOptions& options);

models::Json benchToJson(const std::vector<BenchCase>& cases);
std::string benchToText(const std::vector<BenchCase>& cases);

} // namespace choreo::sim
