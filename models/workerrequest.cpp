#include "models/workerrequest.h"

#include "models/calibration.h"
#include "models/exitcodes.h"
#include "models/jsonreader.h"
#include "models/scenarioio.h"

namespace choreo::models {

std::variant<WorkerRequest, WorkerRequestError>
readWorkerRequest(const std::string& text, const Catalog& catalog,
                  const std::vector<std::filesystem::path>& profileFolders) {
    Json request;
    try {
        request = Json::parse(text);
    } catch (const Json::exception& e) { // parse_error, or out_of_range for a number too large
        return WorkerRequestError{kExitProtocol, "the request is not valid JSON: " + jsonErrorText(e), {}};
    }
    Diagnostics problems;
    JsonReader reader(problems);
    if (!reader.expectObject(request, "request"))
        return WorkerRequestError{kExitProtocol, "the request must be a JSON object", problems};
    reader.rejectUnknownKeys(request, "request", {"type", "scenario", "fidelity", "scenario_dir"});
    const auto scenarioDir = reader.text(request, "request", "scenario_dir", false);
    const auto type = reader.text(request, "request", "type");
    auto fidelity = reader.text(request, "request", "fidelity", false);
    if (!problems.empty() || !type || *type != "run" || !request.contains("scenario"))
        return WorkerRequestError{kExitProtocol, "expected {\"type\":\"run\",\"scenario\":{...}}", problems};

    Diagnostics errors;
    auto scenario = readScenarioDocument(request["scenario"], errors);
    if (!scenario)
        return WorkerRequestError{kExitInvalidInput, "the scenario is invalid", errors};
    auto resolved = resolveScenario(*scenario, catalog, errors);
    std::vector<std::filesystem::path> folders;
    if (scenarioDir)
        folders.emplace_back(*scenarioDir);
    folders.insert(folders.end(), profileFolders.begin(), profileFolders.end());
    if (resolved && !applyScenarioCalibration(*resolved, folders, errors))
        resolved.reset();
    if (!resolved)
        return WorkerRequestError{kExitInvalidInput,
                                  errors.empty() ? "the scenario is invalid" : errors.front().text(), errors};
    return WorkerRequest{std::move(*resolved), std::move(fidelity)};
}

} // namespace choreo::models
