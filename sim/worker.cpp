#include "sim/worker.h"

#include "models/exitcodes.h"
#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/workerrequest.h"
#include "sim/simulator.h"

#include <iostream>
#include <iterator>
#include <sstream>
#include <unistd.h>
#include <variant>

namespace choreo::sim {

namespace {

// A request holds one scenario, a few kilobytes; anything near this is not one.
constexpr std::size_t kMaxRequestBytes = std::size_t(16) << 20;

void send(std::ostream& out, const models::Json& message) {
    out << message.dump() << '\n';
    out.flush();
}

int sendError(std::ostream& out, int exitCode, const std::string& message,
              const models::Diagnostics& diagnostics = {}) {
    models::Json list = models::Json::array();
    for (const auto& d : diagnostics)
        list.push_back(models::Json{{"path", d.path}, {"message", d.message}});
    send(out, models::Json{{"type", "error"},
                           {"code", exitCodeName(exitCode)},
                           {"exit_code", exitCode},
                           {"message", message},
                           {"diagnostics", list}});
    return exitCode;
}

// Reads the whole request, up to kMaxRequestBytes; false when there is more.
bool readRequest(std::istream& in, std::string& text) {
    char piece[1 << 16];
    while (in.read(piece, sizeof piece) || in.gcount() > 0) {
        text.append(piece, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxRequestBytes)
            return false;
    }
    return true;
}

// Reads the request and serves it; every way it can end is a message on `out` and the exit code.
int serveRequest(std::istream& in, std::ostream& out, const models::Catalog* catalog,
                 const std::string& catalogError, const std::vector<std::filesystem::path>& profileFolders) {
    std::string text;
    if (!readRequest(in, text))
        return sendError(out, kExitProtocol,
                         "the request is larger than " + std::to_string(kMaxRequestBytes >> 20) + " MiB");
    if (!catalog)
        return sendError(out, kExitIo, "the hardware catalog could not be loaded: " + catalogError);

    auto read = models::readWorkerRequest(text, *catalog, profileFolders);
    if (auto* refused = std::get_if<models::WorkerRequestError>(&read))
        return sendError(out, refused->exit_code, refused->message, refused->diagnostics);
    auto& request = std::get<models::WorkerRequest>(read);
    SimulationOptions options;
    if (request.fidelity && fidelityFromString(*request.fidelity))
        options.fidelity = *fidelityFromString(*request.fidelity);
    else if (request.fidelity)
        return sendError(out, kExitInvalidInput,
                         "request.fidelity: unknown fidelity \"" + *request.fidelity +
                             "\" (known: analytical, flow, packet)");
    options.progress = [&out](double fraction, const std::string& stage) {
        send(out, models::Json{{"type", "progress"}, {"fraction", fraction}, {"stage", stage}});
    };
    try {
        const auto result = runScenario(request.resolved, options);
        if (const std::string unphysical = models::unphysicalQuantity(result); !unphysical.empty())
            return sendError(out, kExitSimulationFailed, "the result is not physical: " + unphysical);
        send(out, models::Json{{"type", "result"}, {"result", models::resultToJson(result)}});
    } catch (const std::exception& e) {
        return sendError(out, kExitSimulationFailed, e.what());
    }
    return kExitOk;
}

} // namespace

int runWorker(std::istream& in, std::ostream& out, const models::Catalog* catalog,
              const std::string& catalogError, const std::vector<std::filesystem::path>& profileFolders) {
    send(out, models::Json{{"type", "hello"},
                           {"protocol", kWorkerProtocol},
                           {"version", CHOREO_VERSION},
                           {"pid", static_cast<long>(::getpid())}});
    try {
        return serveRequest(in, out, catalog, catalogError, profileFolders);
    } catch (const std::exception& e) { // the client always reads why the worker ended
        return sendError(out, kExitInternal, std::string("internal error: ") + e.what());
    }
}

} // namespace choreo::sim
