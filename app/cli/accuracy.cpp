#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "models/scenarioio.h"
#include "models/validationcase.h"
#include "sim/calibrate.h"
#include "sim/validate.h"

#include <iostream>

namespace choreo::cli {

namespace {

int run(const Invocation& call) {
    if (call.positional.empty())
        return usageError(call, "accuracy needs one or more validation CSV files");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    const sim::Fidelity fidelity = fidelityOf(call);
    std::vector<sim::NamedReport> reports;
    std::string command = "choreo-sim accuracy --fidelity " + sim::toString(fidelity);
    if (const auto joinFile = call.value("--join"))
        command += " --join " + std::filesystem::path(*joinFile).filename().string();
    for (const auto& file : call.positional) {
        std::string text;
        std::vector<models::ValidationCase> cases;
        if (const int read = readValidationFile(call, file, text, cases); read != kExitOk)
            return read;
        const std::string name = std::filesystem::path(file).filename().string();
        command += " " + name;
        reports.push_back({name, sim::validateCases(cases, *catalog, fidelity, jobsOf(call))});
    }
    std::cout << sim::accuracyDocument(reports, *catalog, command, sim::utcNow("%Y-%m-%d")).dump(2) << "\n";
    return kExitOk;
}

} // namespace

const Command kAccuracyCommand{
    "accuracy",
    "CSV...",
    "Simulate every row of the validation files and print, per catalog device, how far the predictions were "
    "from the measured step times (rows, rows too fast, median error, the error 90 % of rows are within, the "
    "worst row) as the catalog document that assets/catalog/accuracy.json holds; `run`, the desktop and "
    "reports quote it beside every result on that device (docs/validation.md).",
    {&kFidelityOption, &kJobsOption, &kJoinOption},
    run};

} // namespace choreo::cli
