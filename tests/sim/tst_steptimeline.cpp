// The step timeline each fidelity reports: a partition of the step per pipeline stage that agrees with the
// step time, the breakdown and the energy, and is the same schedule at every fidelity. Each simulation runs
// in its own process (one SimGrid engine per process).
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "sim/simulator.h"

#include <QTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "tests/sim/childrun.h"

using namespace choreo;
using models::ActivityKind;

namespace {

struct Layout {
    std::int64_t tp, pp, dp, vp;
    int zero;
    std::int64_t micro = 8;    // micro-batches per step
    bool overlap = false;      // tp-comm and parameter-gather overlap
    bool gradOverlap = true;   // gradient reduction during the last backward
    std::int64_t ep = 1;       // above 1: a Mixture-of-Experts model (8 experts, top 2) over ep devices
    std::int64_t etp = 0;      // expert tensor parallelism (0: tp)
    bool epOverlap = false;    // combined 1F1B: expert all-to-alls beside the other micro-batch's compute
    bool fullRecompute = true; // the example's; Megatron-Core refuses the combined 1F1B with it
};

// The example scenario on 32 devices: small enough for packet fidelity, with 8 micro-batches.
models::RunResult run(const Layout& l, sim::Fidelity fidelity) {
    const std::filesystem::path assets(CHOREO_TEST_ASSETS);
    models::Diagnostics errors;
    auto catalog = models::Catalog::load(assets / "catalog", errors);
    auto scenario = models::loadScenarioFile(assets / "scenarios" / "default.json", errors);
    if (!catalog || !scenario)
        throw std::runtime_error(models::joinDiagnostics(errors));
    auto& w = scenario->workload;
    scenario->cluster.pools.front().count = l.tp * l.pp * l.dp;
    w.parallel.tp = l.tp;
    w.parallel.pp = l.pp;
    w.parallel.dp = l.dp;
    w.parallel.vp = l.vp;
    w.parallel.zero = l.zero;
    w.overlap = {l.overlap, l.overlap, l.gradOverlap, l.epOverlap};
    if (!l.fullRecompute)
        w.recompute = models::Recompute::None;
    w.global_batch = l.micro * l.dp;
    w.model.layers = 16;
    w.model.seq_len = 2048;
    if (l.ep > 1) {
        w.model.moe = models::MoeShape{8, 2, 7168, 0, 0};
        w.parallel.ep = l.ep;
        w.parallel.etp = l.etp;
    }
    auto rs = models::resolveScenario(*scenario, *catalog, errors);
    if (!rs)
        throw std::runtime_error(models::joinDiagnostics(errors));
    return test::runInChild(*rs, fidelity);
}

using test::relative;

} // namespace

Q_DECLARE_METATYPE(Layout)

class TestStepTimeline : public QObject {
    Q_OBJECT

private slots:
    void consistentAtEveryFidelity_data() {
        QTest::addColumn<Layout>("layout");
        QTest::newRow("1F1B, tp 2, pp 4, ZeRO-1") << Layout{2, 4, 4, 1, 1};
        QTest::newRow("interleaved vp 2") << Layout{2, 4, 4, 2, 1};
        QTest::newRow("ZeRO-3, pp 2") << Layout{2, 2, 8, 1, 3};
        QTest::newRow("tp-comm and parameter-gather overlap") << Layout{4, 2, 4, 1, 1, 8, true};
        QTest::newRow("all-reduce after the backward") << Layout{2, 4, 4, 1, 0, 8, false, false};
        // Expert parallelism folded into the tensor ranks: 8 consecutive devices, one node.
        QTest::newRow("MoE, ep 8 over tp 4 x dp 4, etp 1") << Layout{4, 2, 4, 1, 1, 8, false, true, 8, 1};
        // Expert all-to-alls across nodes, overlapped in the combined 1F1B, interleaved.
        QTest::newRow("MoE, combined 1F1B, pp 2 x vp 2")
            << Layout{4, 2, 4, 2, 1, 8, false, true, 4, 0, true, false};
        // About 5,000 intervals per stage as simulated: the reported timeline folds, the power does not.
        QTest::newRow("over the size cap") << Layout{2, 4, 1, 1, 1, 1000};
    }

    void consistentAtEveryFidelity() {
        QFETCH(Layout, layout);
        std::map<std::string, models::RunResult> results;
        for (auto f : {sim::Fidelity::Analytical, sim::Fidelity::Flow, sim::Fidelity::Packet})
            results[sim::toString(f)] = run(layout, f);
        const std::int64_t micro = layout.micro;
        for (const auto& [fidelity, r] : results) {
            const QByteArray where = QByteArray::fromStdString(fidelity);
            const auto& t = r.timeline;
            QCOMPARE(static_cast<std::int64_t>(t.stages.size()), layout.pp);
            // The timeline spans the step; every stage's intervals sum to it.
            QVERIFY2(relative(t.step_time_s, r.step_time_s) < 1e-12, where);
            double criticalGap = 1e300;
            for (const auto& s : t.stages) {
                QCOMPARE(s.devices, layout.tp * layout.dp);
                double sum = 0.0;
                std::set<std::int64_t> forwards;
                for (const auto& i : s.intervals) {
                    sum += i.duration_s();
                    if (i.kind == ActivityKind::Forward)
                        forwards.insert(i.micro_batch);
                }
                QVERIFY2(relative(sum, r.step_time_s) < 1e-9, where);
                if (t.folded_below_s == 0.0)
                    QCOMPARE(static_cast<std::int64_t>(forwards.size()), micro);
                else
                    QVERIFY(s.intervals.size() <= models::intervalCapPerStage(t.stages.size()));
                QVERIFY2(s.total_s(ActivityKind::Optimizer) > 0.0, where);
                // Folding moves short activities' time to their predecessors: totals hold only unfolded.
                if (t.folded_below_s == 0.0)
                    QVERIFY2(s.total_s(ActivityKind::Backward) > s.total_s(ActivityKind::Forward), where);
                criticalGap = std::min(criticalGap, relative(s.compute_s(), r.breakdown.compute_s));
            }
            // The stage that sets the breakdown computes exactly what the breakdown says (when nothing was
            // folded away).
            if (t.folded_below_s == 0.0)
                QVERIFY2(criticalGap < 1e-6, where + " " + QByteArray::number(criticalGap));
            // The power trace integrates to the energy the result reports, per step (IT and facility).
            const double itPerStep = r.it_power_kW * 1e3 * r.step_time_s;
            QVERIFY2(relative(r.power.itEnergy_J(), itPerStep) < 1e-6,
                     where + " " + QByteArray::number(r.power.itEnergy_J()) + " vs " +
                         QByteArray::number(itPerStep));
            // The failures' energy (redone work, stalls, recoveries) is on top of the steps'.
            const double stepsKWh = r.energy_kWh - (r.whole_run ? r.whole_run->lost_energy_kWh : 0.0);
            QVERIFY2(relative(r.power.facilityEnergy_J(), stepsKWh * 3.6e6 / r.steps) < 1e-6, where);
        }
        // The same schedule: each stage computes as long at every fidelity, and the steps agree closely.
        const auto& a = results.at("analytical").timeline;
        for (const auto& [fidelity, r] : results) {
            for (std::size_t s = 0; s < a.stages.size() && a.folded_below_s == 0.0; ++s)
                QVERIFY2(relative(r.timeline.stages[s].compute_s(), a.stages[s].compute_s()) < 1e-6,
                         QByteArray::fromStdString(fidelity));
            QVERIFY2(relative(r.step_time_s, results.at("analytical").step_time_s) < 0.05,
                     QByteArray::fromStdString(fidelity));
        }
    }

    // Overlapping tensor collectives with the GEMMs and the parameter gather with the first forward
    // shortens the step, by no more than the communication it hides: the computation stays the same.
    void overlapShortensTheStep() {
        for (auto f : {sim::Fidelity::Analytical, sim::Fidelity::Flow}) {
            const QByteArray where = QByteArray::fromStdString(sim::toString(f));
            const auto off = run(Layout{4, 2, 4, 1, 1, 8, false}, f);
            const auto on = run(Layout{4, 2, 4, 1, 1, 8, true}, f);
            QVERIFY2(on.step_time_s < off.step_time_s, where);
            QVERIFY2(relative(on.breakdown.compute_s, off.breakdown.compute_s) < 1e-9, where);
            QVERIFY2(on.breakdown.exposed_communication_s < off.breakdown.exposed_communication_s, where);
            QVERIFY2(on.step_time_s >= on.breakdown.compute_s, where);
        }
    }

    // The overlapped parameter gather that the first forward of a step waits for is data-parallel time in
    // the flow timeline, not the tensor collectives that end that forward: flow and the closed form put
    // the step's waiting in the same kinds, the forward's own tensor time as tensor time.
    void parameterGatherWaitIsDataParallel() {
        std::map<sim::Fidelity, models::StageTimeline> stage;
        for (auto f : {sim::Fidelity::Analytical, sim::Fidelity::Flow})
            stage[f] = run(Layout{4, 1, 8, 1, 1, 2, true}, f).timeline.stages.front();
        for (const auto& [f, st] : stage) {
            const double data = st.total_s(ActivityKind::DataComm);
            const double tensor = st.total_s(ActivityKind::TensorComm);
            QVERIFY2(data > 2.0 * tensor, QByteArray::fromStdString(sim::toString(f)) + ": " +
                                              QByteArray::number(data) + " vs " + QByteArray::number(tensor));
        }
        const auto& a = stage[sim::Fidelity::Analytical];
        const auto& b = stage[sim::Fidelity::Flow];
        const double data = a.total_s(ActivityKind::DataComm);
        QVERIFY2(relative(b.total_s(ActivityKind::DataComm), data) < 0.1,
                 QByteArray::number(b.total_s(ActivityKind::DataComm)) + " vs " + QByteArray::number(data));
        const double tensor = a.total_s(ActivityKind::TensorComm);
        QVERIFY2(relative(b.total_s(ActivityKind::TensorComm), tensor) < 0.25,
                 QByteArray::number(b.total_s(ActivityKind::TensorComm)) + " vs " +
                     QByteArray::number(tensor));
    }

    // Expert tensor parallelism 1 makes expert groups of consecutive devices: with tp 4 and dp 8 on nodes
    // of 8, ep 8 is one node's devices instead of the 8 data-parallel ranks of one tensor rank on 4 nodes,
    // so the all-to-alls run over NVLink rather than the NICs (1 of 7 peers on the node before). The price:
    // each device holds a whole expert instead of a quarter, so 4 replicas of the experts (expert
    // data-parallel groups of 4) reduce 4 times the expert gradients. The expert GEMMs do the same FLOPs.
    void expertFoldingKeepsTheAllToAllInTheNode() {
        for (auto f : {sim::Fidelity::Analytical, sim::Fidelity::Flow}) {
            const QByteArray where = QByteArray::fromStdString(sim::toString(f));
            const auto across = run(Layout{4, 1, 8, 1, 1, 4, false, true, 8, 0}, f);
            const auto folded = run(Layout{4, 1, 8, 1, 1, 4, false, true, 8, 1}, f);
            const auto& a = across.timeline.stages.front();
            const auto& b = folded.timeline.stages.front();
            QVERIFY2(b.total_s(ActivityKind::TensorComm) < 0.6 * a.total_s(ActivityKind::TensorComm),
                     where + " " + QByteArray::number(b.total_s(ActivityKind::TensorComm)) + " vs " +
                         QByteArray::number(a.total_s(ActivityKind::TensorComm)));
            QVERIFY2(b.total_s(ActivityKind::DataComm) > 1.5 * a.total_s(ActivityKind::DataComm), where);
            QVERIFY2(folded.step_time_s < across.step_time_s, where);
            QVERIFY2(relative(folded.breakdown.compute_s, across.breakdown.compute_s) < 0.05, where);
        }
    }

    // The combined 1F1B (Megatron-Core's --overlap-moe-expert-parallel-comm) runs each steady-state forward
    // beside a backward, their all-to-alls beside each other's computation: across nodes (ep 8 over the 8
    // data-parallel ranks of one tensor rank, 4 nodes), the step shortens by no more than the all-to-alls
    // it hides, the computation is the same, and the closed form and the flow simulation agree.
    void expertOverlapShortensTheStep() {
        std::map<sim::Fidelity, double> step;
        for (auto f : {sim::Fidelity::Analytical, sim::Fidelity::Flow}) {
            const QByteArray where = QByteArray::fromStdString(sim::toString(f));
            const auto on = run(Layout{4, 1, 8, 1, 1, 8, false, true, 8, 0, true, false}, f);
            const auto plain = run(Layout{4, 1, 8, 1, 1, 8, false, true, 8, 0, false, false}, f);
            QVERIFY2(on.step_time_s <
                         plain.step_time_s - 0.05 * (plain.step_time_s - plain.breakdown.compute_s),
                     where + " " + QByteArray::number(on.step_time_s) + " vs " +
                         QByteArray::number(plain.step_time_s));
            QVERIFY2(relative(on.breakdown.compute_s, plain.breakdown.compute_s) < 1e-9,
                     where + " " + QByteArray::number(on.breakdown.compute_s) + " vs " +
                         QByteArray::number(plain.breakdown.compute_s));
            QVERIFY2(on.step_time_s >= on.breakdown.compute_s, where);
            QVERIFY2(on.breakdown.exposed_communication_s < plain.breakdown.exposed_communication_s, where);
            step[f] = on.step_time_s;
        }
        QVERIFY2(relative(step[sim::Fidelity::Flow], step[sim::Fidelity::Analytical]) < 0.05,
                 QByteArray::number(step[sim::Fidelity::Flow]) + " vs " +
                     QByteArray::number(step[sim::Fidelity::Analytical]));
    }

    // Reducing gradients only after the whole backward (Megatron-LM 2021) exposes what the buckets hid
    // behind the last backward: a longer step, the same computation.
    void gradientReductionAfterTheBackward() {
        for (auto f : {sim::Fidelity::Analytical, sim::Fidelity::Flow}) {
            const QByteArray where = QByteArray::fromStdString(sim::toString(f));
            const auto on = run(Layout{2, 4, 4, 1, 0, 8, false, true}, f);
            const auto off = run(Layout{2, 4, 4, 1, 0, 8, false, false}, f);
            QVERIFY2(off.step_time_s > on.step_time_s, where);
            QVERIFY2(relative(on.breakdown.compute_s, off.breakdown.compute_s) < 1e-9, where);
            QVERIFY2(off.breakdown.exposed_communication_s > on.breakdown.exposed_communication_s, where);
        }
    }
};

QTEST_APPLESS_MAIN(TestStepTimeline)
#include "tst_steptimeline.moc"
