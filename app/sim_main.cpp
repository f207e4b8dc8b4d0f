// choreo-sim: the headless front end. Runs a scenario, validates against published runs, writes a
// report, or serves one simulation as the desktop program's worker (docs/protocol.md).

#include "models/calibration.h"
#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "models/validationcase.h"
#include "sim/bench.h"
#include "sim/calibrate.h"
#include "sim/exitcodes.h"
#include "sim/isolate.h"
#include "sim/simulator.h"
#include "sim/validate.h"
#include "sim/worker.h"

#ifdef CHOREO_HAVE_REPORT
#include "ui/reports/reportcommand.h"
#include "ui/reports/validationchartfile.h"
#endif

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace choreo;
namespace fs = std::filesystem;

constexpr const char* kUsage = R"(Usage: choreo-sim COMMAND [OPTIONS]

Commands:
  run SCENARIO [--json] [--fidelity analytical|flow|packet]
        Simulate one training step of SCENARIO (a choreo-scenario/1 JSON file) and print
        step time, throughput, MFU, time to train, energy, power, cost and memory.
  validate CSV [--json|--markdown] [--group-by source|accelerator|model] [--chart FILE]
               [--fidelity analytical|flow|packet] [--jobs N] [--scenarios DIR]
               [--vary FIELD=V1,V2,...]
        Simulate each published run of CSV (format: shared/validation/README.md) and compare
        the predicted with the measured step time. Cases using something not modelled yet are
        listed as skipped, with the reason. --group-by adds the error per group; --chart
        writes predicted vs measured (log-log, diagonal, +-10% band) as .svg, .png or .pdf.
        --scenarios writes the scenario each row was simulated as to DIR/ID.json (DIR is created),
        so that `run` can show where its time goes. --vary simulates every row again with one
        field that sources often leave unstated (micro_batch, vp or recompute) at each value,
        and shows the range of predictions (with --chart, a bar over each point) and whether the
        measured step lies inside it; the scored error stays the row's own.
  accuracy CSV... [--fidelity analytical|flow|packet] [--jobs N]
        Simulate every row of the validation files and print, per catalog device, how far the
        predictions were from the measured step times (rows, rows too fast, median error, the
        error 90 % of rows are within, the worst row) as the catalog document that
        assets/catalog/accuracy.json holds; `run`, the desktop and reports quote it beside every
        result on that device (docs/validation.md).
  report SCENARIO -o REPORT.pdf|REPORT.html [--sections LIST]
        Simulate SCENARIO and a scaling sweep of it (in worker processes) and write the report
        (PDF, or self-contained HTML when the name ends in .html) and the sweep as CSV next to it.
        --sections writes only the listed sections, comma-separated, of: summary, memory, charts,
        timeline, scenario, calibration, sources, sweep (default: all).
  bench [--json] [--packet] [--jobs N]
        Measure the simulator: platform construction and one step of Llama 3 405B on 16,384
        GPUs, a 12-point scaling sweep (8 to 16,384 GPUs); with --packet also 1,024 GPUs at
        packet fidelity (minutes). Wall time and peak memory per case.
  calibrate [--quick] [--out FILE] [--gpu-exe PATH] [--device ID] [--name NAME] [--progress json]
            [--gpu-measurements FILE]
        Measure this machine (docs/calibration.md): the GPU through choreo-calibrate-gpu (found
        next to choreo-sim, or --gpu-exe), the CPU through its own micro-benchmarks; fit a
        profile, write it (default: NAME.json) and print spec sheet against measured.
        --gpu-measurements fits the document choreo-calibrate-gpu wrote on another machine (a
        GPU server) instead, measuring nothing here; the profile then has no CPU part. --quick
        takes about a minute, the full run up to ten. --device maps the profile to a catalog
        device when its name does not match one. Without a GPU the CPU part is still measured
        and written, and the exit code is 7. A scenario uses a profile through its
        "calibration": {"profile": FILE-OR-NAME, "device": ID} field. --progress json makes
        standard output JSON lines for programs (the desktop's Calibrate action):
        {"type":"progress","fraction":F,"stage":TEXT} while measuring, then
        {"type":"profile","file":PATH,"name":NAME,"gpu_measured":BOOL,"gpu_message":TEXT}.
  worker
        Serve one simulation over standard input/output (docs/protocol.md). Used by the
        desktop program; logs go to standard error.

Options:
  --assets DIR   Choreo's assets folder (catalog, scenarios); default: $CHOREO_ASSETS, next to
                 the executable, or the source tree
  --json         Machine-readable output
  --markdown     validate: a Markdown table (docs/validation.md)
  --fidelity F   flow (default): collectives as concurrent flows on the SimGrid platform;
                 packet: every message; analytical: closed form, no SimGrid (microseconds)
  --jobs N       Simulations at once (validate; default: number of CPUs)
  --cpu-size S   calibrate: CPU benchmark size tiny|quick|full (tiny is for tests)
  -h, --help     This help      --version   Print the version

Exit codes: 0 ok, 1 usage, 2 invalid input, 3 simulation failed, 4 file error, 5 internal error,
6 protocol error, 7 calibrate: no GPU measured (the CPU part was written).
)";

struct Options {
    std::string command;
    std::vector<std::string> positional;
    bool json = false;
    bool markdown = false;
    bool packet = false;
    sim::Fidelity fidelity = sim::Fidelity::Flow;
    std::optional<std::string> assets;
    std::optional<std::string> output;
    int jobs = 0;
    sim::GroupBy groupBy = sim::GroupBy::None;
    std::optional<std::string> chart;
    std::optional<std::string> scenariosDir; // validate: write each case's scenario here
    std::optional<sim::Variation> vary;      // validate: simulate each row at these values too
    bool quick = false;
    std::optional<std::string> gpuExe;
    std::optional<std::string> gpuMeasurements; // calibrate: fit this raw GPU document
    std::optional<std::string> device;
    std::optional<std::string> name;
    std::optional<std::string> cpuSize;
    bool progressJson = false;           // calibrate: JSON-line records on standard output
    std::optional<std::string> sections; // report: comma-separated section keys
};

int usageError(const std::string& message) {
    std::cerr << "choreo-sim: " << message << "\nTry 'choreo-sim --help'.\n";
    return sim::kExitUsage;
}

std::optional<int> parse(int argc, char** argv, Options& o) {
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const char* name) -> std::optional<std::string> {
            // A missing value, or the next option where the value belongs ("--chart --json").
            if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
                return std::nullopt;
            (void)name;
            return args[++i];
        };
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            return sim::kExitOk;
        }
        if (a == "--version") {
            std::cout << "choreo-sim " << CHOREO_VERSION << "\n";
            return sim::kExitOk;
        }
        if (a == "--json") {
            o.json = true;
        } else if (a == "--markdown") {
            o.markdown = true;
        } else if (a == "--packet") {
            o.packet = true;
        } else if (a == "--fidelity") {
            auto v = value("--fidelity");
            if (!v)
                return usageError("--fidelity needs a value (analytical, flow or packet)");
            auto f = sim::fidelityFromString(*v);
            if (!f)
                return usageError("--fidelity: unknown level \"" + *v +
                                  "\" (known: analytical, flow, packet)");
            o.fidelity = *f;
        } else if (a == "--group-by") {
            auto v = value("--group-by");
            if (!v)
                return usageError("--group-by needs a value (source, accelerator or model)");
            auto g = sim::groupByFromString(*v);
            if (!g)
                return usageError("--group-by: unknown grouping \"" + *v +
                                  "\" (known: source, accelerator, model)");
            o.groupBy = *g;
        } else if (a == "--chart") {
            o.chart = value("--chart");
            if (!o.chart)
                return usageError("--chart needs a file name (.svg, .png or .pdf)");
        } else if (a == "--scenarios") {
            o.scenariosDir = value("--scenarios");
            if (!o.scenariosDir)
                return usageError("--scenarios needs a folder");
        } else if (a == "--vary") {
            auto v = value("--vary");
            if (!v)
                return usageError(std::string("--vary needs FIELD=V1,V2,... (fields: ") +
                                  sim::kVariationFields + ")");
            std::string error;
            o.vary = sim::parseVariation(*v, error);
            if (!o.vary)
                return usageError("--vary: " + error);
        } else if (a == "--assets") {
            o.assets = value("--assets");
            if (!o.assets)
                return usageError("--assets needs a folder");
        } else if (a == "--quick") {
            o.quick = true;
        } else if (a == "--gpu-exe" || a == "--device" || a == "--name" || a == "--cpu-size" ||
                   a == "--gpu-measurements") {
            auto v = value(a.c_str());
            if (!v)
                return usageError(a + " needs a value");
            (a == "--gpu-exe"            ? o.gpuExe
             : a == "--device"           ? o.device
             : a == "--name"             ? o.name
             : a == "--gpu-measurements" ? o.gpuMeasurements
                                         : o.cpuSize) = v;
            if (a == "--cpu-size" && *v != "tiny" && *v != "quick" && *v != "full")
                return usageError("--cpu-size: expected tiny, quick or full, got \"" + *v + "\"");
        } else if (a == "--sections") {
            o.sections = value("--sections");
            if (!o.sections)
                return usageError("--sections needs a comma-separated list of report sections");
        } else if (a == "--progress") {
            auto v = value("--progress");
            if (!v || *v != "json")
                return usageError("--progress: the only format is \"json\"");
            o.progressJson = true;
        } else if (a == "-o" || a == "--output" || a == "--out") {
            o.output = value("-o");
            if (!o.output)
                return usageError("-o needs a file name");
        } else if (a == "--jobs") {
            auto v = value("--jobs");
            try {
                o.jobs = v ? std::stoi(*v) : 0;
            } catch (const std::exception&) {
                o.jobs = 0;
            }
            if (o.jobs < 1)
                return usageError("--jobs needs a positive number");
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("unknown option " + a);
        } else if (o.command.empty()) {
            o.command = a;
        } else {
            o.positional.push_back(a);
        }
    }
    if (o.command.empty()) {
        std::cerr << kUsage;
        return sim::kExitUsage;
    }
    return std::nullopt;
}

std::optional<models::Catalog> loadCatalog(const fs::path& assets, std::string& error) {
    models::Diagnostics errors;
    auto catalog = models::Catalog::load(assets / "catalog", errors);
    if (!catalog)
        error = models::joinDiagnostics(errors);
    return catalog;
}

// The catalog, or nullopt after saying why on standard error.
std::optional<models::Catalog> loadCatalogOrSay(const fs::path& assets) {
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

std::string fmt(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

void printText(const models::RunResult& r) {
    std::cout << "scenario            " << r.scenario << "\n"
              << "devices             " << r.devices << " x " << r.device << "\n"
              << "fidelity            " << r.fidelity << "\n"
              << "calibration         " << r.calibration << "\n"
              << "accuracy            " << r.accuracy << "\n"
              << "step time           " << fmt("%.3f s", r.step_time_s) << "  (compute "
              << fmt("%.3f", r.breakdown.compute_s) << ", exposed communication "
              << fmt("%.3f", r.breakdown.exposed_communication_s) << ", pipeline bubble "
              << fmt("%.3f", r.breakdown.pipeline_bubble_s) << ")\n";
    if (const auto& cs = r.compute_split; cs.total() > 0) {
        std::cout << "compute by kind     " << fmt("GEMM %.3f s", cs.gemm_s)
                  << fmt(", attention %.3f", cs.attention_s) << fmt(", memory-bound %.3f", cs.memory_bound_s)
                  << fmt(", optimizer %.3f", cs.optimizer_s)
                  << (cs.offload_wait_s > 0.0 ? fmt(", offload wait %.3f", cs.offload_wait_s) : std::string())
                  << "  (pipeline stage " << cs.stage << ", the busiest; from the step model)\n";
        // What that stage's device waits for besides its own computation, as simulated: the exposed part
        // of each kind of communication and the pipeline's idle time (its timeline's totals, which the
        // size bound does not fold). The step line's split is the critical path's, which may run on
        // another stage.
        for (const auto& st : r.timeline.stages) {
            if (st.stage != cs.stage)
                continue;
            using models::ActivityKind;
            std::cout << "waiting by kind     "
                      << fmt("tensor, context and expert collectives %.3f s",
                             st.total_s(ActivityKind::TensorComm))
                      << fmt(", data-parallel %.3f", st.total_s(ActivityKind::DataComm))
                      << fmt(", pipeline transfers %.3f", st.total_s(ActivityKind::PipelineComm))
                      << fmt(", bubble %.3f", st.total_s(ActivityKind::Bubble)) << "  (pipeline stage "
                      << st.stage << ", from its timeline)\n";
        }
    }
    std::cout << "throughput          " << fmt("%.0f tokens/s", r.tokens_per_s) << "\n"
              << "MFU                 " << fmt("%.1f %%", 100.0 * r.mfu) << "  ("
              << fmt("%.0f TFLOP/s per device", r.achieved_tflops_per_device) << ")\n"
              << "time to train       " << fmt("%.1f days", r.time_to_train_s / 86400.0) << "  ("
              << fmt("%.0f steps", r.steps) << ")\n"
              << "energy              " << fmt("%.0f MWh", r.energy_kWh / 1000.0) << " at the facility\n"
              << "average power       " << fmt("%.0f kW", r.average_power_kW) << " (IT "
              << fmt("%.0f kW", r.it_power_kW) << ")\n"
              << "cost                " << fmt("$%.0f", r.cost_usd) << " (" << r.cost_mode << ")\n"
              << "memory per device   " << fmt("%.1f GB", r.memory_per_device_GB) << "  ("
              << r.memory.describe() << ")\n";
    const auto& t = r.topology;
    std::cout << "network             " << t.kind
              << (t.tiers > 0 ? ", " + std::to_string(t.tiers) + " tiers" : "") << ", scale-up " << t.scale_up
              << ": bisection " << fmt("%.0f GB/s", t.bisection_GBps) << ", diameter " << t.diameter_hops
              << " hops, " << t.switches << " switches + " << t.scale_up_switches << " scale-up, " << t.nics
              << " NICs, " << t.cables << " cables + " << t.scale_up_links << " scale-up links\n";
}

int commandRun(const Options& o, const fs::path& assets) {
    if (o.positional.size() != 1)
        return usageError("run needs exactly one SCENARIO file");
    auto catalog = loadCatalogOrSay(assets);
    if (!catalog)
        return sim::kExitIo;
    const std::string& file = o.positional[0];
    models::Diagnostics errors;
    auto scenario = models::loadScenarioFile(file, errors);
    if (!scenario) {
        printDiagnostics(file, errors);
        return errors.size() == 1 && errors[0].path == "(file)" ? sim::kExitIo : sim::kExitInvalidInput;
    }
    auto resolved = models::resolveScenario(*scenario, *catalog, errors);
    // A calibration profile is looked up next to the scenario, then in the assets.
    if (resolved && !models::applyScenarioCalibration(
                        *resolved, {fs::absolute(file).parent_path(), assets / "calibration"}, errors))
        resolved.reset();
    if (!resolved) {
        printDiagnostics(file, errors);
        return sim::kExitInvalidInput;
    }
    sim::SimulationOptions options;
    options.fidelity = o.fidelity;
    try {
        const auto result = sim::runScenario(*resolved, options);
        if (o.json)
            std::cout << models::resultToJson(result).dump(2) << "\n";
        else
            printText(result);
    } catch (const std::exception& e) {
        std::cerr << "choreo-sim: simulation failed: " << e.what() << "\n";
        return sim::kExitSimulationFailed;
    }
    return sim::kExitOk;
}

int commandValidate(int argc, char** argv, const Options& o, const fs::path& assets) {
    if (o.positional.size() != 1)
        return usageError("validate needs exactly one CSV file");
    auto catalog = loadCatalogOrSay(assets);
    if (!catalog)
        return sim::kExitIo;
    std::string text, error;
    if (!models::readTextFile(o.positional[0], text, error)) {
        std::cerr << "choreo-sim: " << error << "\n";
        return sim::kExitIo;
    }
    models::Diagnostics errors;
    const auto cases = models::parseValidationCsv(text, errors);
    if (!errors.empty()) {
        printDiagnostics(o.positional[0], errors);
        return sim::kExitInvalidInput;
    }
    if (o.scenariosDir) {
        std::error_code ec;
        fs::create_directories(*o.scenariosDir, ec);
        if (ec) {
            std::cerr << "choreo-sim: --scenarios: cannot create " << *o.scenariosDir << ": " << ec.message()
                      << "\n";
            return sim::kExitIo;
        }
        for (const auto& c : cases) {
            if (c.skip)
                continue;
            const fs::path file = fs::path(*o.scenariosDir) / (c.id + ".json");
            if (!models::saveScenarioFile(file, c.scenario, error)) {
                std::cerr << "choreo-sim: --scenarios: " << error << "\n";
                return sim::kExitIo;
            }
        }
    }
    std::vector<std::vector<models::ValidationCase>> variants;
    if (o.vary) {
        variants = sim::variantCases(text, *o.vary, errors);
        if (!errors.empty()) {
            printDiagnostics(o.positional[0] + " (--vary " + o.vary->field + ")", errors);
            return sim::kExitInvalidInput;
        }
    }
    const auto report = sim::validateCases(cases, *catalog, o.fidelity,
                                           o.jobs > 0 ? o.jobs : sim::defaultJobs(), o.vary, variants);
    if (o.json)
        std::cout << sim::validationToJson(report, o.groupBy).dump(2) << "\n";
    else if (o.markdown)
        std::cout << sim::validationToMarkdown(report, o.groupBy);
    else
        std::cout << sim::validationToText(report, o.groupBy);
    if (o.chart) {
#ifdef CHOREO_HAVE_REPORT
        std::vector<ui::ValidationChartRow> rows;
        const auto by = o.groupBy == sim::GroupBy::None ? sim::GroupBy::Accelerator : o.groupBy;
        for (const auto& row : report.rows)
            if (row.simulated)
                rows.push_back({row.source.id, sim::groupKey(row, by), row.source.measured_step_time_s,
                                row.predicted_step_time_s, row.range_min_s, row.range_max_s});
        char title[160];
        std::snprintf(
            title, sizeof title, "Predicted vs measured step time (%s; median |error| %.1f%%, max %.1f%%)",
            report.fidelity.c_str(), report.summary.median_abs_error_pct, report.summary.max_abs_error_pct);
        const std::string rangeName = report.variation ? "range over " + report.variation->field + " " +
                                                             sim::joinedValues(*report.variation)
                                                       : std::string();
        if (auto failure = ui::writeValidationChart(argc, argv, rows, title, *o.chart, rangeName);
            !failure.empty()) {
            std::cerr << "choreo-sim: --chart: " << failure << "\n";
            return sim::kExitIo;
        }
        std::cerr << "chart written to " << *o.chart << "\n";
#else
        (void)argc;
        (void)argv;
        std::cerr << "choreo-sim: --chart needs the Qt report library (built with CHOREO_BUILD_GUI=ON)\n";
        return sim::kExitUsage;
#endif
    }
    return sim::kExitOk;
}

int commandAccuracy(const Options& o, const fs::path& assets) {
    if (o.positional.empty())
        return usageError("accuracy needs one or more validation CSV files");
    auto catalog = loadCatalogOrSay(assets);
    if (!catalog)
        return sim::kExitIo;
    std::vector<sim::NamedReport> reports;
    std::string command = "choreo-sim accuracy --fidelity " + sim::toString(o.fidelity);
    for (const auto& file : o.positional) {
        std::string text, error;
        if (!models::readTextFile(file, text, error)) {
            std::cerr << "choreo-sim: " << error << "\n";
            return sim::kExitIo;
        }
        models::Diagnostics errors;
        const auto cases = models::parseValidationCsv(text, errors);
        if (!errors.empty()) {
            printDiagnostics(file, errors);
            return sim::kExitInvalidInput;
        }
        const std::string name = fs::path(file).filename().string();
        command += " " + name;
        reports.push_back({name, sim::validateCases(cases, *catalog, o.fidelity,
                                                    o.jobs > 0 ? o.jobs : sim::defaultJobs())});
    }
    std::cout << sim::accuracyDocument(reports, *catalog, command, sim::utcNow("%Y-%m-%d")).dump(2) << "\n";
    return sim::kExitOk;
}

int commandReport(int argc, char** argv, const Options& o, const fs::path& assets) {
    if (o.positional.size() != 1 || !o.output)
        return usageError("report needs a SCENARIO file and -o REPORT.pdf (or REPORT.html)");
#ifdef CHOREO_HAVE_REPORT
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        self = fs::absolute(argv[0]);
    return ui::runReportCommand(argc, argv, o.positional[0], *o.output, self.string(), assets.string(),
                                o.sections.value_or(std::string()));
#else
    (void)argc;
    (void)argv;
    (void)assets;
    std::cerr << "choreo-sim: this build has no report support (built without Qt)\n";
    return sim::kExitUsage;
#endif
}

int commandBench(const Options& o, const fs::path& assets) {
    if (!o.positional.empty())
        return usageError("bench takes no arguments");
    auto catalog = loadCatalogOrSay(assets);
    if (!catalog)
        return sim::kExitIo;
    const auto cases = sim::runBenchmarks(*catalog, {o.packet, o.jobs});
    if (o.json)
        std::cout << sim::benchToJson(cases).dump(2) << "\n";
    else
        std::cout << sim::benchToText(cases);
    for (const auto& c : cases)
        if (!c.ok)
            return sim::kExitSimulationFailed;
    return sim::kExitOk;
}

int commandCalibrate(const Options& o, const fs::path& assets, const char* argv0) {
    if (!o.positional.empty())
        return usageError("calibrate takes no arguments");
    auto catalog = loadCatalogOrSay(assets);
    if (!catalog)
        return sim::kExitIo;
    if (o.device && !catalog->find(*o.device))
        return usageError("--device: unknown catalog device \"" + *o.device +
                          "\" (known: " + catalog->idList() + ")");
    if (o.gpuMeasurements && (o.gpuExe || o.quick || o.cpuSize))
        return usageError("--gpu-measurements fits a document measured elsewhere; --gpu-exe, --quick and "
                          "--cpu-size measure this machine");
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        self = fs::absolute(argv0);
    sim::CalibrateOptions options;
    if (o.gpuMeasurements) {
        std::string text, error;
        if (!models::readTextFile(*o.gpuMeasurements, text, error)) {
            std::cerr << "choreo-sim: --gpu-measurements: " << error << "\n";
            return sim::kExitIo;
        }
        try {
            options.gpu_document = models::Json::parse(text);
        } catch (const models::Json::parse_error& e) {
            std::cerr << "choreo-sim: --gpu-measurements: " << *o.gpuMeasurements
                      << " is not JSON: " << e.what() << "\n";
            return sim::kExitIo;
        }
    }
    options.quick = o.quick;
    options.cpu_size = o.cpuSize.value_or("");
    options.gpu_tool = o.gpuExe ? fs::path(*o.gpuExe) : sim::findGpuTool(self);
    options.device = o.device.value_or("");
    options.name = o.name.value_or("");
    options.tool = std::string("choreo-sim ") + CHOREO_VERSION;
    options.scratch = fs::temp_directory_path(ec);
    if (o.progressJson)
        options.progress = [](double fraction, const std::string& stage) {
            std::cout << models::Json{{"type", "progress"}, {"fraction", fraction}, {"stage", stage}}.dump()
                      << std::endl; // flushed: a reader shows it now
        };
    else
        options.progress = [](double, const std::string& stage) {
            std::cerr << "calibrate: " << stage << "\n";
        };
    std::optional<sim::CalibrateOutcome> fitted;
    try {
        fitted = sim::runCalibration(options, *catalog);
    } catch (const std::runtime_error& e) {
        if (!o.gpuMeasurements)
            throw;
        // A document from elsewhere that does not fit is bad input, named with its problems.
        std::cerr << "choreo-sim: --gpu-measurements " << *o.gpuMeasurements << ": " << e.what() << "\n";
        return sim::kExitIo;
    }
    const sim::CalibrateOutcome& outcome = *fitted;
    const fs::path file = o.output ? fs::path(*o.output) : fs::path(outcome.profile.name + ".json");
    std::string error;
    if (!models::writeTextFileAtomically(file, models::serializeProfile(outcome.profile), error)) {
        std::cerr << "choreo-sim: " << error << "\n";
        return sim::kExitIo;
    }
    if (o.progressJson)
        std::cout << models::Json{{"type", "profile"},
                                  {"file", file.string()},
                                  {"name", outcome.profile.name},
                                  {"gpu_measured", outcome.gpu_measured},
                                  {"gpu_message", outcome.gpu_message}}
                         .dump()
                  << std::endl;
    else
        std::cout << sim::comparisonToText(outcome.profile, *catalog) << "\nwrote " << file.string() << "\n";
    if (!outcome.gpu_measured) {
        std::cerr << "choreo-sim: no GPU was measured: " << outcome.gpu_message
                  << "; the CPU part was measured and written to " << file.string() << "\n";
        return sim::kExitNoGpu;
    }
    return sim::kExitOk;
}

int commandWorker(const Options& o, const fs::path& assets) {
    if (!o.positional.empty())
        return usageError("worker takes no arguments; it reads its request from standard input");
    std::string catalogError;
    auto catalog = loadCatalog(assets, catalogError);
    return sim::runWorker(std::cin, std::cout, catalog ? &*catalog : nullptr, catalogError,
                          {assets / "calibration"});
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (auto exit = parse(argc, argv, o))
        return *exit;
    const fs::path assets = o.assets ? fs::path(*o.assets) : models::locateAssets(argv[0]);
    try {
        if (o.command == "run")
            return commandRun(o, assets);
        if (o.command == "validate")
            return commandValidate(argc, argv, o, assets);
        if (o.command == "accuracy")
            return commandAccuracy(o, assets);
        if (o.command == "report")
            return commandReport(argc, argv, o, assets);
        if (o.command == "worker")
            return commandWorker(o, assets);
        if (o.command == "bench")
            return commandBench(o, assets);
        if (o.command == "calibrate")
            return commandCalibrate(o, assets, argv[0]);
        if (o.command == "help") {
            std::cout << kUsage;
            return sim::kExitOk;
        }
    } catch (const std::exception& e) {
        std::cerr << "choreo-sim: internal error: " << e.what() << "\n";
        return sim::kExitInternal;
    }
    return usageError("unknown command \"" + o.command + "\"");
}
