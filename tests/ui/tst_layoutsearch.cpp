// Layout suggestions: every candidate is a valid layout of the whole pool that fits; the scenario's own
// layout is among them; the dialog ranks the best ones with real analytical-fidelity workers and applies
// one as a single undo step. Hardware options: one point per device that fits, Pareto flags.
#include "models/resolved.h"
#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/hardwareoptionmodel.h"
#include "ui/itemmodels/layoutsuggestionmodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/results/hardwareoptions.h"
#include "ui/results/hardwarepanel.h"
#include "ui/workload/layoutsearch.h"
#include "ui/workload/layoutsuggestdialog.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;

namespace {

constexpr int kTimeoutMs = 60000;

choreo::ui::WorkerCommand realWorker() {
    return {QString::fromUtf8(CHOREO_SIM_WORKER),
            {u"worker"_s, u"--assets"_s, QString::fromStdString(choreo::test::assetsDir().string())}};
}

choreo::models::RunResult result(double days, double usd) {
    choreo::models::RunResult r;
    r.time_to_train_s = days * 86400.0;
    r.cost_usd = usd;
    return r;
}

choreo::ui::SweepOutcome succeeded(const QString& label, double days, double usd) {
    choreo::ui::SweepOutcome o;
    o.label = label;
    o.state = choreo::ui::SweepOutcome::State::Succeeded;
    o.result = result(days, usd);
    return o;
}

} // namespace

class TestLayoutSearch : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void candidatesAreValidAndFit();
    void nothingFitsGivesNothing();
    void dialogRanksWithWorkersAndAppliesWithUndo();
    void hardwareOptionsFit();
    void hardwareOptionsKeepTheProfileWithItsDevice();
    void paretoFront();
    void hardwarePanelRunsWorkers();

private:
    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
};

void TestLayoutSearch::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_.has_value());
    original_ = *choreo::test::loadDefaultScenario();
}

void TestLayoutSearch::candidatesAreValidAndFit() {
    const auto candidates = choreo::ui::enumerateLayouts(original_, *catalog_);
    QVERIFY(candidates.size() > 10);
    const double capacity = catalog_->find("h100-sxm")->memory_GB.value;
    bool ownLayout = false;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const auto& c = candidates[i];
        QCOMPARE(c.parallel.devices(), original_.cluster.pools.front().count);
        QVERIFY(c.memory.total() <= capacity);
        QVERIFY(c.estimate_step_s > 0);
        if (i > 0)
            QVERIFY(candidates[i - 1].estimate_step_s <= c.estimate_step_s);
        choreo::models::Diagnostics errors;
        QVERIFY(choreo::models::resolveScenario(choreo::ui::withLayout(original_, c), *catalog_, errors));
        QVERIFY2(errors.empty(), choreo::models::joinDiagnostics(errors).c_str());
        ownLayout = ownLayout || (c.parallel == original_.workload.parallel &&
                                  c.micro_batch == original_.workload.micro_batch);
    }
    QVERIFY(ownLayout);
}

void TestLayoutSearch::nothingFitsGivesNothing() {
    auto s = original_;
    s.workload.model.layers = 800; // ten times Llama 3 70B on 128 GPUs
    s.workload.model.hidden = 32768;
    s.workload.model.heads = 256;
    QVERIFY(choreo::ui::enumerateLayouts(s, *catalog_).empty());
    s.cluster.pools.clear();
    QVERIFY(choreo::ui::enumerateLayouts(s, *catalog_).empty());
}

void TestLayoutSearch::dialogRanksWithWorkersAndAppliesWithUndo() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::LayoutSuggestDialog dialog(&document, realWorker());
    QAbstractItemModelTester tester(dialog.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(&dialog, &choreo::ui::LayoutSuggestDialog::searchFinished);
    dialog.start();
    QVERIFY(dialog.isSearching());
    QVERIFY(done.wait(kTimeoutMs));
    QVERIFY(!dialog.isSearching());
    const auto& rows = dialog.model()->rows();
    QCOMPARE(int(rows.size()),
             std::min(dialog.fittingLayouts(), choreo::ui::LayoutSuggestDialog::kSimulatedCandidates));
    int best = -1;
    for (int i = 0; i < int(rows.size()); ++i) {
        QVERIFY2(rows[i].state == choreo::ui::LayoutSuggestionModel::State::Succeeded,
                 qPrintable(rows[i].failure));
        QCOMPARE(rows[i].result->fidelity, std::string("analytical"));
        QVERIFY(rows[i].result->step_time_s > 0);
        if (best < 0 || rows[i].result->step_time_s < rows[best].result->step_time_s)
            best = i;
    }
    // RankRole puts the fastest first.
    const QModelIndex bestIndex = dialog.model()->index(best, 0);
    for (int i = 0; i < int(rows.size()); ++i)
        QVERIFY(bestIndex.data(choreo::ui::RankRole).toDouble() <=
                dialog.model()->index(i, 0).data(choreo::ui::RankRole).toDouble());

    QVERIFY(dialog.apply(best));
    const auto applied = document.scenario();
    QCOMPARE(applied.workload.parallel, rows[best].candidate.parallel);
    QCOMPARE(applied.workload.micro_batch, rows[best].candidate.micro_batch);
    QVERIFY(document.isValid());
    QCOMPARE(document.undoStack()->count(), 1);
    document.undoStack()->undo();
    QVERIFY(document.scenario() == original_);
    document.undoStack()->redo();
    QVERIFY(document.scenario() == applied);

    // Once the pool changes, the suggestions no longer apply.
    auto s = document.scenario();
    s.cluster.pools.front().count = 64;
    document.edit(s, choreo::ui::NoMerge, u"shrink"_s);
    QVERIFY(!dialog.apply(best));
}

void TestLayoutSearch::hardwareOptionsFit() {
    const auto options = choreo::ui::hardwareOptions(original_, *catalog_);
    QVERIFY(!options.points.empty());
    QCOMPARE(options.points.size() + options.skipped.size(), catalog_->devices().size());
    bool h100 = false;
    for (const auto& p : options.points) {
        choreo::models::Diagnostics errors;
        QVERIFY(choreo::models::resolveScenario(p.scenario, *catalog_, errors));
        QVERIFY2(errors.empty(), choreo::models::joinDiagnostics(errors).c_str());
        QCOMPARE(p.scenario.cluster.pools.front().count, original_.cluster.pools.front().count);
        h100 = h100 || (p.scenario.cluster.pools.front().device == "h100-sxm" &&
                        p.scenario.workload.parallel == original_.workload.parallel);
    }
    QVERIFY(h100); // the scenario's own device keeps its own layout
    for (const auto& s : options.skipped)
        QVERIFY(!s.reason.empty());
}

// A calibrated scenario: the profile stays with the device it measured, the other devices run on their
// spec sheets (a profile of an H100 applied to an A100 pool would be an error in the worker).
void TestLayoutSearch::hardwareOptionsKeepTheProfileWithItsDevice() {
    choreo::models::Scenario base = original_;
    base.calibration = choreo::models::CalibrationRef{"fixture-h100-synthetic.json", "h100-sxm"};
    const auto options = choreo::ui::hardwareOptions(base, *catalog_, std::string("h100-sxm"));
    int calibrated = 0;
    for (const auto& p : options.points) {
        const bool h100 = p.scenario.cluster.pools.front().device == "h100-sxm";
        QCOMPARE(p.scenario.calibration.has_value(), h100);
        QCOMPARE(p.label.find("(calibrated)") != std::string::npos, h100);
        calibrated += h100 ? 1 : 0;
    }
    QCOMPARE(calibrated, 1);
    // Without knowing which device the profile refines, no option keeps it.
    for (const auto& p : choreo::ui::hardwareOptions(base, *catalog_).points)
        QVERIFY(!p.scenario.calibration);
}

void TestLayoutSearch::paretoFront() {
    choreo::ui::HardwareOptionModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    choreo::ui::SweepOutcome failed;
    failed.label = u"broken"_s;
    failed.state = choreo::ui::SweepOutcome::State::Failed;
    model.setOutcomes({succeeded(u"fast, dear"_s, 10, 900), succeeded(u"slow, cheap"_s, 40, 300),
                       succeeded(u"dominated"_s, 45, 950), succeeded(u"middle"_s, 20, 500), failed},
                      {u"a"_s, u"b"_s, u"c"_s, u"d"_s, u"e"_s});
    QVERIFY(model.isPareto(0));
    QVERIFY(model.isPareto(1));
    QVERIFY(!model.isPareto(2));
    QVERIFY(model.isPareto(3));
    QVERIFY(!model.isPareto(4));
    QCOMPARE(model.index(2, choreo::ui::HardwareOptionModel::StatusColumn).data().toString(), u"dominated"_s);
    // A new option that beats "middle" on both takes its place on the front.
    model.setOutcome(2, succeeded(u"better middle"_s, 19, 450));
    QVERIFY(model.isPareto(2));
    QVERIFY(!model.isPareto(3));
    QCOMPARE(model.index(2, choreo::ui::HardwareOptionModel::TimeToTrainColumn)
                 .data(choreo::ui::ValueRole)
                 .toDouble(),
             19.0);
}

void TestLayoutSearch::hardwarePanelRunsWorkers() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::HardwarePanel panel(&document, realWorker());
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(&panel, &choreo::ui::HardwarePanel::comparisonFinished);
    panel.start();
    QVERIFY(panel.isRunning());
    QVERIFY(done.wait(kTimeoutMs));
    QVERIFY(panel.model()->rowCount() > 0);
    int front = 0;
    for (int row = 0; row < panel.model()->rowCount(); ++row) {
        const auto& o = panel.model()->outcomes()[static_cast<std::size_t>(row)];
        QVERIFY2(o.state == choreo::ui::SweepOutcome::State::Succeeded,
                 o.failure ? qPrintable(o.failure->text()) : "");
        QCOMPARE(o.result->fidelity, std::string("analytical"));
        front += panel.model()->isPareto(row);
    }
    QVERIFY(front >= 1);
    // What was left out is listed with why, one line a device (Llama-3 70B does not fit every device).
    const auto* leftOut = panel.findChild<QLabel*>(u"hardwareLeftOut"_s);
    const auto options = choreo::ui::hardwareOptions(original_, *catalog_);
    QVERIFY(!options.skipped.empty());
    QVERIFY(leftOut && !leftOut->parentWidget()->parentWidget()->isHidden()); // its scroll area
    for (const auto& s : options.skipped)
        QVERIFY2(leftOut->text().contains(QString::fromStdString(s.device + ": " + s.reason)),
                 qPrintable(leftOut->text()));
}

QTEST_MAIN(TestLayoutSearch)
#include "tst_layoutsearch.moc"
