#include "sim/validate.h"

#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "models/scenarioio.h"
#include "models/validationcase.h"
#include "sim/process.h"
#include "sim/validateserving.h"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace choreo::cli {

namespace {

namespace fs = std::filesystem;

const Option kMarkdownOption{"--markdown", "", "A Markdown table (docs/validation.md)"};

const Option kGroupByOption{"--group-by",
                            "G",
                            "Adds the error per group: source, accelerator or model",
                            "a value (source, accelerator or model)",
                            {},
                            [](const std::string& value) {
                                return sim::groupByFromString(value)
                                           ? std::string()
                                           : "unknown grouping \"" + value +
                                                 "\" (known: source, accelerator, model)";
                            }};

const Option kChartOption{
    "--chart", "FILE",
    "Writes predicted vs measured (log-log, diagonal, +-10% band) as .svg, .png or .pdf, "
    "drawn by choreo-report",
    "a file name (.svg, .png or .pdf)"};

const Option kScenariosOption{
    "--scenarios", "DIR",
    "Writes the scenario each row was simulated as to DIR/ID.json (DIR is created), "
    "so that `run` can show where its time goes",
    "a folder"};

const Option kVaryOption{
    "--vary",
    "FIELD=V1,V2,...",
    "Simulates every row again with one field that sources often leave unstated (micro_batch, vp or "
    "recompute) at each value, and shows the range of predictions (with --chart, a bar over each point) and "
    "whether the measured step lies inside it; the scored error stays the row's own",
    "FIELD=V1,V2,... (fields: micro_batch, vp, recompute)",
    {},
    [](const std::string& value) {
        std::string error;
        return sim::parseVariation(value, error) ? std::string() : error;
    }};

const Option kValidateFidelityOption{
    "--fidelity",
    "F",
    "flow (default), packet or analytical, as run's --fidelity; or both: flow, with the closed form's "
    "prediction of every row beside it and how far apart the two levels are",
    "a value (analytical, flow, packet or both)",
    {},
    [](const std::string& value) {
        return value == "both" || sim::fidelityFromString(value)
                   ? std::string()
                   : "unknown level \"" + value + "\" (known: analytical, flow, packet, both)";
    }};

// --fidelity both: the flow level, compared with the closed form.
bool bothLevels(const Invocation& call) {
    return call.value("--fidelity") == "both";
}

// The level the rows are scored at.
sim::Fidelity scoredFidelity(const Invocation& call) {
    return bothLevels(call) ? sim::Fidelity::Flow : fidelityOf(call);
}

// The rows, the title and the legend's range name as the document `choreo-report validation-chart` reads.
models::Json chartDocument(const sim::ValidationReport& report, sim::GroupBy groupBy) {
    models::Json rows = models::Json::array();
    const auto by = groupBy == sim::GroupBy::None ? sim::GroupBy::Accelerator : groupBy;
    for (const auto& row : report.rows)
        if (row.simulated)
            rows.push_back({{"label", row.source.id},
                            {"group", sim::groupKey(row, by)},
                            {"measured_s", row.source.measured_step_time_s},
                            {"predicted_s", row.predicted_step_time_s},
                            {"range_min_s", row.range_min_s},
                            {"range_max_s", row.range_max_s}});
    char title[160];
    std::snprintf(
        title, sizeof title, "Predicted vs measured step time (%s; median |error| %.1f%%, max %.1f%%)",
        report.fidelity.c_str(), report.summary.median_abs_error_pct, report.summary.max_abs_error_pct);
    const std::string rangeName = report.variation ? "range over " + report.variation->field + " " +
                                                         sim::joinedValues(*report.variation)
                                                   : std::string();
    return {{"title", title}, {"range_name", rangeName}, {"rows", rows}};
}

// Draws the chart with `drawer` (choreo-report, the program beside this one that links Qt Charts).
int writeChart(const fs::path& drawer, const models::Json& document, const std::string& chart) {
    std::error_code ec;
    const fs::path spec =
        fs::temp_directory_path(ec) / ("choreo-validation-chart-" + std::to_string(::getpid()) + ".json");
    std::string error;
    if (!models::writeTextFileAtomically(spec, document.dump(), error)) {
        std::cerr << "choreo-sim: --chart: " << error << "\n";
        return kExitIo;
    }
    const auto drawn = sim::runProgram(drawer, {"validation-chart", spec.string(), "--out", chart},
                                       std::chrono::seconds(300));
    fs::remove(spec, ec);
    if (drawn.exit_code != kExitOk) {
        std::cerr << "choreo-sim: --chart: "
                  << (drawn.error.empty()
                          ? "choreo-report failed (exit " + std::to_string(drawn.exit_code) + ")"
                          : drawn.error)
                  << "\n";
        return drawn.exit_code > 0 ? drawn.exit_code : kExitIo;
    }
    return kExitOk;
}

// Writes each simulated row's scenario to folder/ID.json (training and serving rows alike).
template <typename Case>
int writeScenarios(const std::vector<Case>& cases, const fs::path& folder) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
        std::cerr << "choreo-sim: --scenarios: cannot create " << folder.string() << ": " << ec.message()
                  << "\n";
        return kExitIo;
    }
    std::string error;
    for (const auto& c : cases) {
        if (c.skip)
            continue;
        if (!models::saveScenarioFile(folder / (c.id + ".json"), c.scenario, error)) {
            std::cerr << "choreo-sim: --scenarios: " << error << "\n";
            return kExitIo;
        }
    }
    return kExitOk;
}

// The serving file (published-inference.csv): told by its columns; --vary, --group-by and --chart are
// the training file's and are refused.
int runServing(const Invocation& call, const std::string& file, const std::string& text,
               const models::Catalog& catalog) {
    for (const char* option : {"--vary", "--group-by", "--chart"})
        if (call.has(option))
            return usageError(call, std::string(option) + " applies to training validation files only; " +
                                        file + " is a serving file (it has metric, value and output_len)");
    if (bothLevels(call))
        return usageError(call, "--fidelity both applies to training validation files only; " + file +
                                    " is a serving file (it has metric, value and output_len)");
    models::Diagnostics errors;
    const auto cases = models::parseServingCsv(text, catalog, errors);
    if (!errors.empty()) {
        printDiagnostics(file, errors);
        return kExitInvalidInput;
    }
    if (const auto folder = call.value("--scenarios"))
        if (const int written = writeScenarios(cases, *folder); written != kExitOk)
            return written;
    const auto report = sim::validateServingCases(cases, catalog, fidelityOf(call), jobsOf(call));
    if (call.has("--json"))
        std::cout << sim::servingValidationToJson(report).dump(2) << "\n";
    else if (call.has("--markdown"))
        std::cout << sim::servingValidationToMarkdown(report);
    else
        std::cout << sim::servingValidationToText(report);
    return kExitOk;
}

int run(const Invocation& call) {
    if (call.positional.size() != 1)
        return usageError(call, "validate needs exactly one CSV file");
    // The chart's drawer is looked for before anything is simulated.
    const fs::path drawer =
        call.has("--chart") ? sim::siblingProgram(call.self, "choreo-report") : fs::path();
    if (call.has("--chart") && drawer.empty())
        return usageError(call,
                          "--chart needs choreo-report next to choreo-sim (built with CHOREO_BUILD_GUI=ON)");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    const std::string& file = call.positional[0];
    std::string text, error;
    if (!models::readTextFile(file, text, error)) {
        std::cerr << "choreo-sim: " << error << "\n";
        return kExitIo;
    }
    // The serving file is told by its header row.
    if (models::isServingValidationHeader(text.substr(0, text.find('\n'))))
        return runServing(call, file, text, *catalog);
    if (const int joined = joinColumns(call, file, text); joined != kExitOk)
        return joined;
    std::vector<models::ValidationCase> cases;
    if (const int parsed = parseValidationText(file, text, cases); parsed != kExitOk)
        return parsed;
    models::Diagnostics errors;
    if (const auto folder = call.value("--scenarios"))
        if (const int written = writeScenarios(cases, *folder); written != kExitOk)
            return written;
    std::optional<sim::Variation> vary;
    std::vector<std::vector<models::ValidationCase>> variants;
    if (const auto value = call.value("--vary")) {
        vary = sim::parseVariation(*value, error);
        variants = sim::variantCases(text, *vary, errors);
        if (!errors.empty()) {
            printDiagnostics(file + " (--vary " + vary->field + ")", errors);
            return kExitInvalidInput;
        }
    }
    auto report = sim::validateCases(cases, *catalog, scoredFidelity(call), jobsOf(call), vary, variants);
    if (bothLevels(call))
        sim::compareWithAnalytical(
            report, sim::validateCases(cases, *catalog, sim::Fidelity::Analytical, jobsOf(call)));
    const auto groupValue = call.value("--group-by");
    const sim::GroupBy groupBy = groupValue ? *sim::groupByFromString(*groupValue) : sim::GroupBy::None;
    if (call.has("--json"))
        std::cout << sim::validationToJson(report, groupBy).dump(2) << "\n";
    else if (call.has("--markdown"))
        std::cout << sim::validationToMarkdown(report, groupBy);
    else
        std::cout << sim::validationToText(report, groupBy);
    if (const auto chart = call.value("--chart")) {
        if (const int drawn = writeChart(drawer, chartDocument(report, groupBy), *chart); drawn != kExitOk)
            return drawn;
        std::cerr << "chart written to " << *chart << "\n";
    }
    return kExitOk;
}

} // namespace

const Command kValidateCommand{
    "validate",
    "CSV",
    "Simulate each published run of CSV (format: shared/validation/README.md) and compare the predicted with "
    "the measured step time. A serving file (shared/validation/published-inference-README.md, told by its "
    "metric, value and output_len columns) is simulated per row's benchmark and compared per metric. Cases "
    "using something not modelled yet are listed as skipped, with the reason.",
    {&kJsonOption, &kMarkdownOption, &kGroupByOption, &kChartOption, &kValidateFidelityOption, &kJobsOption,
     &kScenariosOption, &kVaryOption, &kJoinOption},
    run};

} // namespace choreo::cli
