#include "ui/reports/reportcommand.h"

#include "models/calibration.h"
#include "models/catalog.h"
#include "models/exitcodes.h"
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/reports/reportwriter.h"
#include "ui/reports/sweepcsv.h"
#include "ui/runs/analysisjob.h"

#include <QApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QFileInfo>

#include <filesystem>
#include <iostream>
#include <memory>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

void printDiagnostics(const models::Diagnostics& diagnostics) {
    for (const auto& d : diagnostics)
        std::cerr << "  " << d.text() << '\n';
}

// Why the report cannot be written to `path`, known before any simulation runs: an existing file or folder
// without write permission, or a folder that is missing. Judged by the permission bits, which root's own
// access checks would ignore. Empty when it can be written.
std::string unwritableTarget(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    const auto writable = [](fs::perms p) {
        return (p & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) !=
               fs::perms::none;
    };
    std::error_code ec;
    const fs::path folder = fs::absolute(path, ec).parent_path();
    if (const auto status = fs::status(path, ec); fs::exists(status)) {
        if (fs::is_directory(status))
            return path.string() + " is a folder";
        if (!writable(status.permissions()))
            return path.string() + " is read-only";
    }
    const auto folderStatus = fs::status(folder, ec);
    if (!fs::is_directory(folderStatus))
        return "the folder " + folder.string() + " does not exist";
    if (!writable(folderStatus.permissions()))
        return "the folder " + folder.string() + " is read-only";
    return {};
}

// What a report is drawn from, read and checked before anything runs.
struct ReportSources {
    std::optional<models::Catalog> catalog;
    std::optional<models::Scenario> scenario;
    std::optional<models::Profile> profile;
};

// The scenario's calibration profile, looked up as `choreo-sim run` does: next to the scenario, then in the
// assets. The worker gets it by absolute path, since it knows neither folder. kExitOk, or the exit code after
// printing why it cannot be used.
int attachProfile(ReportSources& in, const std::string& scenarioPath, const std::filesystem::path& assets) {
    models::Scenario& scenario = *in.scenario;
    const std::vector<std::filesystem::path> folders{std::filesystem::absolute(scenarioPath).parent_path(),
                                                     assets / "calibration"};
    const auto file = models::findProfile(scenario.calibration->profile, folders);
    models::Diagnostics errors;
    models::Diagnostics unreadable;
    if (file)
        in.profile = models::loadProfileFile(*file, unreadable);
    // The profile is read once; one that cannot be found or read gets choreo-sim run's messages.
    if (auto resolved = models::resolveScenario(scenario, *in.catalog, errors); resolved && in.profile)
        models::applyCalibrationProfile(*resolved, *in.profile, scenario.calibration->device, errors);
    else if (resolved)
        models::applyScenarioCalibration(*resolved, folders, errors);
    else
        for (const auto& d : unreadable)
            errors.push_back({"calibration.profile", file->string() + ": " + d.text()});
    if (!errors.empty() || !in.profile) {
        std::cerr << "choreo-sim report: " << scenarioPath << ": the calibration profile cannot be used:\n";
        printDiagnostics(errors);
        return kExitInvalidInput;
    }
    scenario.calibration->profile = std::filesystem::absolute(*file).lexically_normal().string();
    return kExitOk;
}

// Reads the catalog, the scenario and its profile into `in`; kExitOk, or the exit code after printing why.
int loadReportSources(ReportSources& in, const std::string& scenarioPath, const std::string& assetsDir) {
    models::Diagnostics errors;
    const std::filesystem::path assets(assetsDir);
    in.catalog = models::Catalog::load(assets / "catalog", errors);
    if (!in.catalog) {
        std::cerr << "choreo-sim report: cannot load the catalog from " << (assets / "catalog").string()
                  << ":\n";
        printDiagnostics(errors);
        return kExitIo;
    }
    std::string text, ioError;
    if (!models::readTextFile(scenarioPath, text, ioError)) {
        std::cerr << "choreo-sim report: " << ioError << '\n';
        return kExitIo;
    }
    in.scenario = models::parseScenario(text, errors);
    if (in.scenario)
        models::resolveScenario(*in.scenario, *in.catalog, errors);
    if (!errors.empty()) {
        std::cerr << "choreo-sim report: " << scenarioPath << " is not a valid scenario:\n";
        printDiagnostics(errors);
        return kExitInvalidInput;
    }
    return in.scenario->calibration ? attachProfile(in, scenarioPath, assets) : kExitOk;
}

// Says on standard error how the base run and each sweep point end.
void reportProgress(AnalysisJob& job) {
    QObject::connect(&job, &AnalysisJob::baseFinished, [](const models::RunResult& r) {
        if (r.serving && r.kind == "serve")
            std::cerr << "choreo-sim report: base run done (" << r.serving->output_tokens_per_s
                      << " output tokens/s)\n";
        else
            std::cerr << "choreo-sim report: base run done (" << r.step_time_s << " s per step)\n";
    });
    QObject::connect(&job, &AnalysisJob::sweepStarted, [](int points) {
        std::cerr << "choreo-sim report: sweep of " << points << " points\n";
    });
    QObject::connect(&job, &AnalysisJob::sweepPointFinished, [&job](int index) {
        const auto& o = job.sweepOutcomes()[static_cast<std::size_t>(index)];
        std::cerr << "choreo-sim report:   " << o.label.toStdString() << ": "
                  << (o.result    ? "ok"
                      : o.failure ? o.failure->message.toStdString()
                                  : "failed")
                  << '\n';
    });
}

// Runs the scenario and its sweep in worker processes until both end; kExitOk, or kExitSimulationFailed
// after printing why the base run failed.
int runAnalysis(AnalysisJob& job, const models::Scenario& scenario) {
    std::optional<WorkerFailure> baseFailure;
    QEventLoop loop;
    QObject::connect(&job, &AnalysisJob::baseFailed, [&](const WorkerFailure& f) { baseFailure = f; });
    QObject::connect(&job, &AnalysisJob::finished, &loop, &QEventLoop::quit);
    reportProgress(job);
    std::cerr << "choreo-sim report: running " << scenario.name << '\n';
    job.start(scenario);
    loop.exec();
    if (!baseFailure && job.baseResult())
        return kExitOk;
    std::cerr << "choreo-sim report: the run failed: "
              << (baseFailure ? baseFailure->message.toStdString() : std::string("no result")) << '\n';
    if (baseFailure)
        printDiagnostics(baseFailure->diagnostics);
    return kExitSimulationFailed;
}

// Writes the report (HTML for a .html or .htm name, PDF otherwise) and the sweep's CSV beside it.
int writeReportFiles(const ReportInput& input, const std::string& outputPath) {
    const QString path = QString::fromStdString(outputPath);
    QString error;
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool html = suffix == QStringLiteral("html") || suffix == QStringLiteral("htm");
    if (html ? !writeReportHtml(input, path, error) : writeReportPdf(input, path, error) == 0) {
        std::cerr << "choreo-sim report: " << error.toStdString() << '\n';
        return kExitIo;
    }
    SweepResultModel sweep;
    sweep.setOutcomes(input.sweep, input.base.devices);
    const QString csv = csvPathForReport(path);
    if (!writeSweepCsv(sweep, csv, error)) {
        std::cerr << "choreo-sim report: " << error.toStdString() << '\n';
        return kExitIo;
    }
    std::cerr << "choreo-sim report: sweep table in " << csv.toStdString() << '\n';
    std::cout << outputPath << std::endl;
    return kExitOk;
}

} // namespace

int runReportCommand(int argc, char** argv, const std::string& scenarioPath, const std::string& outputPdf,
                     const std::string& workerExe, const std::string& assetsDir,
                     const std::string& sections) {
    // Fail before minutes of simulation, not after, when the report cannot be written.
    if (const std::string why = unwritableTarget(outputPdf); !why.empty()) {
        std::cerr << "choreo-sim report: cannot write the report: " << why << " (nothing was run)\n";
        return kExitIo;
    }
    ReportSections selected = ReportSections::all();
    if (!sections.empty()) {
        std::string sectionsError;
        const auto parsed = ReportSections::parse(sections, sectionsError);
        if (!parsed) {
            std::cerr << "choreo-sim report: --sections: " << sectionsError << '\n';
            return kExitUsage;
        }
        selected = *parsed;
    }
    std::unique_ptr<QApplication> ownApp;
    if (!QCoreApplication::instance()) {
        // A report is drawn, never shown: no display server is needed or wanted (CI, batch nodes).
        qputenv("QT_QPA_PLATFORM", "offscreen");
        ownApp = std::make_unique<QApplication>(argc, argv);
    } else if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
        std::cerr << "choreo-sim report: charts need a QApplication, not a QCoreApplication\n";
        return kExitInternal;
    }
    ReportSources in;
    if (const int code = loadReportSources(in, scenarioPath, assetsDir); code != kExitOk)
        return code;
    AnalysisJob job(WorkerCommand{QString::fromStdString(workerExe),
                                  {u"worker"_s, u"--assets"_s, QString::fromStdString(assetsDir)}});
    if (const int code = runAnalysis(job, *in.scenario); code != kExitOk)
        return code;
    const ReportInput input{
        *in.scenario, *job.baseResult(), job.sweepOutcomes(), &*in.catalog, QDateTime::currentDateTime(),
        in.profile,   selected};
    return writeReportFiles(input, outputPdf);
}

} // namespace choreo::ui
