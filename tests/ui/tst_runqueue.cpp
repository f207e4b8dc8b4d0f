// RunQueue and its item model against the fake worker: the bound on parallel workers, Cancel of one run
// and of all, the cache by scenario content, and an AnalysisJob on a shared queue.
#include "ui/document.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/runqueuemodel.h"
#include "ui/mainwindow.h"
#include "ui/runs/analysisjob.h"
#include "ui/runs/runqueue.h"
#include "ui/runs/runqueuedock.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::QueuedRun;
using choreo::ui::RunQueue;
using choreo::ui::RunQueueModel;

namespace {

constexpr int kTimeoutMs = 20000;

using choreo::test::fakeScenario;

// Waits until every run of the queue is over.
bool waitAllOver(RunQueue& queue) {
    return QTest::qWaitFor(
        [&] {
            for (int i = 0; i < queue.count(); ++i)
                if (!queue.at(i).isOver())
                    return false;
            return true;
        },
        kTimeoutMs);
}

} // namespace

class TestRunQueue : public QObject {
    Q_OBJECT

private slots:
    void boundedParallelism();
    void cancelOneAndAll();
    void sameContentIsCached();
    void cacheKeyIgnoresNameNotContent();
    void failureIsKept();
    void modelFollowsTheQueue();
    void analysisJobOnSharedQueue();
    void mainWindowRunsThroughTheQueue();
    void dockSweepsCarryTheProfilePath();
    void defaultBoundIsTheCoreCount();
};

void TestRunQueue::boundedParallelism() {
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s), 2);
    int running = 0, most = 0;
    connect(&queue, &RunQueue::runStarted, this, [&] { most = std::max(most, ++running); });
    connect(&queue, &RunQueue::runFinished, this, [&] { --running; });
    for (int i = 0; i < 6; ++i)
        queue.enqueue(fakeScenario(u"p%1 sleep=150"_s.arg(i).toStdString(), 8 << i), u"p%1"_s.arg(i));
    QCOMPARE(queue.runningCount(), 2);
    QCOMPARE(queue.waitingCount(), 4);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(most, 2);
    QCOMPARE(queue.peakRunning(), 2);
    for (int i = 0; i < queue.count(); ++i) {
        QCOMPARE(queue.at(i).state, QueuedRun::State::Succeeded);
        QVERIFY(!queue.at(i).cached);
        QCOMPARE(queue.at(i).progress, 1.0);
        QCOMPARE(queue.at(i).result->devices, std::int64_t(8) << i);
    }
}

void TestRunQueue::cancelOneAndAll() {
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s), 2);
    QSignalSpy finished(&queue, &RunQueue::runFinished);
    const int a = queue.enqueue(fakeScenario("a hang", 8), u"a"_s);
    const int b = queue.enqueue(fakeScenario("b hang", 16), u"b"_s);
    const int c = queue.enqueue(fakeScenario("c sleep=50", 32), u"c"_s);
    const int d = queue.enqueue(fakeScenario("d hang", 64), u"d"_s);
    QCOMPARE(queue.runningCount(), 2);
    // Cancelling a running run kills its worker and lets the next waiting one start.
    queue.cancel(a);
    QCOMPARE(queue.find(a)->state, QueuedRun::State::Cancelled);
    QCOMPARE(queue.find(c)->state, QueuedRun::State::Running);
    QCOMPARE(finished.count(), 1);
    QVERIFY(QTest::qWaitFor([&] { return queue.find(c)->isOver(); }, kTimeoutMs));
    QCOMPARE(queue.find(c)->state, QueuedRun::State::Succeeded);
    QCOMPARE(queue.find(d)->state, QueuedRun::State::Running);
    queue.cancelAll();
    QCOMPARE(queue.find(b)->state, QueuedRun::State::Cancelled);
    QCOMPARE(queue.find(d)->state, QueuedRun::State::Cancelled);
    QCOMPARE(queue.runningCount(), 0);
    QCOMPARE(finished.count(), 4);
    // Cancelling what is over changes nothing.
    queue.cancel(c);
    QCOMPARE(queue.find(c)->state, QueuedRun::State::Succeeded);
    QCOMPARE(finished.count(), 4);
}

void TestRunQueue::sameContentIsCached() {
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s), 2);
    QSignalSpy started(&queue, &RunQueue::runStarted);
    const int first = queue.enqueue(fakeScenario("x sleep=50", 8), u"first"_s);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(started.count(), 1);
    QCOMPARE(queue.cacheSize(), std::size_t(1));
    // The same content again: no worker, the result at once, marked cached, under its own name.
    QSignalSpy finished(&queue, &RunQueue::runFinished);
    const int again = queue.enqueue(fakeScenario("x sleep=50", 8), u"again"_s);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(started.count(), 1);
    const QueuedRun* hit = queue.find(again);
    QCOMPARE(hit->state, QueuedRun::State::Succeeded);
    QVERIFY(hit->cached);
    QCOMPARE(hit->result->step_time_s, queue.find(first)->result->step_time_s);
    // Another fidelity is another result.
    queue.enqueue(fakeScenario("x sleep=50", 8), u"analytical"_s, u"analytical"_s);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(started.count(), 2);
    // A scenario with a calibration profile is always simulated: the profile file may have changed.
    auto calibrated = fakeScenario("x sleep=50", 8);
    calibrated.calibration = choreo::models::CalibrationRef{"my-gpu.json", std::nullopt};
    queue.enqueue(calibrated, u"calibrated"_s);
    QVERIFY(waitAllOver(queue));
    queue.enqueue(calibrated, u"calibrated again"_s);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(started.count(), 4);
    QVERIFY(!queue.at(queue.count() - 1).cached);
    // A cleared cache simulates again.
    queue.clearCache();
    queue.enqueue(fakeScenario("x sleep=50", 8), u"after clear"_s);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(started.count(), 5);
}

void TestRunQueue::cacheKeyIgnoresNameNotContent() {
    const auto a = fakeScenario("one", 8);
    auto b = a;
    b.name = "two";
    QCOMPARE(RunQueue::cacheKey(a, u"flow"_s), RunQueue::cacheKey(b, u"flow"_s));
    QVERIFY(RunQueue::cacheKey(a, u"flow"_s) != RunQueue::cacheKey(a, u"analytical"_s));
    auto c = a;
    c.cluster.network.topology.oversubscription = 2.0;
    QVERIFY(RunQueue::cacheKey(a, u"flow"_s) != RunQueue::cacheKey(c, u"flow"_s));
    QCOMPARE(RunQueue::cacheKey(a, u"flow"_s).size(), qsizetype(64)); // SHA-256 in hex
}

void TestRunQueue::failureIsKept() {
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s), 2);
    const int id = queue.enqueue(fakeScenario("bad fail", 8), u"bad"_s);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(queue.find(id)->state, QueuedRun::State::Failed);
    QVERIFY(queue.find(id)->failure->message.contains(u"does not fit"_s));
    QCOMPARE(queue.cacheSize(), std::size_t(0)); // failures are not cached: the next try simulates
}

void TestRunQueue::modelFollowsTheQueue() {
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s), 1);
    RunQueueModel model(&queue);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    const int slow = queue.enqueue(fakeScenario("slow sleep=100", 8), u"slow"_s, u"flow"_s, u"batch"_s);
    queue.enqueue(fakeScenario("waits", 16), u"waits"_s);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, RunQueueModel::RunColumn).data().toString(), u"slow"_s);
    QCOMPARE(model.index(0, RunQueueModel::BatchColumn).data().toString(), u"batch"_s);
    QCOMPARE(model.index(0, RunQueueModel::StateColumn).data().toString(), u"running"_s);
    QCOMPARE(model.index(1, RunQueueModel::StateColumn).data().toString(), u"queued"_s);
    QCOMPARE(model.index(1, RunQueueModel::CancelColumn).data().toString(), u"Cancel"_s);
    QCOMPARE(model.index(0, 0).data(RunQueueModel::RunIdRole).toInt(), slow);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(model.index(0, RunQueueModel::StateColumn).data().toString(), u"done"_s);
    QCOMPARE(model.index(0, RunQueueModel::ProgressColumn).data(choreo::ui::ValueRole).toDouble(), 1.0);
    QVERIFY(model.index(0, RunQueueModel::ResultColumn).data().toString().contains(u"step"_s));
    QVERIFY(model.index(0, RunQueueModel::CancelColumn).data().toString().isEmpty());
    queue.enqueue(fakeScenario("slow sleep=100", 8), u"cached"_s);
    QVERIFY(waitAllOver(queue));
    QCOMPARE(model.index(2, RunQueueModel::StateColumn).data().toString(), u"done (cached)"_s);
    queue.enqueue(fakeScenario("hang", 32), u"hang"_s);
    queue.removeFinished();
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, RunQueueModel::RunColumn).data().toString(), u"hang"_s);
    queue.cancelAll();
    QCOMPARE(model.index(0, RunQueueModel::StateColumn).data().toString(), u"cancelled"_s);
}

void TestRunQueue::analysisJobOnSharedQueue() {
    auto base = choreo::test::loadDefaultScenario();
    QVERIFY(base);
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s), 3);
    choreo::ui::AnalysisJob job(&queue);
    QSignalSpy finished(&job, &choreo::ui::AnalysisJob::finished);
    job.start(*base);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(queue.count() > 1);
    QVERIFY(queue.peakRunning() <= 3);
    // The base scenario is a point of its sweep: the cache answered it, no second worker.
    int cached = 0;
    for (int i = 0; i < queue.count(); ++i)
        cached += queue.at(i).cached;
    QCOMPARE(cached, 1);
    QCOMPARE(static_cast<int>(job.sweepOutcomes().size()), queue.count() - 1);
    // Run again: every run is answered from the cache.
    choreo::ui::AnalysisJob again(&queue);
    QSignalSpy againFinished(&again, &choreo::ui::AnalysisJob::finished);
    const int before = queue.count();
    again.start(*base);
    QVERIFY(againFinished.wait(kTimeoutMs));
    for (int i = before; i < queue.count(); ++i)
        QVERIFY(queue.at(i).cached);
    // Cancelling the job's base run in the queue cancels the job.
    base->name = "hang";
    base->workload.global_batch *= 2; // other content, not cached
    choreo::ui::AnalysisJob third(&queue);
    QSignalSpy cancelled(&third, &choreo::ui::AnalysisJob::cancelled);
    third.start(*base);
    queue.cancel(queue.at(queue.count() - 1).id);
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!third.isRunning());
}

void TestRunQueue::mainWindowRunsThroughTheQueue() {
    const auto catalog = choreo::test::loadCatalog();
    QVERIFY(catalog);
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
    const QString path = QString::fromStdString(choreo::test::defaultScenarioPath().string());
    choreo::ui::MainWindow window(*catalog, choreo::test::fakeWorker(u"scenario"_s), settings, path);
    window.setQuiet(true);
    QVERIFY(window.openFile(path));
    RunQueue* queue = window.runQueue();
    QAbstractItemModelTester tester(window.runQueueDock()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy finished(&window, &choreo::ui::MainWindow::analysisFinished);
    window.runAnalysis();
    QVERIFY(finished.wait(kTimeoutMs));
    const int first = queue->count();
    QVERIFY(first > 1); // the base run and its sweep
    QVERIFY(queue->peakRunning() <= queue->maxParallel());
    // Run again: answered from the cache, no worker started.
    QSignalSpy started(queue, &RunQueue::runStarted);
    window.runAnalysis();
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(started.count(), 0);
    QCOMPARE(queue->count(), 2 * first);
    QVERIFY(queue->at(first).cached);
    // The dock's sweeps queue one batch each.
    const int types = window.runQueueDock()->queueSweep(choreo::ui::RunQueueDock::Sweep::DeviceType);
    QVERIFY(types >= 2); // the H100 and at least one other device that can train it
    QCOMPARE(queue->count(), 2 * first + types);
    const int layouts = window.runQueueDock()->queueSweep(choreo::ui::RunQueueDock::Sweep::Layout);
    QVERIFY(layouts >= 2);
    queue->cancelAll();
    QCOMPARE(queue->runningCount(), 0);
}

// A scenario naming its profile by a name the document finds in its profile folders: the dock's sweeps
// hand the workers the absolute path, as every other run does (a worker knows neither folder).
void TestRunQueue::dockSweepsCarryTheProfilePath() {
    const auto catalog = choreo::test::loadCatalog();
    QVERIFY(catalog);
    auto scenario = *choreo::test::loadDefaultScenario();
    scenario.calibration = choreo::models::CalibrationRef{"fixture-h100-synthetic", "h100-sxm"};
    choreo::ui::Document document(*catalog, scenario);
    document.setProfileFolders({std::filesystem::path(CHOREO_TEST_DATA_DIR)});
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    RunQueue queue(choreo::test::fakeWorker(u"scenario"_s));
    choreo::ui::RunQueueDock dock(&queue, &document);
    QVERIFY(dock.queueSweep(choreo::ui::RunQueueDock::Sweep::Layout) >= 1);
    for (int i = 0; i < queue.count(); ++i) {
        const auto& ref = queue.at(i).scenario.calibration;
        QVERIFY(ref);
        QVERIFY2(std::filesystem::path(ref->profile).is_absolute(), ref->profile.c_str());
    }
    queue.cancelAll();
}

void TestRunQueue::defaultBoundIsTheCoreCount() {
    RunQueue queue(choreo::test::fakeWorker(u"ok"_s));
    QCOMPARE(queue.maxParallel(), std::max(1, QThread::idealThreadCount()));
}

QTEST_MAIN(TestRunQueue)
#include "tst_runqueue.moc"
