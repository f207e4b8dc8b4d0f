#include "sim/calibrate.h"

#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "models/jsonreader.h"
#include "models/profile.h"
#include "models/scenarioio.h"

#include <iostream>

namespace choreo::cli {

namespace {

namespace fs = std::filesystem;

const Option kQuickOption{"--quick", "", "About a minute of measuring instead of up to ten"};
const Option kGpuExeOption{"--gpu-exe", "PATH",
                           "The GPU tool (default: choreo-calibrate-gpu next to choreo-sim)", "a program"};
const Option kDeviceOption{"--device", "ID",
                           "Maps the profile to this catalog device when its name matches none",
                           "a catalog device id"};
const Option kNameOption{"--name", "NAME", "The profile's name (default: the device's)", "a name"};
const Option kProgressOption{
    "--progress",
    "json",
    "Standard output becomes JSON lines for programs (the desktop's Calibrate action): "
    "{\"type\":\"progress\",\"fraction\":F,\"stage\":TEXT} while measuring, then "
    "{\"type\":\"profile\",\"file\":PATH,\"name\":NAME,\"gpu_measured\":BOOL,\"gpu_message\":TEXT}",
    "a format (json)",
    {},
    [](const std::string& value) {
        return value == "json" ? std::string() : std::string("the only format is \"json\"");
    }};
const Option kGpuMeasurementsOption{
    "--gpu-measurements", "FILE",
    "Fits the document choreo-calibrate-gpu wrote on another machine (a GPU server) instead, measuring "
    "nothing here; the profile then has no CPU part",
    "a file"};
const Option kCpuSizeOption{"--cpu-size",
                            "S",
                            "The CPU benchmarks' size: tiny, quick or full (tiny is for tests)",
                            "a size (tiny, quick or full)",
                            {},
                            [](const std::string& value) {
                                return value == "tiny" || value == "quick" || value == "full"
                                           ? std::string()
                                           : "expected tiny, quick or full, got \"" + value + "\"";
                            }};

// The calibration's options from the command line; nullopt after saying what is wrong (`exit` set).
std::optional<sim::CalibrateOptions> calibrateOptions(const Invocation& call, int& exit) {
    sim::CalibrateOptions options;
    const auto measured = call.value("--gpu-measurements");
    if (measured) {
        std::string text, error;
        if (!models::readTextFile(*measured, text, error)) {
            std::cerr << "choreo-sim: --gpu-measurements: " << error << "\n";
            exit = kExitIo;
            return std::nullopt;
        }
        try {
            options.gpu_document = models::Json::parse(text);
        } catch (const models::Json::parse_error& e) {
            std::cerr << "choreo-sim: --gpu-measurements: " << *measured << " is not JSON: " << e.what()
                      << "\n";
            exit = kExitIo;
            return std::nullopt;
        }
    }
    const auto gpuExe = call.value("--gpu-exe");
    options.quick = call.has("--quick");
    options.cpu_size = call.value("--cpu-size").value_or("");
    options.gpu_tool = gpuExe ? fs::path(*gpuExe) : sim::findGpuTool(call.self);
    options.device = call.value("--device").value_or("");
    options.name = call.value("--name").value_or("");
    options.tool = std::string("choreo-sim ") + CHOREO_VERSION;
    std::error_code ec;
    options.scratch = fs::temp_directory_path(ec);
    if (call.has("--progress"))
        options.progress = [](double fraction, const std::string& stage) {
            std::cout << models::Json{{"type", "progress"}, {"fraction", fraction}, {"stage", stage}}.dump()
                      << std::endl; // flushed: a reader shows it now
        };
    else
        options.progress = [](double, const std::string& stage) {
            std::cerr << "calibrate: " << stage << "\n";
        };
    return options;
}

// Writes the fitted profile and says what was measured.
int writeOutcome(const Invocation& call, const sim::CalibrateOutcome& outcome,
                 const models::Catalog& catalog) {
    const auto out = call.value("--out");
    const fs::path file = out ? fs::path(*out) : fs::path(outcome.profile.name + ".json");
    std::string error;
    if (!models::writeTextFileAtomically(file, models::serializeProfile(outcome.profile), error)) {
        std::cerr << "choreo-sim: " << error << "\n";
        return kExitIo;
    }
    if (call.has("--progress"))
        std::cout << models::Json{{"type", "profile"},
                                  {"file", file.string()},
                                  {"name", outcome.profile.name},
                                  {"gpu_measured", outcome.gpu_measured},
                                  {"gpu_message", outcome.gpu_message}}
                         .dump()
                  << std::endl;
    else
        std::cout << sim::comparisonToText(outcome.profile, catalog) << "\nwrote " << file.string() << "\n";
    if (!outcome.gpu_measured) {
        std::cerr << "choreo-sim: no GPU was measured: " << outcome.gpu_message
                  << "; the CPU part was measured and written to " << file.string() << "\n";
        return kExitNoGpu;
    }
    return kExitOk;
}

int run(const Invocation& call) {
    if (!call.positional.empty())
        return usageError(call, "calibrate takes no arguments");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    if (const auto device = call.value("--device"); device && !catalog->find(*device))
        return usageError(call, "--device: unknown catalog device \"" + *device +
                                    "\" (known: " + catalog->idList() + ")");
    const bool elsewhere = call.has("--gpu-measurements");
    if (elsewhere && (call.has("--gpu-exe") || call.has("--quick") || call.has("--cpu-size")))
        return usageError(call,
                          "--gpu-measurements fits a document measured elsewhere; --gpu-exe, --quick and "
                          "--cpu-size measure this machine");
    int exit = kExitOk;
    const auto options = calibrateOptions(call, exit);
    if (!options)
        return exit;
    std::optional<sim::CalibrateOutcome> fitted;
    try {
        fitted = sim::runCalibration(*options, *catalog);
    } catch (const std::runtime_error& e) {
        if (!elsewhere)
            throw;
        // A document from elsewhere that does not fit is bad input, named with its problems.
        std::cerr << "choreo-sim: --gpu-measurements " << *call.value("--gpu-measurements") << ": "
                  << e.what() << "\n";
        return kExitIo;
    }
    return writeOutcome(call, *fitted, *catalog);
}

} // namespace

const Command kCalibrateCommand{
    "calibrate",
    "",
    "Measure this machine (docs/calibration.md): the GPU through choreo-calibrate-gpu (found next to "
    "choreo-sim, or --gpu-exe), the CPU through its own micro-benchmarks; fit a profile, write it and print "
    "spec sheet against measured. Without a GPU the CPU part is still measured and written, and the exit "
    "code "
    "is 7. A scenario uses a profile through its \"calibration\": {\"profile\": FILE-OR-NAME, \"device\": "
    "ID} "
    "field.",
    {&kQuickOption, &kOutOption, &kGpuExeOption, &kDeviceOption, &kNameOption, &kProgressOption,
     &kGpuMeasurementsOption, &kCpuSizeOption},
    run};

} // namespace choreo::cli
