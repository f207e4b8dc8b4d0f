#pragma once

namespace choreo::sim {

// Exit codes of choreo-sim and of its worker mode (docs/protocol.md).
enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 1,
    kExitInvalidInput = 2,
    kExitSimulationFailed = 3,
    kExitIo = 4,
    kExitInternal = 5,
    kExitProtocol = 6,
    kExitNoGpu = 7, // calibrate: no GPU could be measured; the CPU part was measured and written
};

// The protocol's name for an exit code ("invalid-input", ...).
inline const char* exitCodeName(int code) {
    switch (code) {
    case kExitOk:
        return "ok";
    case kExitUsage:
        return "usage";
    case kExitInvalidInput:
        return "invalid-input";
    case kExitSimulationFailed:
        return "simulation-failed";
    case kExitIo:
        return "io";
    case kExitProtocol:
        return "protocol";
    case kExitNoGpu:
        return "no-gpu";
    default:
        return "internal";
    }
}

inline constexpr const char* kWorkerProtocol = "choreo-worker/1";

} // namespace choreo::sim
