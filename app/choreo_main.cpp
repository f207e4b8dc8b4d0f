// The desktop program: composition root only. It finds the assets and the worker, loads the catalog,
// and hands them to the main window; everything else lives in ui/.
#include "models/catalog.h"
#include "ui/calibration/profileview.h"
#include "ui/cluster/topologypanel.h"
#include "ui/cluster/topologyview.h"
#include "ui/compare/comparedialog.h"
#include "ui/document.h"
#include "ui/mainwindow.h"
#include "ui/plan/plandialog.h"
#include "ui/results/resultspanel.h"
#include "ui/runs/runqueuedock.h"
#include "ui/workload/modelpresets.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
#include <QPixmap>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

// A whole run (base and sweep) of the default scenario takes seconds; a hung worker must not hang CI.
constexpr int kScreenshotTimeoutMs = 10 * 60 * 1000;
// Unsaved changes are written this often (and only when there are some).
constexpr int kAutosaveIntervalMs = 30 * 1000;

void fail(bool interactive, const QString& message) {
    if (interactive)
        QMessageBox::critical(nullptr, QObject::tr("Choreo"), message);
    else
        std::fprintf(stderr, "choreo: %s\n", qPrintable(message));
}

void setApplicationNames() {
    QCoreApplication::setOrganizationName(u"Choreo"_s);
    QCoreApplication::setApplicationName(u"Choreo"_s);
    QGuiApplication::setApplicationDisplayName(u"Choreo"_s);
    QGuiApplication::setDesktopFileName(u"choreo"_s);
    QApplication::setWindowIcon(QIcon(u":/choreo.svg"_s));
}

// The command line's options.
struct Options {
    const QCommandLineOption screenshot{
        u"screenshot"_s, QObject::tr("Run the scenario, save a picture of the window to <png> and quit."),
        u"png"_s};
    const QCommandLineOption worker{
        u"worker"_s, QObject::tr("The choreo-sim executable to run simulations with."), u"path"_s};
    const QCommandLineOption profile{
        u"profile"_s,
        QObject::tr("Show the calibration profile <file>; with --screenshot, picture it instead of a run."),
        u"file"_s};
    const QCommandLineOption page{
        u"show"_s,
        QObject::tr(
            "With --screenshot: picture <page> instead of the results: network (the topology view, "
            "without a run; --zoom scales it), run-queue (the run queue, with a device-type sweep), palette "
            "(the device palette beside the results) or "
            "compare (the compare view: the scenario and the further scenario files given, run) or plan "
            "(Tools > "
            "Plan a cluster, a year's deadline, a $200 million budget, 30 MW, no flow confirmation)."),
        u"page"_s};
    const QCommandLineOption zoom{u"zoom"_s, QObject::tr("With --show network: zoom factor after fitting."),
                                  u"factor"_s, u"1"_s};
    const QCommandLineOption resultsTab{
        u"results-tab"_s,
        QObject::tr("With --screenshot: the results tab to show (e.g. \"Step timeline\", \"Power\"); with "
                    "--show compare, the chart tab."),
        u"title"_s};
};

void parseCommandLine(QCommandLineParser& parser, const Options& options, const QApplication& app) {
    parser.setApplicationDescription(QObject::tr("Capacity planner for AI training clusters"));
    parser.addHelpOption();
    parser.addPositionalArgument(u"scenario"_s, QObject::tr("Scenario file to open (default: the example)."));
    parser.addOption(options.screenshot);
    parser.addOption(options.worker);
    parser.addOption(options.profile);
    parser.addOption(options.page);
    parser.addOption(options.zoom);
    parser.addOption(options.resultsTab);
    parser.process(app);
}

// Model presets are a convenience: without them the forms still work, so a broken file is reported
// and the program goes on.
std::vector<choreo::ui::ModelPreset> loadPresets(const std::filesystem::path& assets, bool interactive) {
    choreo::models::Diagnostics errors;
    auto presets = choreo::ui::loadModelPresets(assets / "presets" / "models.json", errors);
    if (!presets) {
        fail(interactive,
             QObject::tr("The model presets cannot be loaded; only custom shapes are offered:\n%1")
                 .arg(QString::fromStdString(choreo::models::joinDiagnostics(errors))));
        presets.emplace();
    }
    return std::move(*presets);
}

void configureWindow(choreo::ui::MainWindow& window, const std::filesystem::path& assets,
                     const QString& workerExe, const QString& assetsDir, bool interactive) {
    window.setQuiet(!interactive);
    // A profile named by a scenario is looked up as choreo-sim run does: next to the scenario, then in the
    // assets. Tools > Calibrate writes new ones to the user's folder; a scenario names those by path.
    const QString userProfiles =
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(u"calibration"_s);
    window.document()->setProfileFolders({assets / "calibration"});
    window.setCalibration({workerExe, {u"calibrate"_s, u"--assets"_s, assetsDir}}, userProfiles);
    window.setPlanning({workerExe, {u"plan"_s, u"--assets"_s, assetsDir}});
    // The smoke test never touches the user's autosave.
    if (interactive)
        window.enableAutosave(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation),
                              kAutosaveIntervalMs);
}

// Smoke-test mode with --profile: a picture of the calibration profile.
int screenshotProfile(QApplication& app, choreo::ui::ProfileView* view, const QString& png) {
    view->resize(1280, 800);
    QTimer::singleShot(500, view, [view, png] {
        const bool saved = view->grab().save(png, "PNG");
        if (!saved)
            std::fprintf(stderr, "choreo: cannot write %s\n", qPrintable(png));
        QCoreApplication::exit(saved ? 0 : 1);
    });
    return app.exec();
}

// Smoke-test mode with --show network: a picture of the topology view, without a run.
int screenshotNetwork(QApplication& app, choreo::ui::MainWindow& window, const QString& png, double factor) {
    // The network needs no run: draw it, zoom, take the picture.
    window.results()->showPage(window.topologyPanel());
    window.show();
    QTimer::singleShot(800, &window, [&window, png, factor] {
        if (factor > 0 && factor != 1.0)
            window.topologyPanel()->view()->zoomBy(factor);
        window.topologyPanel()->view()->redrawNow();
        QCoreApplication::exit(window.grab().save(png, "PNG") ? 0 : 1);
    });
    return app.exec();
}

// Smoke-test mode with --show compare: a picture of the compare view.
int screenshotCompare(QApplication& app, choreo::ui::MainWindow& window, const QStringList& files,
                      const QString& tab, const QString& png) {
    // The scenario opened and the further files, side by side, run at analytical fidelity.
    window.compareScenarios();
    choreo::ui::CompareDialog* compare = window.compareDialog();
    for (const QString& file : files) {
        QString error;
        if (!compare->addFile(file, error)) {
            std::fprintf(stderr, "choreo: %s\n", qPrintable(error));
            return 1;
        }
    }
    compare->resize(1280, 800);
    if (!tab.isEmpty() && !compare->showChartTitled(tab)) {
        std::fprintf(stderr, "choreo: no compare chart \"%s\"\n", qPrintable(tab));
        return 1;
    }
    QObject::connect(compare, &choreo::ui::CompareDialog::runFinished, compare, [compare, png] {
        // Let the charts rebuild from the last result before taking the picture.
        QTimer::singleShot(300, compare, [compare, png] {
            QCoreApplication::exit(compare->grab().save(png, "PNG") ? 0 : 1);
        });
    });
    QTimer::singleShot(0, compare, [compare] { compare->runAll(u"analytical"_s); });
    return app.exec();
}

// Smoke-test mode with --show plan: a picture of the plan dialog after a plan of the scenario.
int screenshotPlan(QApplication& app, choreo::ui::MainWindow& window, const QString& png) {
    window.planCluster();
    choreo::ui::PlanDialog* plan = window.planDialog();
    if (!plan) {
        std::fprintf(stderr, "choreo: no plan dialog (no choreo-sim to plan with)\n");
        return 1;
    }
    choreo::ui::PlanSettings settings;
    settings.start = QDate::currentDate();
    settings.deadline = settings.start.addYears(1);
    settings.budget_usd = 200e6;
    settings.site_power_MW = 30.0;
    settings.confirm = 0;
    plan->setSettings(settings);
    plan->resize(1280, 800);
    QObject::connect(plan, &choreo::ui::PlanDialog::planFinished, plan, [plan, png] {
        QTimer::singleShot(300, plan, [plan, png] {
            QCoreApplication::exit(plan->optionCount() > 0 && plan->grab().save(png, "PNG") ? 0 : 1);
        });
    });
    QTimer::singleShot(0, plan, &choreo::ui::PlanDialog::start);
    return app.exec();
}

// Smoke-test mode: a fixed size, one run, a picture of the window with its results, exit status.
int screenshotRun(QApplication& app, choreo::ui::MainWindow& window, const QCommandLineParser& parser,
                  const Options& options, const QStringList& positional) {
    const QString png = parser.value(options.screenshot);
    window.resize(1280, 800);
    const QString tab = parser.value(options.resultsTab);
    if (!tab.isEmpty() && parser.value(options.page) != u"compare"_s &&
        !window.results()->showPageTitled(tab)) {
        std::fprintf(stderr, "choreo: no results tab \"%s\"\n", qPrintable(tab));
        return 1;
    }
    QObject::connect(&window, &choreo::ui::MainWindow::analysisFinished, &app, [&window, png](bool ok) {
        // Let the charts rebuild from the last sweep update before taking the picture.
        QTimer::singleShot(200, &window, [&window, png, ok] {
            const bool saved = window.grab().save(png, "PNG");
            if (!saved)
                std::fprintf(stderr, "choreo: cannot write %s\n", qPrintable(png));
            if (!ok)
                std::fprintf(stderr, "choreo: the run failed: %s\n", qPrintable(window.results()->message()));
            QCoreApplication::exit(saved && ok ? 0 : 1);
        });
    });
    QTimer::singleShot(kScreenshotTimeoutMs, &app, [] {
        std::fprintf(stderr, "choreo: no result after %d s\n", kScreenshotTimeoutMs / 1000);
        QCoreApplication::exit(2);
    });
    const QString shown = parser.value(options.page);
    if (shown == u"network"_s)
        return screenshotNetwork(app, window, png, parser.value(options.zoom).toDouble());
    if (shown == u"compare"_s)
        return screenshotCompare(app, window, positional.mid(1), tab, png);
    if (shown == u"plan"_s)
        return screenshotPlan(app, window, png);
    if (shown == u"run-queue"_s) {
        window.runQueueDock()->show();
        QTimer::singleShot(0, &window, [&window] {
            window.runQueueDock()->queueSweep(choreo::ui::RunQueueDock::Sweep::DeviceType);
        });
    } else if (shown == u"palette"_s) {
        window.findChild<QDockWidget*>(u"devicePaletteDock"_s)->show();
    } else if (!shown.isEmpty()) {
        std::fprintf(stderr, "choreo: --show takes network, run-queue, palette, compare or plan\n");
        return 1;
    }
    if (!window.document()->isValid()) {
        std::fprintf(stderr, "choreo: the scenario is not valid\n");
        return 1;
    }
    QTimer::singleShot(0, &window, &choreo::ui::MainWindow::runAnalysis);
    window.show();
    return app.exec();
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    setApplicationNames();

    QCommandLineParser parser;
    const Options options;
    parseCommandLine(parser, options, app);
    const bool interactive = !parser.isSet(options.screenshot);

    const std::filesystem::path assets =
        choreo::models::locateAssets(QCoreApplication::applicationFilePath().toStdString());
    choreo::models::Diagnostics errors;
    const auto catalog = choreo::models::Catalog::load(assets / "catalog", errors);
    if (!catalog) {
        fail(interactive, QObject::tr("The hardware catalog in %1 cannot be loaded:\n%2")
                              .arg(QString::fromStdString((assets / "catalog").string()),
                                   QString::fromStdString(choreo::models::joinDiagnostics(errors))));
        return 1;
    }

    const QString assetsDir = QString::fromStdString(assets.string());
    const QString workerExe = parser.isSet(options.worker)
                                  ? parser.value(options.worker)
                                  : QDir(QCoreApplication::applicationDirPath()).filePath(u"choreo-sim"_s);
    const QString defaultScenario = QDir(assetsDir).filePath(u"scenarios/default.json"_s);
    auto presets = loadPresets(assets, interactive);

    QSettings settings;
    choreo::ui::MainWindow window(*catalog, {workerExe, {u"worker"_s, u"--assets"_s, assetsDir}}, settings,
                                  defaultScenario, std::move(presets));
    configureWindow(window, assets, workerExe, assetsDir, interactive);
    const QStringList positional = parser.positionalArguments();
    const QString initial = positional.isEmpty() ? defaultScenario : positional.front();
    if (!window.offerRecovery() && !window.openFile(initial)) {
        if (!interactive || initial == defaultScenario || !window.openFile(defaultScenario))
            return 1;
    }

    if (parser.isSet(options.profile)) {
        choreo::ui::ProfileView* view = window.showProfile(parser.value(options.profile));
        if (!view)
            return 1;
        if (!interactive)
            return screenshotProfile(app, view, parser.value(options.screenshot));
    }

    if (!interactive)
        return screenshotRun(app, window, parser, options, positional);
    window.show();
    return app.exec();
}
