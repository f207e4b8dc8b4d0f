// Weight streaming at flow fidelity (sim/weightstreamflow.h): MemoryX's stream through SwarmX's links in
// SimGrid against the closed form (models/weightstreaming.h), compute-bound and stream-bound. Each
// simulation runs in its own process (one SimGrid engine per process).
#include "models/fieldoverride.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "sim/simulator.h"

#include <QTest>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/sim/childrun.h"

using namespace choreo;

namespace {

// The shipped four-CS-3 scenario with `assignments` applied, run at `fidelity` in a child process.
models::RunResult run(const std::vector<std::string>& assignments, sim::Fidelity fidelity) {
    const std::filesystem::path assets(CHOREO_TEST_ASSETS);
    models::Diagnostics errors;
    std::vector<models::FieldOverride> overrides;
    for (const auto& a : assignments) {
        std::string error;
        overrides.push_back(*models::parseFieldOverride(a, error));
    }
    auto catalog = models::Catalog::load(assets / "catalog", errors);
    auto scenario =
        models::loadScenarioFile(assets / "scenarios" / "systems" / "cerebras-cs3.json", errors, overrides);
    auto rs = catalog && scenario ? models::resolveScenario(*scenario, *catalog, errors) : std::nullopt;
    if (!rs)
        throw std::runtime_error(models::joinDiagnostics(errors));
    return test::runInChild(*rs, fidelity);
}

using test::relative;

} // namespace

class TestWeightStreamFlow : public QObject {
    Q_OBJECT
private slots:
    // Llama-3.1 70B at 8,192 tokens: the fp32 gradients' stream bounds each backward. The flow level lets
    // a micro-batch's last gradients leave while the next one's first weights arrive, which the closed form
    // serialises, so it is a little faster, and never by more than the overlap of two layers a micro-batch.
    void flowAgreesWithTheClosedForm() {
        const auto closed = run({}, sim::Fidelity::Analytical);
        const auto flow = run({}, sim::Fidelity::Flow);
        QCOMPARE(QString::fromStdString(flow.fidelity), QStringLiteral("flow"));
        QCOMPARE(flow.breakdown.compute_s, closed.breakdown.compute_s);
        QVERIFY2(
            flow.step_time_s < closed.step_time_s && relative(flow.step_time_s, closed.step_time_s) < 0.03,
            qPrintable(
                QStringLiteral("flow %1 s, closed form %2 s").arg(flow.step_time_s).arg(closed.step_time_s)));
    }

    // 2,048 systems: SwarmX's 11 levels of 5 us each add latency to every transfer, and nothing may cap the
    // rate below the links' (SimGrid's TCP window would, at 110 us a round trip). Packet fidelity runs the
    // same flow model and says so.
    void aDeepTreeStreamsAtLineRate() {
        const std::vector<std::string> wide = {"cluster.pools[0].count=2048", "workload.parallel.dp=2048",
                                               "workload.global_batch=65536"};
        const auto closed = run(wide, sim::Fidelity::Analytical);
        const auto packet = run(wide, sim::Fidelity::Packet);
        QCOMPARE(QString::fromStdString(packet.fidelity), QStringLiteral("flow"));
        QVERIFY2(relative(packet.step_time_s, closed.step_time_s) < 0.03,
                 qPrintable(QStringLiteral("flow %1 s, closed form %2 s")
                                .arg(packet.step_time_s)
                                .arg(closed.step_time_s)));
    }

    // 65,536 micro-batches a system: the first three are simulated and the rest repeat the third, so the
    // graph stays small; the step is still the closed form's within the overlap.
    void manyMicroBatchesExtrapolate() {
        const std::vector<std::string> many = {"workload.global_batch=262144", "workload.micro_batch=1"};
        const auto closed = run(many, sim::Fidelity::Analytical);
        const auto flow = run(many, sim::Fidelity::Flow);
        // Three micro-batches of 80 layers: forward a stream and a compute, backward those and the gradients.
        QCOMPARE(flow.simulated_activities, std::int64_t{3 * 80 * (2 + 3)});
        QVERIFY2(
            flow.step_time_s < closed.step_time_s && relative(flow.step_time_s, closed.step_time_s) < 0.03,
            qPrintable(
                QStringLiteral("flow %1 s, closed form %2 s").arg(flow.step_time_s).arg(closed.step_time_s)));
    }

    // 512 tokens a micro-batch of 1: the wafer waits on the stream. 32 micro-batches a system each move the
    // weights in twice (2 x 70.55 G x 2 bytes) and the fp32 gradients out once, at 0.9 of 150 GB/s: the
    // backward cannot beat its gradients (2.09 s), nor the forward its weights (1.045 s).
    void streamBoundStepFollowsTheLinks() {
        const auto flow = run({"workload.model.seq_len=512", "workload.micro_batch=1"}, sim::Fidelity::Flow);
        const double weights = 70553706496.0 * 2.0 / (150e9 * 0.9);
        const double bound = 32.0 * (weights + 2.0 * weights);
        QVERIFY2(flow.step_time_s > 0.97 * bound && flow.step_time_s < 1.01 * bound,
                 qPrintable(QStringLiteral("flow %1 s against %2 s").arg(flow.step_time_s).arg(bound)));
    }
};

QTEST_GUILESS_MAIN(TestWeightStreamFlow)
#include "tst_weightstreamflow.moc"
