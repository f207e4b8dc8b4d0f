// The SimGrid engine against closed forms. Run one function per process (see CMakeLists.txt).
#include "sim/channels.h"
#include "sim/isolate.h"
#include "sim/platformspec.h"
#include "sim/probes.h"
#include "sim/schedule.h"

#include <QTest>

#include <cmath>
#include <csignal>
#include <numeric>
#include <set>
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
    // Megatron-Core's combined 1F1B adds one warm-up forward (schedules.py, get_pp_rank_microbatches) and
    // runs each steady-state forward with the backward after it: without pipelining F0, F1+B0, F2+B1,
    // F3+B2, B3; interleaved, every pair's forward and backward are independent: the backward's own
    // forward (same chunk and micro-batch) came in an earlier operation.
    void combinedScheduleHasOneMoreWarmup() {
        const auto plain = pipelineSchedule(1, 1, 4);
        const auto combined = pipelineSchedule(1, 1, 4, true);
        QCOMPARE(plain.front().size(), combined.front().size());
        const auto& c = combined.front();
        QVERIFY(!c[0].backward && !c[0].paired && c[0].micro == 0);
        for (std::size_t i = 1; i + 1 < c.size(); i += 2) {
            QVERIFY(!c[i].backward && c[i].paired && c[i].micro == static_cast<std::int64_t>(i / 2 + 1));
            QVERIFY(c[i + 1].backward && c[i + 1].paired &&
                    c[i + 1].micro == static_cast<std::int64_t>(i / 2));
        }
        QVERIFY(c.back().backward && !c.back().paired && c.back().micro == 3);
        // The last chunk's backward needs its own forward: on the last device, before the pair it is in.
        const auto& last = pipelineSchedule(4, 2, 8, true).back();
        for (std::size_t i = 1; i < last.size(); ++i) {
            const auto& op = last[i];
            if (!op.backward || !op.paired)
                continue;
            QVERIFY(last[i - 1].paired && !last[i - 1].backward);
            if (op.chunk != 7)
                continue;
            bool before = false;
            for (std::size_t k = 0; k + 1 < i; ++k)
                before = before || (!last[k].backward && last[k].chunk == 7 && last[k].micro == op.micro);
            QVERIFY2(before, QByteArray::number(static_cast<int>(i)));
        }
        const auto interleaved = pipelineSchedule(4, 2, 8);
        const auto withPairs = pipelineSchedule(4, 2, 8, true);
        for (std::size_t s = 0; s < 4; ++s) {
            auto warmup = [](const std::vector<PipelineSlot>& order) {
                std::size_t n = 0;
                while (n < order.size() && !order[n].backward)
                    ++n;
                return n;
            };
            QCOMPARE(warmup(withPairs[s]), warmup(interleaved[s]) + 1);
        }
    }

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
    // Axes of 1 are left out of SimGrid's zone (Platform::buildTorus): a ring, and a torus whose middle axis
    // is 1, keep the plan's numbering and hops.
    void torusRingRoutesFollowThePlan() { QCOMPARE(probeTorusRouteMismatches(8, 1, 1), 0); }
    void torusWithAnAxisOfOneRoutesFollowThePlan() { QCOMPARE(probeTorusRouteMismatches(2, 1, 3), 0); }

    void ringAllReduceFlow() { checkRing(Fidelity::Flow); }
    void ringAllReducePacket() { checkRing(Fidelity::Packet); }

    // 4 nodes of 4 devices: NCCL-like channels leave each node through all 4 NICs, so the NIC-bound
    // all-reduce takes a quarter of the flat ring's time: 2(n-1)/n * bytes / (4 * nic).
    void channelAllReduceFlow() { checkChannels(Fidelity::Flow); }
    void channelAllReducePacket() { checkChannels(Fidelity::Packet); }

    // NCCL's latency model (tuning.cc, ring/Simple): an all-reduce over 4 nodes of 4 devices takes
    // 2 * 15 = 30 steps, 2 * (4 - 1) = 6 of them over the network: 8.4 + 24 * 3.4 + 6 * 14 = 174 us, plus
    // the bandwidth term 30/16 * 1 MB / (4 * 25 GB/s) = 18.75 us.
    void ringLatencyFollowsNccl() {
        PlatformSpec spec;
        spec.devices = 16;
        spec.devices_per_node = 4;
        spec.scale_up_latency_s = 0.5e-6; // a route crosses two: 1 us
        spec.nic_latency_s = 0.5e-6;
        spec.collective_base_s = 8.4e-6;
        spec.ring_step_scale_up_s = 3.4e-6;
        spec.ring_step_network_s = 14e-6;
        std::vector<std::int64_t> ranks(16);
        std::iota(ranks.begin(), ranks.end(), 0);
        QVERIFY(std::fabs(spec.ringLatency(ranks, 30) - 174e-6) < 1e-12);
        // An all-gather makes one pass: 8.4 + 12 * 3.4 + 3 * 14 = 91.2 us.
        QVERIFY(std::fabs(spec.ringLatency(ranks, 15) - 91.2e-6) < 1e-12);
        // Inside one node: base and scale-up steps only; 4 ranks, all-reduce: 8.4 + 6 * 3.4 = 28.8 us.
        QVERIFY(std::fabs(spec.ringLatency({0, 1, 2, 3}, 6) - 28.8e-6) < 1e-12);
        // Without a library model the links' own latency paces every step (1 us per route here).
        spec.collective_base_s = spec.ring_step_scale_up_s = spec.ring_step_network_s = 0.0;
        QVERIFY(std::fabs(spec.ringLatency(ranks, 30) - 30e-6) < 1e-12);
        // Ring attention's neighbour exchanges: the slowest edge per step.
        spec.ring_step_network_s = 14e-6;
        QVERIFY(std::fabs(spec.passLatency(ranks, 3) - 42e-6) < 1e-12);
    }
    // NCCL's tree all-reduce: 16 nodes of 4, 1 MB per rank. Ring: 8.4 + 96 * 3.4 + 30 * 14 = 754.8 us;
    // tree: 8.4 + 2 * (3 * 4 + log2(16) * 14) = 144.4 us, its bytes 64/63/0.92 times the ring's. The tuner
    // picks the tree; for 1 GB per rank, where bandwidth rules, the ring.
    void treeAllReduceChoice() {
        PlatformSpec spec;
        spec.devices = 64;
        spec.devices_per_node = 4;
        spec.scale_up_Bps = 400e9;
        spec.nic_Bps = 25e9;
        spec.collective_base_s = 8.4e-6;
        spec.ring_step_scale_up_s = 3.4e-6;
        spec.ring_step_network_s = 14e-6;
        spec.tree_step_scale_up_s = 4e-6;
        spec.tree_step_network_s = 14e-6;
        spec.tree_bandwidth_fraction = 0.92;
        std::vector<std::int64_t> ranks(64);
        std::iota(ranks.begin(), ranks.end(), 0);
        QVERIFY(std::fabs(spec.ringLatency(ranks, 126) - 754.8e-6) < 1e-12);
        QVERIFY(std::fabs(spec.treeLatency(ranks) - 144.4e-6) < 1e-12);
        QVERIFY(std::fabs(spec.treeBytesFactor(64) - 64.0 / 63.0 / 0.92) < 1e-12);
        QVERIFY(allReduceAlgorithm(spec, ranks, 1e6).tree);
        QVERIFY(!allReduceAlgorithm(spec, ranks, 1e9).tree);
        // Without tree figures (a library Choreo has no model of), rings only.
        spec.tree_bandwidth_fraction = 0.0;
        QVERIFY(!allReduceAlgorithm(spec, ranks, 1e6).tree);
    }
    // A NIC's measured efficiency (NCCL's 46-48 of 50 GB/s per NDR NIC) applies to NICs; the scale-up fabric
    // keeps `network`; without it NICs fall back to `network`.
    void nicEfficiencyAppliesToNicsOnly() {
        choreo::models::Device d;
        d.id = "test";
        d.peak_tflops[choreo::models::Precision::Bf16].value = 1000;
        d.efficiency.network.value = 0.8;
        d.efficiency.nic.value = 0.94;
        choreo::models::ResolvedScenario rs;
        const choreo::models::Pool pool{"p", "test", 16, 8};
        rs.scenario.cluster.pools = {pool};
        rs.pools = {choreo::models::ResolvedPool{pool, &d}};
        rs.scale_up_Bps = 450e9;
        rs.nic_Bps = 50e9;
        const PlatformSpec s = PlatformSpec::fromScenario(rs);
        QCOMPARE(s.nic_Bps, 50e9 * 0.94);
        QCOMPARE(s.scale_up_Bps, 450e9 * 0.8);
        d.efficiency.nic = {};
        QCOMPARE(PlatformSpec::fromScenario(rs).nic_Bps, 50e9 * 0.8);
    }
    void treeAllReduceFlow() { checkTree(Fidelity::Flow); }
    void treeAllReducePacket() { checkTree(Fidelity::Packet); }

    void ringLatencyFlow() { checkLibraryLatency(Fidelity::Flow); }
    void ringLatencyPacket() { checkLibraryLatency(Fidelity::Packet); }

    // 8 devices on 8 nodes, 1 GB per rank: each NIC sends and receives 7/8 GB at 50 GB/s, after one route
    // of two 2 us links: 7/8 * 1e9 / 50e9 + 4e-6 = 17.504 ms.
    void allToAllFlow() { checkAllToAll(Fidelity::Flow); }
    void allToAllPacket() { checkAllToAll(Fidelity::Packet); }

    void channelsLeaveThroughEveryNic() {
        PlatformSpec spec;
        spec.devices = 16;
        spec.devices_per_node = 4;
        std::vector<std::int64_t> ranks(16);
        std::iota(ranks.begin(), ranks.end(), 0);
        const auto channels = ringChannels(spec, ranks);
        QCOMPARE(channels.size(), std::size_t{4});
        std::set<std::int64_t> exits; // the device of node 0 whose next rank is on node 1
        for (const auto& ring : channels) {
            QCOMPARE(ring.size(), ranks.size());
            QCOMPARE(std::set<std::int64_t>(ring.begin(), ring.end()).size(), ranks.size());
            exits.insert(ring[3]);
            QVERIFY(!spec.sameNode(ring[3], ring[4]));
        }
        QCOMPARE(exits.size(), std::size_t{4});
        // One rank per node, a single node, or ranks not grouped by node: the ring itself.
        QCOMPARE(ringChannelCount(spec, {0, 4, 8, 12}), std::int64_t{1});
        QCOMPARE(ringChannelCount(spec, {0, 1, 2, 3}), std::int64_t{1});
        QCOMPARE(ringChannelCount(spec, {0, 4, 1, 5, 2, 6, 3, 7}), std::int64_t{1});
        QCOMPARE(ringChannelCount(spec, {0, 1, 4, 5, 8, 9}), std::int64_t{2});
    }

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
    static void checkAllToAll(Fidelity fidelity) {
        const double t = probeAllToAll(8, 1e9, {50e9, 2e-6}, fidelity);
        const double expected = 7.0 / 8.0 * 1e9 / 50e9 + 4e-6;
        QVERIFY2(relativeError(t, expected) < 0.02,
                 qPrintable(QStringLiteral("%1 vs %2").arg(t).arg(expected)));
    }

    static void checkChannels(Fidelity fidelity) {
        const int nodes = 4, perNode = 4, n = nodes * perNode;
        const double bytes = 1e9, nic = 25e9, latency = 1e-6;
        const double t =
            probeNodeRingAllReduce(nodes, perNode, bytes, {nic, latency}, {400e9, latency}, fidelity);
        const double steps = 2.0 * (n - 1);
        // NIC-bound: each device sends 1/4 of its ring traffic over its NIC; each step crosses two NIC links.
        const double expected = steps / n * bytes / (perNode * nic) + steps * 2.0 * latency;
        QVERIFY2(relativeError(t, expected) < 0.03,
                 qPrintable(QStringLiteral("%1 vs %2").arg(t).arg(expected)));
    }

    static void checkLibraryLatency(Fidelity fidelity) {
        const double t = probeNodeRingAllReduce(4, 4, 1e6, {25e9, 0.5e-6}, {400e9, 0.5e-6}, fidelity,
                                                {8.4e-6, 3.4e-6, 14e-6});
        const double expected = 174e-6 + 30.0 / 16.0 * 1e6 / (4.0 * 25e9);
        QVERIFY2(relativeError(t, expected) < 0.03,
                 qPrintable(QStringLiteral("%1 vs %2").arg(t).arg(expected)));
    }

    static void checkTree(Fidelity fidelity) {
        const double t = probeNodeRingAllReduce(16, 4, 1e6, {25e9, 0.5e-6}, {400e9, 0.5e-6}, fidelity,
                                                {8.4e-6, 3.4e-6, 14e-6, 4e-6, 14e-6, 0.92});
        const double ringBytes = 2.0 * 63.0 / 64.0 * 1e6 / (4.0 * 25e9);
        const double expected = 144.4e-6 + ringBytes * 64.0 / 63.0 / 0.92;
        QVERIFY2(relativeError(t, expected) < 0.03,
                 qPrintable(QStringLiteral("%1 vs %2").arg(t).arg(expected)));
    }

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
