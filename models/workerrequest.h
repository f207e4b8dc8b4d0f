#pragma once

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/resolved.h"

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace choreo::models {

// A worker's request (docs/protocol.md), read and resolved: the scenario ready to simulate and the fidelity
// it names (checked by the simulator, which knows the levels).
struct WorkerRequest {
    ResolvedScenario resolved;
    std::optional<std::string> fidelity;
};

// Why a request cannot be served: the exit code (kExitProtocol for a malformed request, kExitInvalidInput
// for an invalid scenario), the message of the error line, and the paths it names.
struct WorkerRequestError {
    int exit_code = 0;
    std::string message;
    Diagnostics diagnostics;
};

// Reads a request's text: JSON {"type":"run","scenario":{...},"fidelity":"...","scenario_dir":"..."}; the
// scenario's calibration profile is looked up in scenario_dir, then in `profileFolders`. Never throws on any
// text (fuzz/fuzz_worker_request.cpp).
std::variant<WorkerRequest, WorkerRequestError>
readWorkerRequest(const std::string& text, const Catalog& catalog,
                  const std::vector<std::filesystem::path>& profileFolders);

} // namespace choreo::models
