// Periodic evaluation (workload.stages, kind "eval"): its closed form by hand, on the training devices
// (which pause for it) and on a pool of its own (which gets the weights and runs beside the training),
// and the errors of bad stages.
#include "models/evalstage.h"
#include "models/fieldoverride.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "models/transformer.h"

#include <QTest>

#include <cmath>
#include <filesystem>

#include "tests/models/stagetesting.h"

using namespace choreo::models;
using namespace Qt::StringLiterals;

namespace {

using choreo::test::kAssets;
const std::filesystem::path& kDefault = choreo::test::kDefaultScenario;
const std::string kTwoPools =
    R"(cluster.pools=[{"name": "gpus", "device": "h100-sxm", "count": 128, )"
    R"("devices_per_node": 8}, {"name": "evals", "device": "h100-sxm", "count": 16, )"
    R"("devices_per_node": 8}])";

// The default scenario (Llama-3 70B on 128 H100) with `assignments` applied, resolved.
std::optional<ResolvedScenario> load(const std::vector<std::string>& assignments, Diagnostics& errors) {
    return choreo::test::resolveWith(kDefault, assignments, errors);
}

ResolvedScenario loadOrFail(const std::vector<std::string>& assignments) {
    return choreo::test::resolveOrFail(kDefault, assignments);
}

StepMeasurement trainStep(const ResolvedScenario& rs, double seconds) {
    StepMeasurement m;
    m.step_time_s = seconds;
    m.breakdown.compute_s = seconds;
    m.it_energy_per_step_J = 700.0 * static_cast<double>(rs.pool().count) * seconds;
    m.fidelity = "analytical";
    return m;
}

} // namespace

class TestEvalStage : public QObject {
    Q_OBJECT

private slots:
    // On the training devices: the forward FLOPs of the eval samples at their GEMM rate, paid every
    // every_steps steps.
    void onTheTrainingPoolByHand() {
        const ResolvedScenario rs =
            loadOrFail({R"(workload.stages=[{"kind": "eval", "every_steps": 100, "samples": 4096}])"});
        QVERIFY(rs.eval && !rs.eval->pool);
        const Workload& w = rs.workload();
        const Device& h100 = rs.device();
        const double flops = stepFlops(w).forward * 4096.0 / static_cast<double>(w.global_batch);
        const double rate = 128.0 * *h100.peakFlops(w.precision) * h100.efficiency.gemmAt(w.precision).value;
        const EvalTimes t = evalTimes(*rs.eval, w);
        QVERIFY(std::fabs(t.forward_s - flops / rate) < 1e-12 * t.forward_s);
        QCOMPARE(t.per_step_s, t.forward_s / 100.0);
        const RunResult r = finishResult(rs, trainStep(rs, 10.0));
        QCOMPARE(r.step_time_s, 10.0 + t.per_step_s);
        QCOMPARE(r.breakdown.eval_s, t.per_step_s);
        QCOMPARE(r.pools[0].stages, (std::vector<std::string>{"train", "eval"}));
        // Evaluating more often never makes training faster.
        const ResolvedScenario often =
            loadOrFail({R"(workload.stages=[{"kind": "eval", "every_steps": 10, "samples": 4096}])"});
        QVERIFY(finishResult(often, trainStep(often, 10.0)).step_time_s > r.step_time_s);
        Diagnostics errors;
        auto back = resultFromJson(resultToJson(r), errors);
        QVERIFY2(back && back->eval, joinDiagnostics(errors).c_str());
        QCOMPARE(back->eval->forward_s, t.forward_s);
        QCOMPARE(back->breakdown.eval_s, r.breakdown.eval_s);
    }

    // On its own pool: the weights copied to it, nothing paid by the training.
    void onItsOwnPool() {
        const ResolvedScenario rs = loadOrFail(
            {kTwoPools,
             R"(workload.stages=[{"kind": "eval", "every_steps": 100, "samples": 4096, "pool": "evals"}])"});
        QVERIFY(rs.eval && rs.eval->pool == std::size_t(1));
        const EvalTimes t = evalTimes(*rs.eval, rs.workload());
        QCOMPARE(t.per_step_s, 0.0);
        QVERIFY(t.weights_s > 0);
        // 70.6 billion 16-bit weights over 16 H100 NICs (the narrower side) at their achieved rate.
        const double weights = countParameters(rs.workload().model).total() * 2.0;
        const Device& h100 = rs.device();
        QVERIFY(std::fabs(t.weights_s - weights / (16 * 400e9 / 8 * h100.efficiency.nicFraction())) <
                1e-9 * t.weights_s);
        QCOMPARE(t.busy_per_step_s, (t.forward_s + t.weights_s) / 100.0);
        const RunResult r = finishResult(rs, trainStep(rs, 10.0));
        QCOMPARE(r.step_time_s, 10.0);
        QCOMPARE(r.pools[1].stages, std::vector<std::string>{"eval"});
        QVERIFY(std::fabs(r.pools[1].utilisation - t.busy_per_step_s / 10.0) < 1e-12);
    }

    void badStages_data() {
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing pool") << uR"({"kind": "eval", "pool": "tpus"})"_s
                                      << u"workload.stages[0].pool"_s << u"no pool named \"tpus\""_s;
        QTest::newRow("zero interval") << uR"({"kind": "eval", "every_steps": 0})"_s
                                       << u"workload.stages[0].every_steps"_s << u"at least 1"_s;
        // 0 samples means one global batch (the default); fewer is refused.
        QTest::newRow("negative samples")
            << uR"({"kind": "eval", "samples": -1})"_s << u"workload.stages[0].samples"_s << u"at least 0"_s;
        QTest::newRow("unknown field") << uR"({"kind": "eval", "batches": 3})"_s
                                       << u"workload.stages[0].batches"_s << u"unknown field"_s;
    }
    void badStages() {
        QFETCH(QString, stage);
        QFETCH(QString, path);
        QFETCH(QString, message);
        Diagnostics errors;
        QVERIFY(!load({"workload.stages=[" + stage.toStdString() + "]"}, errors));
        QVERIFY2(choreo::test::hasError(errors, path.toStdString(), message.toStdString()),
                 joinDiagnostics(errors).c_str());
    }

    void tooSmallAPoolIsRefused() {
        Diagnostics errors;
        QVERIFY(!load(
            {R"(cluster.pools=[{"name": "gpus", "device": "h100-sxm", "count": 128, "devices_per_node": 8}, )"
             R"({"name": "evals", "device": "rtx-4090", "count": 2, "devices_per_node": 2}])",
             R"(workload.stages=[{"kind": "eval", "pool": "evals"}])"},
            errors));
        QVERIFY2(joinDiagnostics(errors).find("GB on each rtx-4090") != std::string::npos,
                 joinDiagnostics(errors).c_str());
    }
};

QTEST_APPLESS_MAIN(TestEvalStage)
#include "tst_evalstage.moc"
