// The scenario reader and resolution, on any bytes: a scenario file is what planners edit by hand and
// colleagues send. Every input must end in a scenario or in diagnostics, never in a crash, a hang or an
// exception; a scenario read must write back to text that reads to the same scenario, and a resolved one
// must hold finite, non-negative memory figures.
#include "models/resolved.h"
#include "models/scenarioio.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace choreo;
    const std::string text(reinterpret_cast<const char*>(data), size);
    models::Diagnostics errors;
    const auto scenario = models::parseScenario(text, errors);
    if (!scenario)
        return 0;
    const std::string written = models::serializeScenario(*scenario);
    models::Diagnostics again;
    const auto reread = models::parseScenario(written, again);
    if (!reread || !(*reread == *scenario))
        fuzz::broken("a scenario read does not read back from its own text: " +
                     models::joinDiagnostics(again));
    const auto resolved = models::resolveScenario(*scenario, fuzz::catalog(), errors);
    if (resolved && (!std::isfinite(resolved->memory.total()) || resolved->memory.total() < 0.0))
        fuzz::broken("a resolved scenario's memory is not a finite, non-negative number");
    return 0;
}
