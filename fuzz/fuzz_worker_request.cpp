// The worker protocol's request, on any bytes: the desktop writes it, but the worker reads whatever reaches
// its standard input. Every input must end in a scenario ready to simulate or in an error line's contents
// (a protocol error for a malformed request, invalid input for a bad scenario) with a message, never in a
// crash, a hang or an exception.
#include "models/exitcodes.h"
#include "models/workerrequest.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto read = models::readWorkerRequest(text, fuzz::catalog(), {});
    if (const auto* refused = std::get_if<models::WorkerRequestError>(&read)) {
        if (refused->exit_code != kExitProtocol && refused->exit_code != kExitInvalidInput)
            fuzz::broken("a refused request ends with exit code " + std::to_string(refused->exit_code));
        if (refused->message.empty())
            fuzz::broken("a refused request has no message");
    }
    return 0;
}
