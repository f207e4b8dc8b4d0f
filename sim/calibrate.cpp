#include "sim/calibrate.h"

#include "models/exitcodes.h"
#include "models/profilefit.h"
#include "models/scenarioio.h"
#include "sim/process.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <unistd.h>

#include "calibrate/cpu/cpubench.h"

namespace choreo::sim {

namespace fs = std::filesystem;

namespace {

// Lower case, letters, digits and dashes only: a profile name that is also a file name.
std::string slug(const std::string& text) {
    std::string out;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u))
            out += static_cast<char>(std::tolower(u));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out.empty() ? std::string("device") : out;
}

} // namespace

std::string utcNow(const char* format) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, format, &tm);
    return buffer;
}

fs::path findGpuTool(const fs::path& self) {
    return siblingProgram(self, "choreo-calibrate-gpu");
}

CalibrateOutcome runCalibration(const CalibrateOptions& o, const models::Catalog& catalog) {
    // The GPU part, when there is a tool to run, takes the first half of the progress bar.
    double cpuStart = 0.0;
    auto say = [&](double fraction, const std::string& stage) {
        if (o.progress)
            o.progress(fraction, stage);
    };
    models::CalibrationInputs in;
    in.date = utcNow();
    in.tool = o.tool;
    in.mode = o.quick ? "quick" : "full";
    in.device = o.device;

    // GPU part: a separate program, so that this one never links CUDA.
    std::error_code ec;
    if (o.gpu_document) {
        in.gpu = *o.gpu_document;
        const models::Json& doc = *o.gpu_document;
        if (auto it = doc.find("date"); it != doc.end() && it->is_string())
            in.date = it->get<std::string>();
        if (auto it = doc.find("mode"); it != doc.end() && it->is_string())
            in.mode = it->get<std::string>();
    } else if (o.gpu_tool.empty() || !fs::is_regular_file(o.gpu_tool, ec)) {
        in.gpu_absent_reason = o.gpu_tool.empty()
                                   ? "this build has no choreo-calibrate-gpu (built without the CUDA toolkit)"
                                   : "choreo-calibrate-gpu not found at " + o.gpu_tool.string();
    } else {
        const fs::path raw = o.scratch / ("choreo-gpu-measurements-" + std::to_string(::getpid()) + ".json");
        cpuStart = 0.5;
        say(0.0, "GPU: running " + o.gpu_tool.string());
        std::vector<std::string> args{"--out", raw.string()};
        if (o.quick)
            args.emplace_back("--quick");
        const ProgramRun run = runProgram(o.gpu_tool, args, std::chrono::seconds(o.quick ? 120 : 900));
        std::string text, error;
        if (run.exit_code == kExitGpuToolNoGpu) {
            in.gpu_absent_reason = "no CUDA-capable GPU or driver found";
        } else if (run.exit_code < 0) {
            in.gpu_absent_reason = run.error;
        } else if (!models::readTextFile(raw, text, error)) {
            in.gpu_absent_reason = "choreo-calibrate-gpu exited with " + std::to_string(run.exit_code) +
                                   " and wrote no measurements";
        } else {
            try {
                in.gpu = models::Json::parse(text);
            } catch (const models::Json::parse_error& e) {
                in.gpu_absent_reason = std::string("choreo-calibrate-gpu wrote malformed JSON: ") + e.what();
            }
        }
        fs::remove(raw, ec);
    }

    if (o.gpu_document) {
        say(1.0, "fitting the GPU document; this machine's CPU is not measured");
    } else {
        calibrate::CpuBenchOptions cpu;
        const std::string size = o.cpu_size.empty() ? (o.quick ? "quick" : "full") : o.cpu_size;
        cpu.size = size == "tiny"   ? calibrate::CpuBenchSize::Tiny
                   : size == "full" ? calibrate::CpuBenchSize::Full
                                    : calibrate::CpuBenchSize::Quick;
        cpu.progress = [&](double f, const std::string& stage) {
            say(cpuStart + (1.0 - cpuStart) * f, stage);
        };
        in.cpu = calibrate::runCpuBenchmarks(cpu);
    }

    const std::string who = in.gpu ? (in.gpu->contains("device") && (*in.gpu)["device"].contains("name") &&
                                              (*in.gpu)["device"]["name"].is_string()
                                          ? (*in.gpu)["device"]["name"].get<std::string>()
                                          : std::string("gpu"))
                                   : "cpu-" + in.cpu->model;
    in.name =
        o.name.empty() ? slug((o.device.empty() ? who : o.device) + "-" + in.date.substr(0, 10)) : o.name;

    models::Diagnostics errors;
    auto profile = models::buildProfile(in, catalog, errors);
    if (!profile)
        throw std::runtime_error("the measurements do not form a profile:\n" +
                                 models::joinDiagnostics(errors));
    CalibrateOutcome out;
    out.profile = std::move(*profile);
    out.gpu_measured = in.gpu.has_value();
    out.gpu_message = in.gpu_absent_reason;
    return out;
}

std::string comparisonToText(const models::Profile& profile, const models::Catalog& catalog) {
    const models::Device* spec = profile.device.empty() ? nullptr : catalog.find(profile.device);
    std::string out = "profile " + profile.name + " (" + profile.kind + ", " + profile.mode + ")";
    if (auto it = profile.identity.find("name"); it != profile.identity.end())
        out += ": " + it->second;
    out += "\nrefines " + (spec ? spec->id : std::string("no catalog device (map one with --device ID)")) +
           "\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-52s %12s %12s  %-9s %s\n", "figure", "spec", "measured", "unit",
                  "measured/spec");
    out += line;
    auto cell = [](const std::optional<double>& v) {
        return v ? models::formatNumber(*v) : std::string("-");
    };
    for (const auto& row : models::compareWithSpec(profile, spec)) {
        std::string ratio = "-";
        if (row.spec && row.measured && *row.spec != 0)
            ratio = models::formatNumber(*row.measured / *row.spec);
        std::snprintf(line, sizeof line, "%-52s %12s %12s  %-9s %s\n", row.figure.c_str(),
                      cell(row.spec).c_str(), cell(row.measured).c_str(), row.unit.c_str(), ratio.c_str());
        out += line;
    }
    out += "\nmeasured figures:\n";
    for (const auto& f : profile.figures) {
        std::snprintf(line, sizeof line, "  %-62s %12s %s\n", f.label.c_str(),
                      models::formatNumber(f.value).c_str(), f.unit.c_str());
        out += line;
    }
    for (const auto& note : profile.notes)
        out += "note: " + note + "\n";
    return out;
}

} // namespace choreo::sim
