#include "sim/worker.h"

#include "app/cli/common.h"

#include <iostream>

namespace choreo::cli {

namespace {

int run(const Invocation& call) {
    if (!call.positional.empty())
        return usageError(call, "worker takes no arguments; it reads its request from standard input");
    std::string catalogError;
    auto catalog = loadCatalog(call.assets, catalogError);
    return sim::runWorker(std::cin, std::cout, catalog ? &*catalog : nullptr, catalogError,
                          {call.assets / "calibration"});
}

} // namespace

const Command kWorkerCommand{
    "worker",
    "",
    "Serve one simulation over standard input/output (docs/protocol.md). Used by the "
    "desktop program; logs go to standard error.",
    {},
    run};

} // namespace choreo::cli
