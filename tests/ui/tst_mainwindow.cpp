// The main window, offscreen: the forms show the scenario, edits go through undo, saving clears the
// modified mark, runs reach the result views (with the fake worker), and every item model is sound.
#include "models/sweep.h"
#include "ui/autosave.h"
#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/pooltablemodel.h"
#include "ui/itemmodels/resultsummarymodel.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/mainwindow.h"
#include "ui/results/resultspanel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <cstdio>
#include <memory>
#include <vector>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::MainWindow;

namespace {

constexpr int kTimeoutMs = 30000;

template <typename T>
T* child(const QObject& parent, const QString& name) {
    T* found = parent.findChild<T*>(name);
    if (!found)
        qWarning("no child %s", qPrintable(name));
    return found;
}

// Answers the recovery question as a user would, once it is asked: Yes, after checking it names the file.
void acceptRecoveryWhenAsked(QObject* context) {
    QTimer::singleShot(0, context, [] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        QVERIFY(box->text().contains(u"default.json"_s));
        box->button(QMessageBox::Yes)->click();
    });
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void fieldsShowTheScenario();
    void editUndoRedo();
    void consecutiveEditsMerge();
    void invalidEditDisablesRun();
    void poolsAddAndRemove();
    void poolPricesAndRenamedStages();
    void saveClearsModified();
    void runFillsResultsAndModelsStaySound();
    void crashedWorkerLosesNothing();
    void latestJobWins();
    void mainActionsHaveDistinctShortcuts();
    void paletteButtonShowsThePalette();
    void editorFitsItsColumnAt1280x800();
    void recoveryOffersNothingWhenQuiet();
    void recoveryRestoresUnsavedChanges();
    void killedWithUnsavedEditsLosesNothing();
    void childEditsUntilKilled();

private:
    std::unique_ptr<MainWindow> makeWindow(const QString& workerMode);
    QAction* action(const QString& name) const { return child<QAction>(*window_, name); }

    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
    QTemporaryDir dir_;
    std::unique_ptr<QSettings> settings_;
    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
    QString error_;
};

void TestMainWindow::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_.has_value());
    const auto scenario = choreo::test::loadDefaultScenario();
    QVERIFY(scenario.has_value());
    original_ = *scenario;
    QVERIFY(dir_.isValid());
    // Never the user's settings.
    settings_ = std::make_unique<QSettings>(dir_.filePath(u"settings.ini"_s), QSettings::IniFormat);
}

std::unique_ptr<MainWindow> TestMainWindow::makeWindow(const QString& workerMode) {
    auto w =
        std::make_unique<MainWindow>(*catalog_, choreo::test::fakeWorker(workerMode), *settings_,
                                     QString::fromStdString(choreo::test::defaultScenarioPath().string()));
    w->setQuiet(true);
    return w;
}

void TestMainWindow::init() {
    window_ = makeWindow(u"scenario"_s);
    QVERIFY(window_->openFile(QString::fromStdString(choreo::test::defaultScenarioPath().string())));
    window_->show();
    // Every item model of ours, checked on every change for the rest of the test.
    for (QAbstractItemModel* model : window_->findChildren<QAbstractItemModel*>())
        if (QString::fromLatin1(model->metaObject()->className()).startsWith(u"choreo::"_s))
            testers_.push_back(std::make_unique<QAbstractItemModelTester>(
                model, QAbstractItemModelTester::FailureReportingMode::QtTest));
    // pools, result summary, sweep, step timeline, power trace, serving curve, memory per stage, hardware
    // options, catalog devices and their filter, the run queue
    QCOMPARE(testers_.size(), std::size_t(11));
}

void TestMainWindow::cleanup() {
    testers_.clear();
    window_->document()->undoStack()->setClean(); // no unsaved-changes prompt on close
    window_.reset();
}

void TestMainWindow::fieldsShowTheScenario() {
    const QObject& w = *window_;
    QCOMPARE(window_->document()->scenario(), original_);
    QVERIFY(!window_->isWindowModified());
    QCOMPARE(child<QLineEdit>(w, u"scenarioNameEdit"_s)->text(), QString::fromStdString(original_.name));
    const auto& m = original_.workload.model;
    QCOMPARE(child<QLineEdit>(w, u"workload.model.name"_s)->text(), QString::fromStdString(m.name));
    QCOMPARE(child<QSpinBox>(w, u"workload.model.layers"_s)->value(), m.layers);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.hidden"_s)->value(), m.hidden);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.heads"_s)->value(), m.heads);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.kv_heads"_s)->value(), m.kv_heads);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.head_dim"_s)->value(), m.head_dim);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.head_dim"_s)->text(), u"hidden / heads"_s); // 0: not set
    QCOMPARE(child<QSpinBox>(w, u"workload.model.ffn_hidden"_s)->value(), m.ffn_hidden);
    QCOMPARE(child<QCheckBox>(w, u"workload.model.ffn_gated"_s)->isChecked(), m.ffn_gated);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.vocab"_s)->value(), m.vocab);
    QCOMPARE(child<QSpinBox>(w, u"workload.model.seq_len"_s)->value(), m.seq_len);
    const auto& wl = original_.workload;
    QCOMPARE(child<QSpinBox>(w, u"workload.global_batch"_s)->value(), wl.global_batch);
    QCOMPARE(child<QSpinBox>(w, u"workload.micro_batch"_s)->value(), wl.micro_batch);
    QCOMPARE(child<QDoubleSpinBox>(w, u"workload.tokens_to_train"_s)->value(), wl.tokens_to_train / 1e9);
    QCOMPARE(child<QComboBox>(w, u"workload.precision"_s)->currentData().toString().toStdString(),
             toString(wl.precision));
    QCOMPARE(child<QComboBox>(w, u"workload.recompute"_s)->currentData().toString().toStdString(),
             toString(wl.recompute));
    QCOMPARE(child<QSpinBox>(w, u"workload.parallel.tp"_s)->value(), wl.parallel.tp);
    QCOMPARE(child<QSpinBox>(w, u"workload.parallel.pp"_s)->value(), wl.parallel.pp);
    QCOMPARE(child<QSpinBox>(w, u"workload.parallel.dp"_s)->value(), wl.parallel.dp);
    QCOMPARE(child<QSpinBox>(w, u"workload.parallel.cp"_s)->value(), wl.parallel.cp);
    QCOMPARE(child<QSpinBox>(w, u"workload.parallel.vp"_s)->value(), wl.parallel.vp);
    QCOMPARE(child<QCheckBox>(w, u"workload.parallel.sequence_parallel"_s)->isChecked(),
             wl.parallel.sequence_parallel);
    QCOMPARE(child<QComboBox>(w, u"workload.parallel.zero"_s)->currentData().toInt(), wl.parallel.zero);
    const auto& net = original_.cluster.network;
    QCOMPARE(child<QDoubleSpinBox>(w, u"cluster.network.nic_Gbps"_s)->value(), net.nic_Gbps.value_or(0.0));
    QCOMPARE(child<QComboBox>(w, u"cluster.network.topology.kind"_s)->currentData().toInt(),
             int(net.topology.kind));
    QCOMPARE(child<QDoubleSpinBox>(w, u"cluster.network.topology.oversubscription"_s)->value(),
             net.topology.oversubscription);
    const auto& c = original_.costs;
    QCOMPARE(child<QComboBox>(w, u"costs.mode"_s)->currentData().toString().toStdString(), toString(c.mode));
    QCOMPARE(child<QDoubleSpinBox>(w, u"costs.pue"_s)->value(), c.pue);
    QCOMPARE(child<QDoubleSpinBox>(w, u"costs.amortisation_years"_s)->value(), c.amortisation_years);
    QCOMPARE(child<QDoubleSpinBox>(w, u"costs.electricity_usd_per_kWh"_s)->value(),
             c.electricity_usd_per_kWh);
    auto* rent = child<QDoubleSpinBox>(w, u"costs.rent_usd_per_device_hour"_s);
    if (!c.rent_usd_per_device_hour)
        QCOMPARE(rent->text(), u"catalog"_s);

    auto* pools = child<QTableView>(w, u"poolsTable"_s)->model();
    QCOMPARE(pools->rowCount(), int(original_.cluster.pools.size()));
    const auto& pool = original_.cluster.pools.front();
    QCOMPARE(pools->index(0, choreo::ui::PoolTableModel::NameColumn).data().toString(),
             QString::fromStdString(pool.name));
    QCOMPARE(pools->index(0, choreo::ui::PoolTableModel::DeviceColumn).data(Qt::EditRole).toString(),
             QString::fromStdString(pool.device));
    QCOMPARE(pools->index(0, choreo::ui::PoolTableModel::CountColumn).data().toLongLong(), pool.count);
    QCOMPARE(pools->index(0, choreo::ui::PoolTableModel::DevicesPerNodeColumn).data().toLongLong(),
             pool.devices_per_node);

    QVERIFY(window_->document()->isValid());
    QVERIFY(action(u"runAction"_s)->isEnabled());
    QVERIFY(window_->windowTitle().contains(u"default.json"_s));
    QVERIFY(settings_->value(u"recentFiles"_s).toStringList().front().endsWith(u"default.json"_s));
}

void TestMainWindow::editUndoRedo() {
    auto* layers = child<QSpinBox>(*window_, u"workload.model.layers"_s);
    layers->setValue(40);
    const choreo::models::Scenario edited = window_->document()->scenario();
    QCOMPARE(edited.workload.model.layers, 40);
    QVERIFY(!(edited == original_));
    QVERIFY(window_->isWindowModified());

    action(u"undoAction"_s)->trigger();
    QVERIFY(window_->document()->scenario() == original_);
    QCOMPARE(layers->value(), original_.workload.model.layers);
    QVERIFY(!window_->isWindowModified());

    action(u"redoAction"_s)->trigger();
    QVERIFY(window_->document()->scenario() == edited);
    QCOMPARE(layers->value(), 40);
    QVERIFY(window_->isWindowModified());

    // A text field and a pool cell go the same way.
    auto* name = child<QLineEdit>(*window_, u"scenarioNameEdit"_s);
    QTest::keyClicks(name, u" v2"_s);
    QCOMPARE(window_->document()->scenario().name, original_.name + " v2");
    action(u"undoAction"_s)->trigger(); // the three keystrokes are one step
    QVERIFY(window_->document()->scenario() == edited);
    QCOMPARE(name->text(), QString::fromStdString(original_.name));
}

void TestMainWindow::consecutiveEditsMerge() {
    QUndoStack* stack = window_->document()->undoStack();
    auto* dp = child<QSpinBox>(*window_, u"workload.parallel.dp"_s);
    auto* layers = child<QSpinBox>(*window_, u"workload.model.layers"_s);
    dp->setValue(16);
    dp->setValue(32);
    QCOMPARE(stack->count(), 1);
    layers->setValue(40);
    QCOMPARE(stack->count(), 2);
    layers->setValue(original_.workload.model.layers); // back where it started: the step goes away
    QCOMPARE(stack->count(), 1);
    action(u"undoAction"_s)->trigger();
    QVERIFY(window_->document()->scenario() == original_);
}

void TestMainWindow::invalidEditDisablesRun() {
    auto* tp = child<QSpinBox>(*window_, u"workload.parallel.tp"_s);
    tp->setValue(3); // divides neither the heads nor the devices per node
    QVERIFY(!window_->document()->isValid());
    QVERIFY(!action(u"runAction"_s)->isEnabled());
    bool mentioned = false;
    for (const auto& d : window_->document()->diagnostics())
        mentioned = mentioned || d.path == "workload.parallel.tp";
    QVERIFY(mentioned);
    QVERIFY(tp->property("invalid").toBool());
    QVERIFY(tp->toolTip().contains(u"does not divide"_s) || tp->toolTip().contains(u"must"_s));
    action(u"undoAction"_s)->trigger();
    QVERIFY(window_->document()->isValid());
    QVERIFY(action(u"runAction"_s)->isEnabled());
    QVERIFY(!tp->property("invalid").toBool());

    // A pool whose size no longer matches tp*pp*dp marks the pools table, and only it.
    auto* pools = child<QTableView>(*window_, u"poolsTable"_s);
    QVERIFY(pools->model()->setData(pools->model()->index(0, choreo::ui::PoolTableModel::CountColumn), 64));
    QVERIFY(!action(u"runAction"_s)->isEnabled());
    QVERIFY(pools->property("invalid").toBool());
    QVERIFY(pools->toolTip().contains(u"tp*pp*dp"_s));
    QVERIFY(!tp->property("invalid").toBool());
    QVERIFY(!child<QDoubleSpinBox>(*window_, u"cluster.network.nic_Gbps"_s)->property("invalid").toBool());
    action(u"undoAction"_s)->trigger();
    QVERIFY(!pools->property("invalid").toBool());
    QVERIFY(window_->document()->scenario() == original_);
}

void TestMainWindow::poolsAddAndRemove() {
    auto* view = child<QTableView>(*window_, u"poolsTable"_s);
    child<QPushButton>(*window_, u"addPoolButton"_s)->click();
    QCOMPARE(view->model()->rowCount(), 2);
    QCOMPARE(window_->document()->scenario().cluster.pools.size(), std::size_t(2));
    // Edit a cell through the model, as the table's editor would.
    QVERIFY(view->model()->setData(view->model()->index(1, choreo::ui::PoolTableModel::CountColumn), 16));
    QCOMPARE(window_->document()->scenario().cluster.pools[1].count, 16);
    QVERIFY(!view->model()->setData(view->model()->index(1, choreo::ui::PoolTableModel::DeviceColumn),
                                    u"no-such-device"_s));
    view->selectRow(1);
    auto* remove = child<QPushButton>(*window_, u"removePoolButton"_s);
    QVERIFY(remove->isEnabled());
    remove->click();
    QCOMPARE(view->model()->rowCount(), 1);
    QVERIFY(window_->document()->scenario() == original_);
}

// Each pool's own price in the table (empty: the catalog's, shown grey); renaming a pool keeps the
// stages that name it on it.
void TestMainWindow::poolPricesAndRenamedStages() {
    using choreo::ui::PoolTableModel;
    auto* model = child<QTableView>(*window_, u"poolsTable"_s)->model();
    const QModelIndex rent = model->index(0, PoolTableModel::RentColumn);
    QVERIFY(rent.data(Qt::ForegroundRole).isValid()); // grey: not the pool's own
    QVERIFY(model->setData(rent, u"3.5"_s));
    QCOMPARE(*window_->document()->scenario().cluster.pools[0].rent_usd_per_device_hour, 3.5);
    QCOMPARE(rent.data().toString(), u"3.5"_s);
    QVERIFY(!rent.data(Qt::ForegroundRole).isValid());
    QVERIFY(!model->setData(rent, u"-1"_s));
    QVERIFY(!model->setData(rent, u"cheap"_s));
    QVERIFY(model->setData(rent, QString())); // back to the catalog's
    QVERIFY(!window_->document()->scenario().cluster.pools[0].rent_usd_per_device_hour);

    auto scenario = window_->document()->scenario();
    scenario.workload.eval = choreo::models::EvalStage{std::string("gpus"), 100, 0, 0};
    window_->document()->edit(scenario, choreo::ui::NoMerge, u"eval"_s);
    QVERIFY(model->setData(model->index(0, PoolTableModel::NameColumn), u"trainers"_s));
    QCOMPARE(*window_->document()->scenario().workload.eval->pool, std::string("trainers"));
    QVERIFY(window_->document()->isValid());
    while (window_->document()->undoStack()->canUndo())
        window_->document()->undoStack()->undo();
    QVERIFY(window_->document()->scenario() == original_);
}

void TestMainWindow::saveClearsModified() {
    child<QSpinBox>(*window_, u"workload.model.layers"_s)->setValue(40);
    QVERIFY(window_->isWindowModified());
    const QString path = dir_.filePath(u"saved.json"_s);
    QString error;
    QVERIFY2(window_->document()->save(path, error), qPrintable(error));
    QVERIFY(!window_->isWindowModified());
    QVERIFY(window_->windowTitle().contains(u"saved.json"_s));
    choreo::models::Diagnostics errors;
    const auto back = choreo::models::loadScenarioFile(path.toStdString(), errors);
    QVERIFY(back.has_value());
    QVERIFY(*back == window_->document()->scenario());
    // An edit after the save marks it again; undoing it unmarks it.
    child<QSpinBox>(*window_, u"workload.model.layers"_s)->setValue(20);
    QVERIFY(window_->isWindowModified());
    action(u"undoAction"_s)->trigger();
    QVERIFY(!window_->isWindowModified());
}

void TestMainWindow::runFillsResultsAndModelsStaySound() {
    QSignalSpy done(window_.get(), &MainWindow::analysisFinished);
    QVERIFY(!action(u"exportReportAction"_s)->isEnabled());
    action(u"runAction"_s)->trigger();
    QVERIFY(window_->isAnalysisRunning());
    QVERIFY(done.wait(kTimeoutMs));
    QCOMPARE(done.at(0).at(0).toBool(), true);
    const auto* summary = window_->results()->summaryModel();
    QVERIFY(summary->result().has_value());
    QCOMPARE(summary->result()->scenario, original_.name); // the fake echoes the scenario it got
    QVERIFY(summary->rowCount() > 10);
    const auto* sweep = window_->results()->sweepModel();
    QCOMPARE(sweep->rowCount(), int(choreo::models::scalingSweep(original_).size()));
    for (const auto& o : sweep->outcomes())
        QCOMPARE(o.state, choreo::ui::SweepOutcome::State::Succeeded);
    QVERIFY(action(u"exportReportAction"_s)->isEnabled());
    QVERIFY(action(u"exportCsvAction"_s)->isEnabled());
    QVERIFY(!window_->isAnalysisRunning());
}

void TestMainWindow::crashedWorkerLosesNothing() {
    testers_.clear();
    window_ = makeWindow(u"crash"_s);
    QVERIFY(window_->openFile(QString::fromStdString(choreo::test::defaultScenarioPath().string())));
    child<QSpinBox>(*window_, u"workload.model.layers"_s)->setValue(40);
    const auto edited = window_->document()->scenario();
    QSignalSpy done(window_.get(), &MainWindow::analysisFinished);
    window_->runAnalysis();
    QVERIFY(done.wait(kTimeoutMs));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY2(window_->results()->message().contains(u"worker crashed (signal 6)"_s),
             qPrintable(window_->results()->message()));
    QVERIFY(window_->document()->scenario() == edited);
    QVERIFY(window_->isWindowModified());
    QVERIFY(action(u"runAction"_s)->isEnabled());
}

void TestMainWindow::latestJobWins() {
    testers_.clear();
    window_ = makeWindow(u"hang"_s);
    QVERIFY(window_->openFile(QString::fromStdString(choreo::test::defaultScenarioPath().string())));
    const auto workers = [this] {
        int running = 0;
        for (const QProcess* p : window_->findChildren<QProcess*>())
            running += p->state() != QProcess::NotRunning;
        return running;
    };
    window_->runAnalysis();
    QTRY_COMPARE_WITH_TIMEOUT(workers(), 1, kTimeoutMs);
    window_->runAnalysis(); // the first job's worker is killed, not left behind
    QTest::qWait(200);
    QCOMPARE(workers(), 1);
    QVERIFY(window_->isAnalysisRunning());
    window_->cancelAnalysis();
    QTRY_COMPARE_WITH_TIMEOUT(workers(), 0, kTimeoutMs);
    QVERIFY(!window_->isAnalysisRunning());
    QVERIFY(window_->results()->message().contains(u"cancelled"_s));
}

void TestMainWindow::mainActionsHaveDistinctShortcuts() {
    QSet<QString> seen;
    for (const QString& name :
         {u"runAction"_s, u"cancelAction"_s, u"suggestAction"_s, u"compareHardwareAction"_s,
          u"exportReportAction"_s, u"exportCsvAction"_s, u"paletteAction"_s, u"undoAction"_s, u"redoAction"_s,
          u"compareAction"_s, u"runQueueAction"_s}) {
        QAction* a = action(name);
        QVERIFY2(a, qPrintable(name));
        const QString keys = a->shortcut().toString();
        QVERIFY2(!keys.isEmpty(), qPrintable(name));
        QVERIFY2(!seen.contains(keys), qPrintable(name + u": "_s + keys));
        seen.insert(keys);
    }
}

void TestMainWindow::paletteButtonShowsThePalette() {
    auto* dock = child<QDockWidget>(*window_, u"devicePaletteDock"_s);
    QVERIFY(dock);
    dock->hide();
    child<QPushButton>(*window_, u"devicePaletteButton"_s)->click();
    QVERIFY(dock->isVisible());
    action(u"paletteAction"_s)->trigger();
    QVERIFY(!dock->isVisible());
}

// At the default window size every field of the scenario editor reads whole: the forms are no wider
// than the scroll area that shows them (whose horizontal scroll bar is off).
void TestMainWindow::editorFitsItsColumnAt1280x800() {
    window_->resize(1280, 800);
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QCoreApplication::processEvents();
    auto* scroll = window_->findChild<QScrollArea*>(u"editorScroll"_s);
    QVERIFY(scroll && scroll->widget());
    const int available = scroll->viewport()->width();
    const int needed = scroll->widget()->minimumSizeHint().width();
    QVERIFY2(needed <= available,
             qPrintable(u"the forms need %1 px, the column shows %2"_s.arg(needed).arg(available)));
    QVERIFY(scroll->widget()->width() <= available);
    // A serving scenario shows the serving form instead of training and parallelism: it fits as well.
    QVERIFY(window_->openFile(QString::fromStdString(
        (choreo::test::defaultScenarioPath().parent_path() / "serve-llama3-70b.json").string())));
    QCoreApplication::processEvents();
    QVERIFY(window_->findChild<QWidget*>(u"serveGroup"_s)->isVisible());
    const int servingNeeds = scroll->widget()->minimumSizeHint().width();
    QVERIFY2(servingNeeds <= scroll->viewport()->width(),
             qPrintable(u"the serving forms need %1 px, the column shows %2"_s.arg(servingNeeds)
                            .arg(scroll->viewport()->width())));
}

void TestMainWindow::recoveryOffersNothingWhenQuiet() {
    // An autosave copy left by a "crashed" session is kept, not taken, by an unattended window.
    const QString autosaveDir = dir_.filePath(u"autosave"_s);
    window_->enableAutosave(autosaveDir, 3600 * 1000);
    child<QSpinBox>(*window_, u"workload.model.layers"_s)->setValue(40);
    testers_.clear();
    {
        // Simulate the crash: the window goes without closeEvent(), so the copy stays.
        choreo::ui::Autosave writer(window_->document(), autosaveDir, 3600 * 1000);
        QString error;
        QVERIFY2(writer.writeNow(error), qPrintable(error));
    }
    QVERIFY(choreo::ui::Autosave::pending(autosaveDir, error_).has_value());
    auto second = makeWindow(u"scenario"_s);
    second->enableAutosave(autosaveDir, 3600 * 1000);
    QVERIFY(!second->offerRecovery());
    QVERIFY(choreo::ui::Autosave::pending(autosaveDir, error_).has_value());
}

void TestMainWindow::recoveryRestoresUnsavedChanges() {
    const QString autosaveDir = dir_.filePath(u"recover"_s);
    child<QSpinBox>(*window_, u"workload.model.layers"_s)->setValue(40);
    const auto edited = window_->document()->scenario();
    {
        choreo::ui::Autosave writer(window_->document(), autosaveDir, 3600 * 1000);
        QString error;
        QVERIFY2(writer.writeNow(error), qPrintable(error));
    }
    testers_.clear();
    auto second = makeWindow(u"scenario"_s);
    second->setQuiet(false);
    second->enableAutosave(autosaveDir, 3600 * 1000);
    acceptRecoveryWhenAsked(this);
    QVERIFY(second->offerRecovery());
    QVERIFY(second->document()->scenario() == edited);
    QVERIFY(second->document()->isModified());
    QVERIFY(second->document()->filePath().endsWith(u"default.json"_s));
    second->document()->undoStack()->undo(); // back to the file as saved
    QVERIFY(second->document()->scenario() == original_);
    second->document()->undoStack()->setClean();
}

// The desktop is killed (SIGKILL: no closeEvent, no chance to save) while a document has unsaved edits, and
// started again: it offers the edits back, and undo leads to the file as saved. The killed program is this
// test's own executable running childEditsUntilKilled, with its autosave timer at 50 ms.
void TestMainWindow::killedWithUnsavedEditsLosesNothing() {
    const QString autosaveDir = dir_.filePath(u"killed"_s);
    QProcess program;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"CHOREO_TEST_KILL_AUTOSAVE_DIR"_s, autosaveDir);
    program.setProcessEnvironment(env);
    program.start(QCoreApplication::applicationFilePath(), {u"childEditsUntilKilled"_s});
    QVERIFY2(program.waitForStarted(kTimeoutMs), qPrintable(program.errorString()));
    QByteArray said;
    const QDeadlineTimer deadline(kTimeoutMs);
    while (!said.contains("autosaved\n") && !deadline.hasExpired() && program.state() == QProcess::Running) {
        program.waitForReadyRead(200);
        said += program.readAllStandardOutput();
    }
    QVERIFY2(said.contains("autosaved\n"), said.constData());
    program.kill();
    QVERIFY(program.waitForFinished(kTimeoutMs));
    QCOMPARE(program.exitStatus(), QProcess::CrashExit);
    // The killed program's own temporary folder is left behind by the kill: remove it.
    const qsizetype at = said.indexOf("child folder ");
    if (at >= 0)
        QDir(QString::fromLocal8Bit(said.mid(at + 13, said.indexOf('\n', at) - at - 13))).removeRecursively();

    testers_.clear();
    auto restarted = makeWindow(u"scenario"_s);
    restarted->setQuiet(false);
    restarted->enableAutosave(autosaveDir, 3600 * 1000);
    acceptRecoveryWhenAsked(this);
    QVERIFY(restarted->offerRecovery());
    QCOMPARE(restarted->document()->scenario().workload.model.layers, std::int64_t(40));
    QVERIFY(restarted->document()->isModified());
    restarted->document()->undoStack()->undo();
    QVERIFY(restarted->document()->scenario() == original_);
    restarted->document()->undoStack()->setClean();
}

// Runs only as the program killedWithUnsavedEditsLosesNothing kills: edits the layers, waits for the
// autosave timer's copy, says so, and waits to be killed.
void TestMainWindow::childEditsUntilKilled() {
    const QString autosaveDir = qEnvironmentVariable("CHOREO_TEST_KILL_AUTOSAVE_DIR");
    if (autosaveDir.isEmpty())
        QSKIP("runs as the program killedWithUnsavedEditsLosesNothing kills");
    window_->enableAutosave(autosaveDir, 50);
    child<QSpinBox>(*window_, u"workload.model.layers"_s)->setValue(40);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(QDir(autosaveDir).filePath(u"autosave.json"_s)), kTimeoutMs);
    std::printf("child folder %s\nautosaved\n", qPrintable(dir_.path()));
    std::fflush(stdout);
    QTest::qWait(kTimeoutMs); // killed long before this ends
    QFAIL("was not killed");
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
