// Calibration in the desktop program: the profile view and its item models, the scenario's profile
// choice, the desktop's runs giving the CLI's numbers with a profile, and Tools > Calibrate running the
// real `choreo-sim calibrate` on this machine (which has no GPU: the UI must say that only the CPU was
// measured). The profile used here is a test fixture with synthetic numbers, labelled as such.
#include "models/calibration.h"
#include "models/profile.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "ui/calibration/calibratedialog.h"
#include "ui/calibration/calibrationform.h"
#include "ui/calibration/calibrationrunner.h"
#include "ui/calibration/profileview.h"
#include "ui/charts/modelchartview.h"
#include "ui/document.h"
#include "ui/fieldmarks.h"
#include "ui/itemmodels/profilecomparisonmodel.h"
#include "ui/itemmodels/profilefiguremodel.h"
#include "ui/itemmodels/profilegemmmodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/mainwindow.h"
#include "ui/runs/workerrunner.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
namespace fs = std::filesystem;

namespace {

const QString kFixture = QStringLiteral(CHOREO_TEST_DATA_DIR "/fixture-h100-synthetic.json");
constexpr int kCalibrateTimeoutMs = 10 * 60 * 1000;

QString simExe() {
    return QStringLiteral(CHOREO_SIM_WORKER);
}

QString assets() {
    return QString::fromStdString(choreo::test::assetsDir().string());
}

choreo::ui::WorkerCommand calibrateCommand(bool tiny) {
    QStringList args{u"calibrate"_s, u"--assets"_s, assets()};
    if (tiny)
        args << u"--cpu-size"_s << u"tiny"_s;
    return {simExe(), args};
}

choreo::models::Profile fixture() {
    choreo::models::Diagnostics errors;
    auto p = choreo::models::loadProfileFile(kFixture.toStdString(), errors);
    if (!p)
        qFatal("%s", choreo::models::joinDiagnostics(errors).c_str());
    return *p;
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void itemModelsPassTheTester();
    void profileViewBuildsFromFixture();
    void profileViewRejectsBadFiles();
    void scenarioProfileChoiceUndoRedo();
    void missingProfileIsAProblemOfTheField();
    void desktopRunMatchesCli();
    void calibrateOnThisMachineIsCpuOnly();
    void cancelLeavesNoProfile();
    void mainWindowCalibrateAction();
    void calibrateQuickMode();

private:
    void runDialog(bool tiny);

    std::optional<choreo::models::Catalog> catalog_;
    QTemporaryDir dir_;
};

void TestCalibration::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_);
    QVERIFY(dir_.isValid());
    QVERIFY(QFile::exists(kFixture));
}

void TestCalibration::itemModelsPassTheTester() {
    const auto profile = fixture();
    const auto* h100 = catalog_->find("h100-sxm");
    choreo::ui::ProfileGemmModel gemm;
    choreo::ui::ProfileComparisonModel comparison;
    choreo::ui::ProfileFigureModel cpu(u"cpu."_s);
    QAbstractItemModelTester t1(&gemm, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&comparison, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&cpu, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int round = 0; round < 2; ++round) {
        gemm.setProfile(profile, round == 0 ? h100 : nullptr);
        comparison.setProfile(profile, round == 0 ? h100 : nullptr);
        cpu.setProfile(profile);
        QVERIFY(gemm.rowCount() > 0);
        QCOMPARE(gemm.hasPeaks(), round == 0);
        gemm.clear();
        comparison.clear();
        cpu.clear();
        QCOMPARE(gemm.rowCount() + comparison.rowCount() + cpu.rowCount(), 0);
    }
}

void TestCalibration::profileViewBuildsFromFixture() {
    choreo::ui::ProfileView view(*catalog_);
    QString error;
    QVERIFY2(view.openFile(kFixture, error), qPrintable(error));
    QVERIFY(view.profile().has_value());
    // GEMM: every measured point of both precisions, and a fitted curve for each.
    const auto& profile = *view.profile();
    std::size_t measured = 0;
    for (const auto& [precision, curve] : profile.fit.gemm)
        measured += curve.points.size();
    const auto* gemm = view.gemmModel();
    int measuredRows = 0;
    for (int row = 0; row < gemm->rowCount(); ++row)
        measuredRows += gemm->index(row, 0).data(choreo::ui::StatusRole).toInt() ==
                        static_cast<int>(choreo::ui::ProfileGemmModel::Kind::Measured);
    QCOMPARE(static_cast<std::size_t>(measuredRows), measured);
    QVERIFY(gemm->rowCount() > measuredRows);
    QVERIFY(gemm->hasPeaks()); // the fixture refines h100-sxm
    // A fraction of peak is the measured rate over the H100's spec-sheet peak.
    const double peak = catalog_->find("h100-sxm")->peak_tflops.at(choreo::models::Precision::Bf16).value;
    const auto firstBf16 = profile.fit.gemm.at(choreo::models::Precision::Bf16).points.front();
    bool found = false;
    for (int row = 0; row < gemm->rowCount() && !found; ++row)
        if (gemm->index(row, choreo::ui::ProfileGemmModel::PrecisionColumn).data(choreo::ui::KeyRole) ==
            u"bf16"_s) {
            found = true;
            QCOMPARE(gemm->index(row, choreo::ui::ProfileGemmModel::FractionColumn)
                         .data(choreo::ui::ValueRole)
                         .toDouble(),
                     firstBf16.tflops / peak);
        }
    QVERIFY(found);

    // Charts: GEMM has a measured and a fitted series per precision; bandwidth and power have bars.
    // (Charts rebuild on the next turn of the event loop.)
    QTRY_COMPARE(view.gemmChart()->chart()->series().size(), 2 * static_cast<int>(profile.fit.gemm.size()));
    QCOMPARE(view.bandwidthChart()->chart()->series().size(), 1);
    QCOMPARE(view.powerChart()->chart()->series().size(), 1);
    // Power per phase: idle, compute-bound, memory-bound, each with the spec sheet beside it.
    int powerRows = 0;
    for (int row = 0; row < view.comparisonModel()->rowCount(); ++row)
        powerRows += view.comparisonModel()->index(row, 0).data(choreo::ui::KeyRole) == u"W"_s;
    QCOMPARE(powerRows, 3);
    // CPU figures as a table: the fixture's three cpu.* figures.
    QCOMPARE(view.cpuModel()->rowCount(), 3);
    QVERIFY(view.findChild<QLabel*>(u"profileNotes"_s)->text().contains(u"TEST FIXTURE"_s));
    QVERIFY(view.findChild<QLabel*>(u"profileHeader"_s)->text().contains(u"refines"_s));
}

void TestCalibration::profileViewRejectsBadFiles() {
    choreo::ui::ProfileView view(*catalog_);
    QFile file(dir_.filePath(u"bad-profile.json"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QByteArray text;
    {
        QFile source(kFixture);
        QVERIFY(source.open(QIODevice::ReadOnly));
        text = source.readAll();
    }
    text.replace("\"rate_TFLOPs\": 700.0", "\"rate_TFLOPs\": -1");
    file.write(text);
    file.close();
    QString error;
    QVERIFY(!view.openFile(file.fileName(), error));
    QVERIFY2(error.contains(u"fit.gemm.bf16.rate_TFLOPs"_s), qPrintable(error));
    QVERIFY(!view.profile().has_value()); // unchanged
}

void TestCalibration::scenarioProfileChoiceUndoRedo() {
    // A scenario file with the fixture profile next to it: stored relative, one undo step each way.
    const QString folder = dir_.filePath(u"choice"_s);
    QVERIFY(QDir().mkpath(folder));
    const QString profilePath = QDir(folder).filePath(u"fixture-h100-synthetic.json"_s);
    QVERIFY(QFile::copy(kFixture, profilePath));
    choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
    document.reset(document.scenario(), QDir(folder).filePath(u"scenario.json"_s));
    choreo::ui::FieldMarks marks;
    choreo::ui::CalibrationForm form(&document, &marks);
    const std::string before = choreo::models::serializeScenario(document.scenario());

    form.useProfile(profilePath);
    QCOMPARE(document.undoStack()->count(), 1);
    QVERIFY(document.scenario().calibration.has_value());
    QCOMPARE(document.scenario().calibration->profile, std::string("fixture-h100-synthetic.json"));
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    QVERIFY(form.findChild<QLabel*>(u"profileStateLabel"_s)->text().contains(u"fixture-h100-synthetic"_s));
    QVERIFY(form.findChild<QPushButton*>(u"viewScenarioProfileButton"_s)->isEnabled());
    const std::string after = choreo::models::serializeScenario(document.scenario());
    QVERIFY(after.find("\"calibration\"") != std::string::npos);

    document.undoStack()->undo();
    QCOMPARE(choreo::models::serializeScenario(document.scenario()), before);
    QCOMPARE(form.findChild<QComboBox*>(u"profileCombo"_s)->currentIndex(), 0);
    document.undoStack()->redo();
    QCOMPARE(choreo::models::serializeScenario(document.scenario()), after);
    QCOMPARE(form.findChild<QComboBox*>(u"profileCombo"_s)->currentIndex(), 1);

    // Which device it refines: the pool's device through the combo, one undo step; a device no pool
    // uses is a problem of that field.
    auto* device = form.findChild<QComboBox*>(u"refinedDeviceCombo"_s);
    QVERIFY(device->isEnabled());
    QCOMPARE(device->itemText(0), u"as the profile says (h100-sxm)"_s);
    const int h100 = device->findData(u"h100-sxm"_s);
    QVERIFY(h100 > 0);
    device->setCurrentIndex(h100);
    emit device->activated(h100);
    QCOMPARE(document.undoStack()->count(), 2);
    QCOMPARE(document.scenario().calibration->device, std::optional<std::string>("h100-sxm"));
    QVERIFY(document.isValid());
    form.setRefinedDevice(u"b200"_s);
    QVERIFY(!document.isValid());
    QCOMPARE(document.diagnostics().front().path, std::string("calibration.device"));
    marks.show(document.diagnostics());
    QVERIFY(marks.marked().contains(device));
    QCOMPARE(device->currentData().toString(), u"b200"_s);
    document.undoStack()->undo();
    document.undoStack()->undo();
    QVERIFY(!document.scenario().calibration->device.has_value());
    QCOMPARE(device->currentIndex(), 0);

    // Back to the spec sheet through the combo, as a user would.
    auto* combo = form.findChild<QComboBox*>(u"profileCombo"_s);
    combo->setCurrentIndex(0);
    emit combo->activated(0);
    QVERIFY(!form.findChild<QComboBox*>(u"refinedDeviceCombo"_s)->isEnabled());
    QCOMPARE(document.undoStack()->count(), 2);
    QVERIFY(!document.scenario().calibration.has_value());
    // A file outside the scenario's folder is kept by absolute path.
    QCOMPARE(form.referenceFor(kFixture), QFileInfo(kFixture).absoluteFilePath());
}

void TestCalibration::missingProfileIsAProblemOfTheField() {
    choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
    choreo::ui::FieldMarks marks;
    choreo::ui::CalibrationForm form(&document, &marks);
    form.useProfile(dir_.filePath(u"no-such-profile.json"_s));
    QVERIFY(!document.isValid());
    QCOMPARE(document.diagnostics().front().path, std::string("calibration.profile"));
    marks.show(document.diagnostics());
    QVERIFY(marks.marked().contains(form.findChild<QComboBox*>(u"profileCombo"_s)));
    QVERIFY(!form.findChild<QPushButton*>(u"viewScenarioProfileButton"_s)->isEnabled());
}

void TestCalibration::desktopRunMatchesCli() {
    // The same scenario file, with the profile next to it, through the desktop's path (document ->
    // worker process) and through `choreo-sim run`: the same numbers, and both say which profile.
    const QString folder = dir_.filePath(u"match"_s);
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(QFile::copy(kFixture, QDir(folder).filePath(u"fixture-h100-synthetic.json"_s)));
    auto scenario = *choreo::test::loadDefaultScenario();
    scenario.calibration = choreo::models::CalibrationRef{"fixture-h100-synthetic.json", std::nullopt};
    const QString file = QDir(folder).filePath(u"calibrated.json"_s);
    std::string error;
    QVERIFY(choreo::models::saveScenarioFile(file.toStdString(), scenario, error));

    choreo::ui::Document document(*catalog_, scenario); // then reset with its file
    document.setProfileFolders({choreo::test::assetsDir() / "calibration"});
    document.reset(scenario, file);
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());

    auto runDesktop = [&](const choreo::models::Scenario& s) -> std::optional<choreo::models::RunResult> {
        choreo::ui::WorkerRunner runner({simExe(), {u"worker"_s, u"--assets"_s, assets()}});
        QSignalSpy finished(&runner, &choreo::ui::WorkerRunner::finished);
        QSignalSpy failed(&runner, &choreo::ui::WorkerRunner::failed);
        runner.start(s, u"analytical"_s);
        if (!QTest::qWaitFor([&] { return finished.count() + failed.count() > 0; }, 60000) ||
            finished.isEmpty())
            return std::nullopt;
        return finished.front().front().value<choreo::models::RunResult>();
    };
    const auto desktop = runDesktop(document.runnableScenario());
    QVERIFY(desktop);
    // What the desktop sent before this change (the reference as written) the worker cannot find.
    QVERIFY(!runDesktop(document.scenario()));

    QProcess cli;
    cli.start(simExe(),
              {u"run"_s, file, u"--json"_s, u"--fidelity"_s, u"analytical"_s, u"--assets"_s, assets()});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    choreo::models::Diagnostics errors;
    const auto cliResult = choreo::models::resultFromJson(
        choreo::models::Json::parse(cli.readAllStandardOutput().toStdString()), errors);
    QVERIFY2(cliResult, choreo::models::joinDiagnostics(errors).c_str());

    QCOMPARE(desktop->calibration, std::string("fixture-h100-synthetic"));
    QCOMPARE(cliResult->calibration, desktop->calibration);
    QCOMPARE(desktop->step_time_s, cliResult->step_time_s);
    QCOMPARE(desktop->tokens_per_s, cliResult->tokens_per_s);
    QCOMPARE(desktop->mfu, cliResult->mfu);

    // And the profile matters: without it the step takes a different time.
    auto plain = scenario;
    plain.calibration.reset();
    const auto spec = runDesktop(plain);
    QVERIFY(spec);
    QVERIFY(spec->step_time_s != desktop->step_time_s);
}

void TestCalibration::runDialog(bool tiny) {
    const QString destination =
        dir_.filePath(tiny ? u"profiles/tiny-cpu.json"_s : u"profiles/quick-cpu.json"_s);
    choreo::ui::CalibrateDialog dialog(calibrateCommand(tiny), dir_.filePath(u"profiles"_s));
    dialog.setDestination(destination);
    QSignalSpy progress(dialog.runner(), &choreo::ui::CalibrationRunner::progress);
    QSignalSpy finished(dialog.runner(), &choreo::ui::CalibrationRunner::finished);
    QSignalSpy failed(dialog.runner(), &choreo::ui::CalibrationRunner::failed);
    dialog.start();
    QVERIFY(!dialog.findChild<QPushButton*>(u"startCalibrationButton"_s)->isEnabled());
    QVERIFY(dialog.findChild<QPushButton*>(u"cancelCalibrationButton"_s)->isEnabled());
    QVERIFY(QTest::qWaitFor([&] { return finished.count() + failed.count() > 0; }, kCalibrateTimeoutMs));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    // Progress came as records, never going back, ending at 1.
    QVERIFY(progress.count() >= 3);
    double last = 0;
    for (const auto& args : progress) {
        QVERIFY(args.front().toDouble() >= last);
        last = args.front().toDouble();
    }
    QCOMPARE(last, 1.0);
    const auto outcome = dialog.outcome();
    QVERIFY(!outcome.gpuMeasured); // no GPU on the machines these tests run on
    QVERIFY(!outcome.gpuMessage.isEmpty());
    QCOMPARE(outcome.file, destination);
    QCOMPARE(outcome.name, QFileInfo(destination).completeBaseName());
    QVERIFY2(dialog.message().contains(u"Only the CPU part was measured"_s), qPrintable(dialog.message()));
    QVERIFY(dialog.findChild<QPushButton*>(u"viewProfileButton"_s)->isEnabled());
    // The file is a CPU profile, and the profile view shows it.
    choreo::models::Diagnostics errors;
    const auto profile = choreo::models::loadProfileFile(destination.toStdString(), errors);
    QVERIFY2(profile, choreo::models::joinDiagnostics(errors).c_str());
    QCOMPARE(profile->kind, std::string("cpu"));
    QCOMPARE(profile->mode, std::string("quick")); // the dialog's default
    choreo::ui::ProfileView view(*catalog_);
    QString error;
    QVERIFY2(view.openFile(destination, error), qPrintable(error));
    QVERIFY(view.cpuModel()->rowCount() > 0);
    QVERIFY(view.findChild<QLabel*>(u"profileHeader"_s)->text().contains(u"CPU only"_s));
}

void TestCalibration::calibrateOnThisMachineIsCpuOnly() {
    runDialog(true);
}

void TestCalibration::calibrateQuickMode() {
    if (qEnvironmentVariableIsEmpty("CHOREO_SLOW_TESTS"))
        QSKIP("10 s to a minute; run by the tst_calibration_quick test (label slow)");
    runDialog(false);
}

void TestCalibration::cancelLeavesNoProfile() {
    const QString destination = dir_.filePath(u"cancelled/profile.json"_s);
    choreo::ui::CalibrationRunner runner(calibrateCommand(false)); // quick size: long enough to cancel
    QSignalSpy progress(&runner, &choreo::ui::CalibrationRunner::progress);
    QSignalSpy cancelled(&runner, &choreo::ui::CalibrationRunner::cancelled);
    QSignalSpy finished(&runner, &choreo::ui::CalibrationRunner::finished);
    QVERIFY(runner.start(destination, true));
    QVERIFY(!runner.start(destination, true)); // one at a time
    QVERIFY(QTest::qWaitFor([&] { return progress.count() > 0; }, 60000));
    runner.cancel();
    QVERIFY(QTest::qWaitFor([&] { return cancelled.count() > 0; }, 10000));
    QVERIFY(finished.isEmpty());
    QVERIFY(!runner.isRunning());
    QVERIFY(!QFile::exists(destination));
}

void TestCalibration::mainWindowCalibrateAction() {
    // Tools > Calibrate in the window: the dialog, a CPU-only profile, View and Use in this scenario.
    QSettings settings(dir_.filePath(u"settings.ini"_s), QSettings::IniFormat);
    const QString scenario = QString::fromStdString(choreo::test::defaultScenarioPath().string());
    choreo::ui::MainWindow window(*catalog_, choreo::test::fakeWorker(u"scenario"_s), settings, scenario);
    window.setQuiet(true);
    QVERIFY(window.openFile(scenario));
    auto* action = window.findChild<QAction*>(u"calibrateAction"_s);
    QVERIFY(action);
    QVERIFY(!action->isEnabled()); // no choreo-sim to calibrate with yet
    window.setCalibration(calibrateCommand(true), dir_.filePath(u"window-profiles"_s));
    QVERIFY(action->isEnabled());
    action->trigger();
    auto* dialog = window.calibrateDialog();
    QVERIFY(dialog && dialog->isVisible());
    QVERIFY(dialog->destination().startsWith(dir_.filePath(u"window-profiles"_s)));
    QSignalSpy finished(dialog->runner(), &choreo::ui::CalibrationRunner::finished);
    dialog->findChild<QPushButton*>(u"startCalibrationButton"_s)->click();
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, kCalibrateTimeoutMs));
    QVERIFY(dialog->message().contains(u"Only the CPU part was measured"_s));

    dialog->findChild<QPushButton*>(u"viewProfileButton"_s)->click();
    auto* view = window.findChild<choreo::ui::ProfileView*>();
    QVERIFY(view && view->isVisible());
    QCOMPARE(view->profile()->kind, std::string("cpu"));

    dialog->findChild<QPushButton*>(u"useProfileButton"_s)->click();
    QCOMPARE(window.document()->undoStack()->count(), 1);
    QCOMPARE(QString::fromStdString(window.document()->scenario().calibration->profile),
             QFileInfo(dialog->outcome().file).absoluteFilePath());
    // A CPU profile cannot refine the scenario's GPUs: a problem of the calibration field, not a crash.
    QVERIFY(!window.document()->isValid());
    QVERIFY(window.document()->diagnostics().front().path.rfind("calibration", 0) == 0);
    window.document()->undoStack()->undo();
    QVERIFY(window.document()->isValid());
    window.document()->undoStack()->setClean();
}

QTEST_MAIN(TestCalibration)
#include "tst_calibration.moc"
