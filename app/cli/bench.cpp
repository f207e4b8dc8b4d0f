#include "sim/bench.h"

#include "app/cli/common.h"
#include "models/exitcodes.h"

#include <iostream>

namespace choreo::cli {

namespace {

const Option kPacketOption{"--packet", "", "Also 1,024 GPUs at packet fidelity (minutes)"};

int run(const Invocation& call) {
    if (!call.positional.empty())
        return usageError(call, "bench takes no arguments");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    const auto jobs = call.value("--jobs");
    const auto cases = sim::runBenchmarks(*catalog, {call.has("--packet"), jobs ? std::stoi(*jobs) : 0});
    if (call.has("--json"))
        std::cout << sim::benchToJson(cases).dump(2) << "\n";
    else
        std::cout << sim::benchToText(cases);
    for (const auto& c : cases)
        if (!c.ok)
            return kExitSimulationFailed;
    return kExitOk;
}

} // namespace

const Command kBenchCommand{
    "bench",
    "",
    "Measure the simulator: platform construction and one step of Llama 3 405B on 16,384 GPUs (ZeRO-1, "
    "fully sharded and context parallel), the closed form, plan's screening rate (candidates a second on one "
    "core), the step beside a data stage on CPUs (16,384 GPUs; 1,024 behind 2:1 leaves), a 12-point scaling "
    "sweep (8 to 16,384 GPUs), a serving stream; with --packet also 1,024 GPUs at packet fidelity (minutes). "
    "Wall time and peak memory per case.",
    {&kJsonOption, &kPacketOption, &kJobsOption},
    run};

} // namespace choreo::cli
