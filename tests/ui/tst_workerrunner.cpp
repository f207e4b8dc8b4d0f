// WorkerRunner against the fake worker: every way a conversation can end.
#include "models/scenarioio.h"
#include "ui/runs/workerrunner.h"

#include <QSignalSpy>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <signal.h>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::WorkerFailure;
using choreo::ui::WorkerRunner;

namespace {

constexpr int kTimeoutMs = 15000;

choreo::models::Scenario smallScenario() {
    auto s = choreo::test::loadDefaultScenario();
    return s ? *s : choreo::models::Scenario{};
}

} // namespace

class TestWorkerRunner : public QObject {
    Q_OBJECT

private slots:
    void requestCarriesTheScenario();
    void progressThenResult();
    void failures_data();
    void failures();
    void cancelKillsTheWorker();
    void failureTextSaysEachThingOnce();
    void missingExecutable();
    void oneRunAtATime();
};

void TestWorkerRunner::requestCarriesTheScenario() {
    const auto scenario = smallScenario();
    QVERIFY(!scenario.name.empty());
    const auto request =
        choreo::models::Json::parse(WorkerRunner::runRequest(scenario, u"packet"_s).toStdString());
    QCOMPARE(request["type"].get<std::string>(), std::string("run"));
    QCOMPARE(request["fidelity"].get<std::string>(), std::string("packet"));
    choreo::models::Diagnostics errors;
    const auto back = choreo::models::parseScenario(request["scenario"].dump(), errors);
    QVERIFY2(back.has_value(), choreo::models::joinDiagnostics(errors).c_str());
    QVERIFY(*back == scenario);
}

void TestWorkerRunner::progressThenResult() {
    WorkerRunner runner(choreo::test::fakeWorker(u"ok"_s));
    QSignalSpy hello(&runner, &WorkerRunner::helloReceived);
    QSignalSpy progress(&runner, &WorkerRunner::progress);
    QSignalSpy finished(&runner, &WorkerRunner::finished);
    QSignalSpy failed(&runner, &WorkerRunner::failed);
    auto scenario = smallScenario();
    scenario.name = "fake scenario";
    QVERIFY(runner.start(scenario));
    QVERIFY(runner.isRunning());
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!runner.isRunning());
    QCOMPARE(failed.count(), 0);
    QCOMPARE(hello.count(), 1);
    QCOMPARE(hello.at(0).at(1).toLongLong(), 4242);
    QCOMPARE(progress.count(), 3);
    QCOMPARE(progress.at(0).at(0).toDouble(), 0.25);
    QCOMPARE(progress.at(1).at(1).toString(), u"simulating"_s);
    QCOMPARE(progress.at(2).at(0).toDouble(), 1.0);
    const auto result = finished.at(0).at(0).value<choreo::models::RunResult>();
    // The fake echoes the scenario's name and device count: the request reached it.
    QCOMPARE(result.scenario, std::string("fake scenario"));
    QCOMPARE(result.devices, scenario.cluster.pools.front().count);
    QCOMPARE(result.breakdown.compute_s, 1.5);
    QCOMPARE(result.memory.optimizer_GB, 20.0);
}

void TestWorkerRunner::failures_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("bySignal");
    QTest::addColumn<QString>("messagePart");
    QTest::addColumn<int>("diagnostics");
    using K = WorkerFailure::Kind;
    QTest::newRow("error") << u"error"_s << int(K::Reported) << u"invalid-input"_s << 2 << false
                           << u"the scenario is invalid"_s << 1;
    QTest::newRow("crash") << u"crash"_s << int(K::Crashed) << QString() << int(SIGABRT) << true
                           << u"worker crashed (signal 6)"_s << 0;
    QTest::newRow("exit without answer") << u"silent"_s << int(K::Crashed) << QString() << 3 << false
                                         << u"worker crashed (exit code 3)"_s << 0;
    QTest::newRow("protocol mismatch")
        << u"mismatch"_s << int(K::Protocol) << QString() << -1 << false << u"choreo-worker/0"_s << 0;
    QTest::newRow("not the protocol")
        << u"garbage"_s << int(K::Protocol) << QString() << -1 << false << u"not a protocol message"_s << 0;
}

void TestWorkerRunner::failures() {
    QFETCH(QString, mode);
    QFETCH(int, kind);
    QFETCH(QString, code);
    QFETCH(int, exitCode);
    QFETCH(bool, bySignal);
    QFETCH(QString, messagePart);
    QFETCH(int, diagnostics);

    WorkerRunner runner(choreo::test::fakeWorker(mode));
    QSignalSpy finished(&runner, &WorkerRunner::finished);
    QSignalSpy failed(&runner, &WorkerRunner::failed);
    QSignalSpy cancelled(&runner, &WorkerRunner::cancelled);
    QVERIFY(runner.start(smallScenario()));
    QVERIFY(failed.wait(kTimeoutMs));
    QTest::qWait(50); // nothing else may follow the one terminal signal
    QCOMPARE(failed.count(), 1);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(cancelled.count(), 0);
    const auto f = failed.at(0).at(0).value<WorkerFailure>();
    QCOMPARE(int(f.kind), kind);
    QCOMPARE(f.code, code);
    if (exitCode >= 0)
        QCOMPARE(f.exitCode, exitCode);
    QCOMPARE(f.bySignal, bySignal);
    QVERIFY2(f.message.contains(messagePart), qPrintable(f.message));
    QCOMPARE(int(f.diagnostics.size()), diagnostics);
    if (diagnostics > 0) {
        QCOMPARE(f.diagnostics.front().path, std::string("workload.parallel.tp"));
        QVERIFY(f.text().contains(u"\nworkload.parallel.tp: 4 does not divide heads=6"_s));
    }
    // The worker's log comes along as details (never parsed).
    QVERIFY2(f.stderrTail.contains(u"fake worker: mode"_s), qPrintable(f.stderrTail));
}

void TestWorkerRunner::cancelKillsTheWorker() {
    WorkerRunner runner(choreo::test::fakeWorker(u"hang"_s));
    QSignalSpy progress(&runner, &WorkerRunner::progress);
    QSignalSpy cancelled(&runner, &WorkerRunner::cancelled);
    QSignalSpy failed(&runner, &WorkerRunner::failed);
    QSignalSpy finished(&runner, &WorkerRunner::finished);
    QVERIFY(runner.start(smallScenario()));
    QVERIFY(progress.wait(kTimeoutMs)); // it is running and will never finish by itself
    const qint64 pid = runner.findChild<QProcess*>()->processId();
    QVERIFY(pid > 0);
    QVERIFY(::kill(static_cast<pid_t>(pid), 0) == 0);
    runner.cancel();
    QVERIFY(cancelled.wait(kTimeoutMs));
    QVERIFY(!runner.isRunning());
    QCOMPARE(failed.count(), 0);
    QCOMPARE(finished.count(), 0);
    // Reaped: the process no longer exists.
    QVERIFY(::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH);
    // The runner can be used again.
    QSignalSpy cancelledAgain(&runner, &WorkerRunner::cancelled);
    QVERIFY(runner.start(smallScenario()));
    runner.cancel();
    QVERIFY(cancelledAgain.wait(kTimeoutMs));
}

void TestWorkerRunner::failureTextSaysEachThingOnce() {
    WorkerFailure f;
    f.message = u"memory: 88 GB per device needed"_s;
    f.diagnostics = {{"memory", "88 GB per device needed"}, {"workload.parallel.tp", "must divide 8"}};
    QCOMPARE(f.text(), u"memory: 88 GB per device needed\nworkload.parallel.tp: must divide 8"_s);
}

void TestWorkerRunner::missingExecutable() {
    WorkerRunner runner({u"/nonexistent/choreo-sim"_s, {u"worker"_s}});
    QSignalSpy failed(&runner, &WorkerRunner::failed);
    QVERIFY(runner.start(smallScenario()));
    QVERIFY(failed.wait(kTimeoutMs));
    const auto f = failed.at(0).at(0).value<WorkerFailure>();
    QCOMPARE(f.kind, WorkerFailure::Kind::StartFailed);
    QVERIFY(f.message.contains(u"/nonexistent/choreo-sim"_s));
}

void TestWorkerRunner::oneRunAtATime() {
    WorkerRunner runner(choreo::test::fakeWorker(u"hang"_s));
    QSignalSpy cancelled(&runner, &WorkerRunner::cancelled);
    QVERIFY(runner.start(smallScenario()));
    QVERIFY(!runner.start(smallScenario()));
    runner.cancel();
    QVERIFY(cancelled.wait(kTimeoutMs));
    QCOMPARE(cancelled.count(), 1);
}

QTEST_GUILESS_MAIN(TestWorkerRunner)
#include "tst_workerrunner.moc"
