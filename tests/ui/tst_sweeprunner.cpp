// SweepRunner against the fake worker: bounded parallelism, results in point order, failures kept.
#include "ui/runs/sweeprunner.h"

#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <algorithm>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::SweepOutcome;
using choreo::ui::SweepRunner;

namespace {

constexpr int kTimeoutMs = 20000;

// A point the fake worker (mode "scenario") answers by its name: "sleep=N", "fail", "hang".
choreo::models::SweepPoint point(const std::string& name, std::int64_t devices) {
    choreo::models::SweepPoint p;
    p.label = name;
    p.devices = devices;
    p.scenario = choreo::test::fakeScenario(name, devices);
    return p;
}

} // namespace

class TestSweepRunner : public QObject {
    Q_OBJECT

private slots:
    void boundedParallelResultsInOrder();
    void cancelStopsEveryWorker();
    void emptySweepFinishes();
    void knownResultsAreNotSimulatedAgain();
    void defaultBoundIsTheCoreCount();
};

void TestSweepRunner::knownResultsAreNotSimulatedAgain() {
    SweepRunner sweep(choreo::test::fakeWorker(u"scenario"_s), 2);
    QSignalSpy finished(&sweep, &SweepRunner::finished);
    QSignalSpy started(&sweep, &SweepRunner::pointStarted);
    choreo::models::RunResult known;
    known.step_time_s = 42.0;
    known.devices = 16;
    // The fake worker would fail "p1 fail": a known result must be used instead of a worker.
    sweep.start({point("p0 sleep=50", 8), point("p1 fail", 16)}, u"flow"_s, {{1, known}});
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(started.count(), 2);
    const auto& outcomes = sweep.outcomes();
    QCOMPARE(outcomes[0].state, SweepOutcome::State::Succeeded);
    QCOMPARE(outcomes[1].state, SweepOutcome::State::Succeeded);
    QCOMPARE(outcomes[1].result->step_time_s, 42.0);
    QCOMPARE(outcomes[1].result->scenario, std::string("p1 fail"));
}

void TestSweepRunner::boundedParallelResultsInOrder() {
    SweepRunner sweep(choreo::test::fakeWorker(u"scenario"_s), 2);
    QCOMPARE(sweep.maxParallel(), 2);
    int running = 0, mostRunning = 0;
    QList<int> finishOrder;
    connect(&sweep, &SweepRunner::pointStarted, this,
            [&] { mostRunning = std::max(mostRunning, ++running); });
    connect(&sweep, &SweepRunner::pointFinished, this, [&](int index) {
        --running;
        finishOrder << index;
    });
    QSignalSpy finished(&sweep, &SweepRunner::finished);

    // Point 0 is the slowest, so the others finish first: order must come from the points, not the workers.
    sweep.start({point("p0 sleep=700", 8), point("p1 sleep=50", 16), point("p2 fail sleep=50", 32),
                 point("p3 sleep=50", 64)});
    QVERIFY(sweep.isRunning());
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.count(), 1);
    QVERIFY(!sweep.isRunning());
    QCOMPARE(mostRunning, 2);
    QCOMPARE(finishOrder.size(), 4);
    QVERIFY2(finishOrder.front() != 0, "the slow first point should not finish first");
    QCOMPARE(sweep.finishedCount(), 4);

    const auto& outcomes = sweep.outcomes();
    QCOMPARE(outcomes.size(), std::size_t(4));
    const std::int64_t devices[] = {8, 16, 32, 64};
    const char* names[] = {"p0 sleep=700", "p1 sleep=50", "p2 fail sleep=50", "p3 sleep=50"};
    for (std::size_t i = 0; i < 4; ++i) {
        QCOMPARE(outcomes[i].devices, devices[i]);
        QCOMPARE(outcomes[i].label, QString::fromUtf8(names[i]));
        if (i == 2)
            continue;
        QCOMPARE(outcomes[i].state, SweepOutcome::State::Succeeded);
        QVERIFY(outcomes[i].result.has_value());
        // Each result sits in its own point's slot: the fake echoes the scenario it was given.
        QCOMPARE(outcomes[i].result->scenario, std::string(names[i]));
        QCOMPARE(outcomes[i].result->devices, devices[i]);
    }
    QCOMPARE(outcomes[2].state, SweepOutcome::State::Failed);
    QVERIFY(!outcomes[2].result);
    QVERIFY(outcomes[2].failure.has_value());
    QCOMPARE(outcomes[2].failure->code, u"simulation-failed"_s);
    QVERIFY(outcomes[2].failure->message.contains(u"does not fit"_s));
}

void TestSweepRunner::cancelStopsEveryWorker() {
    SweepRunner sweep(choreo::test::fakeWorker(u"scenario"_s), 2);
    QSignalSpy started(&sweep, &SweepRunner::pointStarted);
    QSignalSpy cancelled(&sweep, &SweepRunner::cancelled);
    QSignalSpy finished(&sweep, &SweepRunner::finished);
    sweep.start({point("a hang", 8), point("b hang", 16), point("c hang", 32)});
    QCOMPARE(started.count(), 2);
    QTest::qWait(100);
    sweep.cancel();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!sweep.isRunning());
    for (const auto& o : sweep.outcomes())
        QCOMPARE(o.state, SweepOutcome::State::Cancelled);
    QTest::qWait(200);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(started.count(), 2); // the third point never started
}

void TestSweepRunner::emptySweepFinishes() {
    SweepRunner sweep(choreo::test::fakeWorker(u"scenario"_s), 2);
    QSignalSpy finished(&sweep, &SweepRunner::finished);
    sweep.start({});
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(sweep.outcomes().empty());
}

void TestSweepRunner::defaultBoundIsTheCoreCount() {
    const SweepRunner sweep(choreo::test::fakeWorker(u"scenario"_s));
    QCOMPARE(sweep.maxParallel(), std::max(1, QThread::idealThreadCount()));
}

QTEST_GUILESS_MAIN(TestSweepRunner)
#include "tst_sweeprunner.moc"
