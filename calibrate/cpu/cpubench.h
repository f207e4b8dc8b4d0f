#pragma once

#include "models/profilefit.h"

#include <functional>
#include <string>

namespace choreo::calibrate {

enum class CpuBenchSize {
    Tiny,  // tests: well under a second
    Quick, // choreo-sim calibrate --quick: a few seconds
    Full,  // up to a minute
};

struct CpuBenchOptions {
    CpuBenchSize size = CpuBenchSize::Quick;
    int threads = 0; // 0: every hardware thread
    // Called with the fraction done and what runs next; may be empty.
    std::function<void(double fraction, const std::string& stage)> progress;
};

// Runs the CPU micro-benchmarks: matrix multiply through OpenBLAS (fp32, fp64; absent without it),
// a STREAM-like triad on all cores, and a tokenizer over text-like bytes on all cores. Each figure is the
// median of repeats after a warm-up, on pseudo-random data, checked against a reference; a failed check
// drops the figure and says so in `failures`. Deterministic inputs (fixed seeds).
models::CpuMeasurements runCpuBenchmarks(const CpuBenchOptions& options);

// "OpenBLAS 0.3.21" when built with it, else "".
std::string blasName();

} // namespace choreo::calibrate
