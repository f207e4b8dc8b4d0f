// The SimGrid engine against closed forms. Run one function per process (see CMakeLists.txt).
#include "sim/isolate.h"
#include "sim/probes.h"

#include <QTest>

#include <cmath>
#include <csignal>
#include <stdexcept>

using namespace choreo::sim;

namespace {
double relativeError(double got, double want) {
    return std::fabs(got - want) / want;
}
} // namespace

class TestEngine : public QObject {
    Q_OBJECT
private slots:
    void computeMatchesAnalyticalTime() {
        const double flops = 3.7e15, speed = 989.4e12;
        const double t = probeCompute(flops, speed);
        QVERIFY2(relativeError(t, flops / speed) < 0.005, qPrintable(QString::number(t)));
    }

    void twoFlowsShareOneLink() {
        // Two processes, because each probe is a SimGrid engine of its own.
        const auto out = runIsolated({[] {
                                          return std::to_string(probeSharedLink(1, 1e9, {10e9, 0}));
                                      },
                                      [] {
                                          return std::to_string(probeSharedLink(2, 1e9, {10e9, 0}));
                                      }},
                                     2);
        QVERIFY(out[0].ok && out[1].ok);
        const double one = std::stod(out[0].output), two = std::stod(out[1].output);
        QVERIFY2(relativeError(one, 0.1) < 1e-6, qPrintable(QString::number(one))); // 1 GB at 10 GB/s
        QVERIFY2(relativeError(two, 2.0 * one) < 0.01,
                 qPrintable(QStringLiteral("%1 vs %2").arg(two).arg(one)));
    }

    // SimGrid's torus zone routes as the topology plan says (x fastest, shortest way round each ring).
    void torusRoutesFollowThePlan() { QCOMPARE(probeTorusRouteMismatches(3, 4, 2), 0); }

    void ringAllReduceFlow() { checkRing(Fidelity::Flow); }
    void ringAllReducePacket() { checkRing(Fidelity::Packet); }

    void flowAndPacketAgree() {
        const ProbeLinks links{25e9, 1.5e-6};
        const auto out = runIsolated(
            {[&] { return std::to_string(probeRingAllReduce(16, 64e6, links, Fidelity::Flow)); },
             [&] { return std::to_string(probeRingAllReduce(16, 64e6, links, Fidelity::Packet)); }},
            2);
        QVERIFY(out[0].ok && out[1].ok);
        const double flow = std::stod(out[0].output), packet = std::stod(out[1].output);
        QVERIFY2(relativeError(flow, packet) < 0.03,
                 qPrintable(QStringLiteral("%1 vs %2").arg(flow).arg(packet)));
    }

    void sweepRunsInIsolatedProcesses() {
        // A crash in one job is reported as that job's failure; the others and the caller go on.
        const auto out =
            runIsolated({[] { return std::string("fine"); }, []() -> std::string { std::abort(); },
                         []() -> std::string { throw std::runtime_error("bad input"); }},
                        2);
        QVERIFY(out[0].ok);
        QCOMPARE(out[0].output, std::string("fine"));
        QVERIFY(!out[1].ok);
        QCOMPARE(out[1].exit_code, 128 + SIGABRT);
        QVERIFY(!out[2].ok);
        QCOMPARE(out[2].output, std::string("bad input"));
    }

private:
    static void checkRing(Fidelity fidelity) {
        // 8 devices, one per node: every ring step crosses two NIC links of 2 us each.
        const int n = 8;
        const double bytes = 1e9, bandwidth = 50e9, linkLatency = 2e-6;
        const double t = probeRingAllReduce(n, bytes, {bandwidth, linkLatency}, fidelity);
        const double steps = 2.0 * (n - 1);
        const double expected = steps / n * bytes / bandwidth + steps * 2.0 * linkLatency;
        QVERIFY2(relativeError(t, expected) < 0.02,
                 qPrintable(QStringLiteral("%1 vs %2").arg(t).arg(expected)));
    }
};

QTEST_APPLESS_MAIN(TestEngine)
#include "tst_engine.moc"
