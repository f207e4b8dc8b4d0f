#include "app/cli/common.h"

#include "models/exitcodes.h"
#include "models/scenarioio.h"
#include "sim/isolate.h"
#include "sim/validate.h"

#include <iostream>

namespace choreo::cli {

const Option kAssetsOption{
    "--assets", "DIR",
    "Choreo's assets folder (catalog, scenarios); default: $CHOREO_ASSETS, next to the executable, or "
    "the source tree",
    "a folder"};

const Option kJsonOption{"--json", "", "Machine-readable output (JSON)"};

const Option kFidelityOption{
    "--fidelity",
    "F",
    "flow (default): collectives as concurrent flows on the SimGrid platform; packet: every message; "
    "analytical: closed form, no SimGrid (microseconds)",
    "a value (analytical, flow or packet)",
    {},
    [](const std::string& value) {
        return sim::fidelityFromString(value)
                   ? std::string()
                   : "unknown level \"" + value + "\" (known: analytical, flow, packet)";
    }};

const Option kJobsOption{"--jobs",
                         "N",
                         "Simulations at once (default: the number of CPUs)",
                         "a positive number",
                         {},
                         [](const std::string& value) {
                             try {
                                 std::size_t used = 0;
                                 if (std::stoi(value, &used) >= 1 && used == value.size())
                                     return std::string();
                             } catch (const std::exception&) {
                             }
                             return "needs a positive number, got \"" + value + "\"";
                         }};

const Option kOutOption{
    "--out",
    "FILE",
    "The file to write: report, the PDF or HTML (required); calibrate, the profile (default: NAME.json)",
    "a file name",
    {"-o", "--output"}};

std::vector<models::FieldOverride> setOverrides(const Invocation& call) {
    std::vector<models::FieldOverride> overrides;
    for (const auto& assignment : call.values("--set")) {
        std::string error;
        overrides.push_back(*models::parseFieldOverride(assignment, error)); // checked as it was read
    }
    return overrides;
}

int scenarioLoadExit(const models::Diagnostics& errors) {
    return errors.size() == 1 && errors[0].path == "(file)" ? kExitIo : kExitInvalidInput;
}

sim::Fidelity fidelityOf(const Invocation& call) {
    const auto value = call.value("--fidelity");
    return value ? *sim::fidelityFromString(*value) : sim::Fidelity::Flow;
}

int jobsOf(const Invocation& call) {
    const auto value = call.value("--jobs");
    return value ? std::stoi(*value) : sim::defaultJobs();
}

std::optional<models::Catalog> loadCatalog(const std::filesystem::path& assets, std::string& error) {
    models::Diagnostics errors;
    auto catalog = models::Catalog::load(assets / "catalog", errors);
    if (!catalog)
        error = models::joinDiagnostics(errors);
    return catalog;
}

std::optional<models::Catalog> loadCatalogOrSay(const std::filesystem::path& assets) {
    std::string error;
    auto catalog = loadCatalog(assets, error);
    if (!catalog)
        std::cerr << "choreo-sim: the hardware catalog could not be loaded:\n" << error << "\n";
    return catalog;
}

void printDiagnostics(const std::string& file, const models::Diagnostics& errors) {
    for (const auto& d : errors)
        std::cerr << file << ": " << d.text() << "\n";
}

const Option kJoinOption{
    "--join", "CSV",
    "Adds the columns of CSV (an id column, then others) to the rows with the same id, in "
    "each file that lacks them: columns a published file lacks, such as its runs' "
    "framework and framework_version (validation/published-runs-frameworks.csv)",
    "a CSV file"};

int joinColumns(const Invocation& call, const std::string& file, std::string& text) {
    const auto joinFile = call.value("--join");
    if (!joinFile)
        return kExitOk;
    std::string extra, error;
    if (!models::readTextFile(*joinFile, extra, error)) {
        std::cerr << "choreo-sim: " << error << "\n";
        return kExitIo;
    }
    models::Diagnostics errors;
    auto joined = models::joinCsvColumns(text, extra, errors);
    if (!joined) {
        printDiagnostics(file + " --join " + *joinFile, errors);
        return kExitInvalidInput;
    }
    text = std::move(*joined);
    return kExitOk;
}

int readValidationFile(const Invocation& call, const std::string& file, std::string& text,
                       std::vector<models::ValidationCase>& cases) {
    std::string error;
    if (!models::readTextFile(file, text, error)) {
        std::cerr << "choreo-sim: " << error << "\n";
        return kExitIo;
    }
    if (const int joined = joinColumns(call, file, text); joined != kExitOk)
        return joined;
    return parseValidationText(file, text, cases);
}

int parseValidationText(const std::string& file, const std::string& text,
                        std::vector<models::ValidationCase>& cases) {
    models::Diagnostics errors;
    cases = models::parseValidationCsv(text, errors);
    if (!errors.empty()) {
        printDiagnostics(file, errors);
        return kExitInvalidInput;
    }
    return kExitOk;
}

} // namespace choreo::cli
