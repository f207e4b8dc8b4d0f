#pragma once

// Exit codes of Choreo's programs (choreo-sim, its worker mode, choreo-report and choreo-calibrate-gpu) and
// the worker protocol's name: the one place they are declared (docs/protocol.md). Plain C++, no
// dependencies, so that the CUDA calibration program can include it too.

namespace choreo {

enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 1,
    kExitInvalidInput = 2,
    kExitSimulationFailed = 3,
    kExitIo = 4,
    kExitInternal = 5,
    kExitProtocol = 6,
    kExitNoGpu = 7,               // choreo-sim calibrate: no GPU measured; the CPU part was written
    kExitGpuToolNoGpu = 10,       // choreo-calibrate-gpu: no CUDA device or driver, nothing measured
    kExitGpuToolCheckFailed = 11, // choreo-calibrate-gpu: a CUDA error or a failed check, listed
};

struct ExitCodeInfo {
    int code;
    const char* name;    // the worker protocol's "code" ("invalid-input", ...)
    const char* meaning; // for --help
};

// choreo-sim's and choreo-report's codes, in order; --help is written from this table.
inline constexpr ExitCodeInfo kExitCodes[] = {
    {kExitOk, "ok", "ok"},
    {kExitUsage, "usage", "usage"},
    {kExitInvalidInput, "invalid-input", "invalid input"},
    {kExitSimulationFailed, "simulation-failed", "simulation failed"},
    {kExitIo, "io", "file error"},
    {kExitInternal, "internal", "internal error"},
    {kExitProtocol, "protocol", "protocol error"},
    {kExitNoGpu, "no-gpu", "calibrate: no GPU measured (the CPU part was written)"},
};

// The protocol's name for an exit code; "internal" for a code it does not know.
inline const char* exitCodeName(int code) {
    for (const auto& info : kExitCodes)
        if (info.code == code)
            return info.name;
    return "internal";
}

inline constexpr char kWorkerProtocol[] = "choreo-worker/1";

} // namespace choreo
