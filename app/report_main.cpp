// choreo-report: draws what needs Qt for the command line (reports, the validation chart), so that
// choreo-sim, the simulation worker, links no Qt. `choreo-sim report` and `validate --chart` call it.

#include "app/cli/command.h"
#include "models/exitcodes.h"
#include "models/jsonreader.h"
#include "models/scenarioio.h"
#include "ui/reports/reportcommand.h"
#include "ui/reports/validationchartfile.h"

#include <iostream>

namespace {

using namespace choreo;
using namespace choreo::cli;
namespace fs = std::filesystem;

const Option kAssetsOption{"--assets", "DIR", "Choreo's assets folder (default: as choreo-sim finds it)",
                           "a folder"};
const Option kOutOption{"--out",
                        "FILE",
                        "The file to write (.pdf or .html; .svg, .png or .pdf for a chart)",
                        "a file name",
                        {"-o", "--output"}};
const Option kSectionsOption{"--sections", "LIST", "The report's sections, comma-separated (default: all)",
                             "a comma-separated list of report sections"};
const Option kWorkerOption{"--worker", "EXE",
                           "The simulation worker (default: choreo-sim beside this program)", "a program"};

int report(const Invocation& call) {
    const auto out = call.value("--out");
    if (call.positional.size() != 1 || !out)
        return usageError(call, "report needs a SCENARIO file and -o REPORT.pdf (or REPORT.html)");
    const fs::path worker =
        call.value("--worker")
            .value_or((fs::weakly_canonical(call.self).parent_path() / "choreo-sim").string());
    return ui::runReportCommand(call.argc, call.argv, call.positional[0], *out, worker.string(),
                                call.assets.string(), call.value("--sections").value_or(""));
}

// The rows of a chart document as validate --chart writes it; nullopt after saying what is wrong.
std::optional<std::vector<ui::ValidationChartRow>> chartRows(const models::Json& document) {
    std::vector<ui::ValidationChartRow> rows;
    try {
        for (const auto& row : document.at("rows"))
            rows.push_back({row.at("label").get<std::string>(), row.at("group").get<std::string>(),
                            row.at("measured_s").get<double>(), row.at("predicted_s").get<double>(),
                            row.at("range_min_s").get<double>(), row.at("range_max_s").get<double>()});
    } catch (const models::Json::exception& e) {
        std::cerr << "choreo-report: the chart document's rows: " << e.what() << "\n";
        return std::nullopt;
    }
    return rows;
}

int validationChart(const Invocation& call) {
    const auto out = call.value("--out");
    if (call.positional.size() != 1 || !out)
        return usageError(call, "validation-chart needs a chart document and -o CHART.svg|png|pdf");
    std::string text, error;
    if (!models::readTextFile(call.positional[0], text, error)) {
        std::cerr << "choreo-report: " << error << "\n";
        return kExitIo;
    }
    const auto document = models::Json::parse(text, nullptr, false);
    if (document.is_discarded() || !document.is_object()) {
        std::cerr << "choreo-report: " << call.positional[0] << " is not a JSON object\n";
        return kExitInvalidInput;
    }
    const auto rows = chartRows(document);
    if (!rows)
        return kExitInvalidInput;
    const std::string failure =
        ui::writeValidationChart(call.argc, call.argv, *rows, document.value("title", std::string()), *out,
                                 document.value("range_name", std::string()));
    if (!failure.empty()) {
        std::cerr << "choreo-report: " << failure << "\n";
        return kExitIo;
    }
    return kExitOk;
}

const Command kReport{
    "report",
    "SCENARIO",
    "Simulate SCENARIO and a scaling sweep of it in choreo-sim workers and write the report "
    "(PDF, or self-contained HTML when the name ends in .html) and the sweep as CSV next to it.",
    {&kOutOption, &kSectionsOption, &kWorkerOption},
    report,
    {&kOutOption}};

const Command kValidationChart{
    "validation-chart",
    "DOCUMENT",
    "Draw the predicted-vs-measured chart of the document `choreo-sim validate --chart` "
    "writes ({\"title\", \"range_name\", \"rows\": [{\"label\", \"group\", "
    "\"measured_s\", \"predicted_s\", \"range_min_s\", \"range_max_s\"}]}).",
    {&kOutOption},
    validationChart,
    {&kOutOption}};

} // namespace

int main(int argc, char** argv) {
    const Program program{"choreo-report",
                          CHOREO_VERSION,
                          "Draws Choreo's reports and charts for the command line; choreo-sim calls it.",
                          {&kReport, &kValidationChart},
                          {&kAssetsOption}};
    return dispatch(program, argc, argv);
}
