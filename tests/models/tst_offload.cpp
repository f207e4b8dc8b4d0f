// Offload stages (workload.stages, kind "offload"): routed experts on another accelerator pool, the
// optimizer on CPUs and the embedding table in a CPU pool's memory. Their traffic and times by hand, how they
// change the step cost and memory, per-pool results, and the errors of bad stages.
#include "models/fieldoverride.h"
#include "models/offload.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "models/stepcost.h"
#include "models/transformer.h"

#include <QTest>

#include <cmath>
#include <filesystem>

#include "tests/models/stagetesting.h"

using namespace choreo::models;
using namespace Qt::StringLiterals;

namespace {

using choreo::test::catalog;
using choreo::test::kAssets;
const std::filesystem::path kMoe = kAssets / "scenarios" / "hybrid-moe-offload.json";
const std::filesystem::path kOptimizer = kAssets / "scenarios" / "hybrid-cpu-optimizer.json";
// Llama-3 8B on 64 H100 (tp 2, dp 32) with 4 EPYC 9654 sockets in pool 1 ("preprocess").
const std::filesystem::path kMultimodal = kAssets / "scenarios" / "hybrid-multimodal.json";

std::optional<ResolvedScenario> load(const std::filesystem::path& file,
                                     const std::vector<std::string>& assignments, Diagnostics& errors) {
    return choreo::test::resolveWith(file, assignments, errors);
}

ResolvedScenario loadOrFail(const std::filesystem::path& file,
                            const std::vector<std::string>& assignments = {}) {
    return choreo::test::resolveOrFail(file, assignments);
}

// The multimodal scenario with `assignments` applied and the embedding table on `pool` (stage 1, after the
// data stage; no pool when empty); nullopt with the errors in `errors`.
std::optional<ResolvedScenario> withTable(const std::string& pool,
                                          const std::vector<std::string>& assignments, Diagnostics& errors) {
    auto s = choreo::test::loadWith(kMultimodal, assignments, errors);
    if (!s)
        return std::nullopt;
    OffloadStage table{OffloadTarget::Embeddings, std::nullopt, 1};
    if (!pool.empty())
        table.pool = pool;
    s->workload.offload.push_back(table);
    return resolveScenario(*s, catalog(), errors);
}

ResolvedScenario withTableOrFail(const std::vector<std::string>& assignments = {}) {
    Diagnostics errors;
    auto rs = withTable("preprocess", assignments, errors);
    if (!rs)
        qFatal("%s", joinDiagnostics(errors).c_str());
    return std::move(*rs);
}

// A training step as a simulator would report it from the step model: every chunk's compute, no waiting
// for communication (pp 1), devices at full power while they compute.
StepMeasurement stepFromCosts(const ResolvedScenario& rs) {
    const Workload& w = rs.workload();
    std::vector<StageCost> costs;
    for (std::int64_t c = 0; c < w.parallel.pp * w.parallel.vp; ++c)
        costs.push_back(stageCost(rs, c));
    StepMeasurement m;
    m.compute_split = computeSplit(w, costs);
    m.step_time_s = m.compute_split.total();
    m.breakdown.compute_s = m.step_time_s;
    m.it_energy_per_step_J = rs.device().tdp_W.value * static_cast<double>(rs.pool().count) * m.step_time_s;
    m.fidelity = "analytical";
    return m;
}

double relative(double a, double b) {
    return std::fabs(a - b) / std::max(std::fabs(b), 1e-300);
}

} // namespace

class TestOffload : public QObject {
    Q_OBJECT

private slots:
    // Every MoE layer sends each token's hidden state to its top_k experts and back, forward and backward:
    // the bytes over the link between the pools, by hand.
    void expertTrafficByHand() {
        const ResolvedScenario rs = loadOrFail(kMoe);
        const ResolvedOffload* experts = rs.offloaded(OffloadTarget::Experts);
        QVERIFY(experts && experts->pool == std::size_t(1));
        QCOMPARE(experts->devices, 32.0);
        // Mixtral 8x7B: 32 MoE layers, hidden 4,096, top-2, bf16; 512 sequences of 4,096 tokens a step.
        const double perPass = 512.0 * 4096 * 2 * 4096 * 2;
        const OffloadLoad load = offloadLoad(*experts, rs.workload());
        QCOMPARE(load.bytes_per_step, 4.0 * 32 * perPass); // selective recomputation: experts not recomputed
        QCOMPARE(load.pool, std::string("experts"));
        const OffloadLoad full =
            offloadLoad(*experts, loadOrFail(kMoe, {"workload.recompute=\"full\""}).workload());
        QCOMPARE(full.bytes_per_step, 6.0 * 32 * perPass);

        // The link: an H100's 400 Gb/s NIC against its share of 32 Gaudi 3s' 600 Gb/s, each at its achieved
        // rate.
        const Device& h100 = *rs.pools[0].device;
        const Device& gaudi = *rs.pools[1].device;
        const double h100Bps = 400e9 / 8 * h100.efficiency.nicFraction();
        const double gaudiBps = 32 * 600e9 / 8 * gaudi.efficiency.nicFraction() / 64;
        QCOMPARE(experts->link_Bps, std::min(h100Bps, gaudiBps));
        // One device's tokens of one micro-batch (4,096, split over tp 2), one way.
        const ExpertWave wave = expertWave(*experts, rs.workload());
        QCOMPARE(wave.send_bytes, 4096.0 * 2 * 4096 * 2 / 2);
        QCOMPARE(wave.transfer_s, wave.send_bytes / experts->link_Bps + experts->link_latency_s);
        QVERIFY(wave.compute_s > 0);
        QCOMPARE(wave.backward_s() - wave.forward_s(), wave.compute_s);
    }

    // Offloaded, the training devices keep no routed experts and wait for their pool instead of computing
    // them; the wait is exactly the waves of the step's MoE layers.
    void stepCostWaitsForTheExpertPool() {
        const ResolvedScenario rs = loadOrFail(kMoe);
        // The same layout with every expert on the H100s (which would not fit: memory is not checked).
        Diagnostics errors;
        auto mixtral = loadScenarioFile(kAssets / "scenarios" / "mixtral-8x7b.json", errors);
        QVERIFY(mixtral);
        mixtral->workload.parallel.ep = 1;
        const auto resolved = resolveScenario(*mixtral, catalog(), errors, false);
        QVERIFY2(resolved, joinDiagnostics(errors).c_str());
        const ResolvedScenario& here = *resolved;
        const StageCost offloaded = stageCost(rs, 0), local = stageCost(here, 0);
        const ExpertWave wave = expertWave(*rs.offloaded(OffloadTarget::Experts), rs.workload());
        QVERIFY(relative(offloaded.offload_wait_s, 32.0 * (wave.forward_s() + wave.backward_s())) < 1e-12);
        QVERIFY(offloaded.gemm_s < 0.5 * local.gemm_s); // the experts' GEMMs were most of them
        QCOMPARE(expertParametersPerChunk(rs.workload(), 0), 0.0);
        // Routed experts: 32 layers x 8 experts x 3 x 4,096 x 14,336, none on a training device.
        const double routed = 32.0 * 8 * 3 * 4096 * 14336;
        QVERIFY(relative(parametersPerChunk(here.workload(), 0) - parametersPerChunk(rs.workload(), 0),
                         routed / 2) < 1e-12);
        QVERIFY(rs.memory.total() < here.memory.total());
    }

    // Fewer expert devices never make the step faster; slower links never either.
    void shrinkingTheExpertPoolNeverSpeedsUp() {
        double previous = 0.0;
        for (int cards : {64, 32, 16, 8}) {
            const ResolvedScenario rs = loadOrFail(kMoe, {"cluster.pools[1].count=" + std::to_string(cards)});
            const double step = stepFromCosts(rs).step_time_s;
            QVERIFY2(step >= previous, qPrintable(QString::number(cards)));
            previous = step;
        }
        const double fast = stepFromCosts(loadOrFail(kMoe)).step_time_s;
        const double slow = stepFromCosts(loadOrFail(kMoe, {"cluster.network.nic_Gbps=100"})).step_time_s;
        QVERIFY(slow > fast);
    }

    void expertPoolResults() {
        const ResolvedScenario rs = loadOrFail(kMoe);
        const RunResult r = finishResult(rs, stepFromCosts(rs));
        QCOMPARE(r.pools.size(), std::size_t(2));
        QCOMPARE(r.pools[1].stages, std::vector<std::string>{"experts"});
        QCOMPARE(r.offload.size(), std::size_t(1));
        QVERIFY(relative(r.pools[1].utilisation, r.offload[0].busy_s / r.step_time_s) < 1e-12);
        // The training devices idle while they wait: not counted busy.
        QVERIFY(r.pools[0].utilisation < r.breakdown.compute_s / r.step_time_s);
        double cost = 0, energy = 0;
        for (const auto& p : r.pools) {
            cost += p.cost_usd;
            energy += p.energy_kWh;
        }
        QVERIFY(relative(cost, r.cost_usd) < 1e-12);
        QVERIFY(relative(energy, r.energy_kWh) < 1e-12);
        // Most of this step is the wait for the experts: they are the bottleneck.
        QCOMPARE(r.bottleneck.stage, std::string("experts"));
        QCOMPARE(r.bottleneck.pool, std::string("experts"));
        QVERIFY(r.bottleneck.step_time_without_s < r.step_time_s);

        Diagnostics errors;
        auto back = resultFromJson(resultToJson(r), errors);
        QVERIFY2(back, joinDiagnostics(errors).c_str());
        QCOMPARE(back->offload.size(), std::size_t(1));
        QCOMPARE(back->offload[0].bytes_per_step, r.offload[0].bytes_per_step);
        QCOMPARE(back->offload[0].link, r.offload[0].link);
    }

    // ZeRO-Offload on GB200's Grace: gradients down the host link, Adam on LPDDR5X, weights back.
    void optimizerOnGraceByHand() {
        const ResolvedScenario rs = loadOrFail(kOptimizer);
        const ResolvedOffload* optimizer = rs.offloaded(OffloadTarget::Optimizer);
        QVERIFY(optimizer && !optimizer->pool);
        QCOMPARE(optimizer->device->id, std::string("grace"));
        QCOMPARE(optimizer->devices, 36.0); // one Grace per two B200s
        QCOMPARE(optimizer->link_Bps, 172e9);
        const Workload& w = rs.workload();
        const double params = parametersPerDevice(w, 0); // no ZeRO: every parameter on every replica
        const OptimizerOffloadTimes t = optimizerOffloadTimes(*optimizer, w, params);
        QCOMPARE(t.gradients_s, params * 4.0 / 172e9 + optimizer->link_latency_s);
        QCOMPARE(t.weights_s, params * 2.0 / 172e9 + optimizer->link_latency_s);
        const Device& grace = *optimizer->device;
        const double bandwidth =
            grace.memory_bandwidth_TBps.value * 1e12 * grace.efficiency.memory.value * 0.5;
        QVERIFY(relative(t.update_s, params * (24.0 + 4.0 + 2.0) / bandwidth) < 1e-12);
        QVERIFY(relative(stageCost(rs, 0).optimizer_s, t.total()) < 1e-12);
        QCOMPARE(offloadLoad(*optimizer, w).bytes_per_step, 72.0 * params * 6.0);
        // The states leave the GPU: without the offload the layout does not fit.
        QCOMPARE(rs.memory.optimizer_GB, 0.0);
        Diagnostics errors;
        QVERIFY(!load(kOptimizer, {"workload.stages=[]"}, errors));
        QVERIFY(joinDiagnostics(errors).find("memory: ") != std::string::npos);
        // The GPUs idle during the CPUs' optimizer step.
        const RunResult r = finishResult(rs, stepFromCosts(rs));
        QCOMPARE(r.pools[0].stages, (std::vector<std::string>{"train", "optimizer"}));
        QVERIFY(r.pools[0].utilisation < 1.0);
    }

    void optimizerOnACpuPool() {
        const ResolvedScenario rs = loadOrFail(
            kOptimizer,
            {"cluster.pools=[{\"name\": \"gpus\", \"device\": \"gb200\", \"count\": 72, "
             "\"devices_per_node\": 72}, {\"name\": \"cpus\", \"device\": \"epyc-9654\", \"count\": 72, "
             "\"devices_per_node\": 2}]",
             "workload.stages[1].pool=\"cpus\""});
        const ResolvedOffload* optimizer = rs.offloaded(OffloadTarget::Optimizer);
        QVERIFY(optimizer && optimizer->pool == std::size_t(1));
        QCOMPARE(optimizer->link, std::string("scale-out network"));
        QVERIFY(optimizer->link_Bps < 172e9); // the network, not NVLink-C2C
        QVERIFY(stageCost(rs, 0).optimizer_s > stageCost(loadOrFail(kOptimizer), 0).optimizer_s);
    }

    // The table's rows and gradients by hand: 64 first-stage devices share the pool's four 100 Gb/s NICs.
    void embeddingTrafficByHand() {
        const ResolvedScenario rs = withTableOrFail();
        const ResolvedOffload* table = rs.offloaded(OffloadTarget::Embeddings);
        QVERIFY(table && table->pool == std::size_t(1));
        QCOMPARE(table->link, std::string("scale-out network"));
        const Device& epyc = *table->device;
        QCOMPARE(epyc.id, std::string("epyc-9654"));
        const double poolNicBps = 4.0 * 100.0 * 1e9 / 8.0 * epyc.efficiency.nicFraction();
        QVERIFY(relative(table->link_Bps, poolNicBps / 64.0) < 1e-12);
        const Workload& w = rs.workload();
        const EmbeddingTraffic t = embeddingTraffic(*table, w);
        // micro-batch 2 x 2048 tokens, split over tp 2: 2,048 rows of 4,096 bf16 values.
        QCOMPARE(t.rows_bytes, 2048.0 * 4096.0 * 2.0);
        QVERIFY(relative(t.transfer_s, t.rows_bytes / table->link_Bps + table->link_latency_s) < 1e-12);
        const double poolBps = 4.0 * 0.4608e12 * epyc.efficiency.memory.value;
        QVERIFY(relative(t.pool_work_s, 64.0 * 2048.0 * 4096.0 * (3.0 * 2.0 + 8.0) / poolBps) < 1e-12);
        // Adam over 128,256 x 4,096: fp32 master, m, v (24 B read and written), the fp32 gradient, the
        // bf16 weights.
        QVERIFY(relative(t.update_s, 128256.0 * 4096.0 * 30.0 / poolBps) < 1e-12);
        // Every token's row in and its gradient out.
        QCOMPARE(offloadLoad(*table, w).bytes_per_step, 2.0 * 512.0 * 2048.0 * 4096.0 * 2.0);
        // The first chunk waits only where a transfer outlasts a micro-batch's computation, and the step's
        // end for the table's last gradients and update.
        const StageCost first = stageCost(rs, 0);
        QVERIFY(first.embedding_wait_s >= 0.0);
        QCOMPARE(first.offload_wait_s, first.embedding_wait_s);
        QVERIFY(first.optimizer_s >= t.tail_s() - 1e-15);
    }

    // The training devices no longer hold the table: a vocab x hidden / tp fewer parameters on the first
    // stage, its weights, gradients and optimizer share gone from their memory.
    void embeddingsLeaveTheTrainingDevices() {
        const ResolvedScenario with = withTableOrFail();
        const ResolvedScenario without = loadOrFail(kMultimodal);
        const double table = 128256.0 * 4096.0 / 2.0;
        QVERIFY(relative(parametersPerDevice(without.workload(), 0) - parametersPerDevice(with.workload(), 0),
                         table) < 1e-9);
        QVERIFY(relative(without.memory.weights_GB - with.memory.weights_GB, table * 2.0 / 1e9) < 1e-9);
        QVERIFY(with.memory.total() < without.memory.total());
        // A tied output layer reads the table on the devices: refused.
        Diagnostics errors;
        QVERIFY(!withTable("preprocess", {"workload.model.tied_embeddings=true"}, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.stages[1].target", "untie them"),
                 joinDiagnostics(errors).c_str());
    }

    // Fewer CPUs holding the table never make a step faster.
    void smallerTablePoolsAreNeverFaster() {
        double previous = 0.0;
        for (const char* count : {"32", "8", "4", "2"}) {
            const ResolvedScenario rs = withTableOrFail({std::string("cluster.pools[1].count=") + count});
            const double step = finishResult(rs, stepFromCosts(rs)).step_time_s;
            QVERIFY2(step >= previous, count);
            previous = step;
        }
    }

    // The table's pool does the data stage and holds the table; costs add up; when 2,048 first-stage devices
    // share two sockets' NICs the table is the bottleneck.
    void embeddingsResults() {
        const ResolvedScenario rs = withTableOrFail();
        const RunResult r = finishResult(rs, stepFromCosts(rs));
        QCOMPARE(r.pools[1].stages, (std::vector<std::string>{"data", "embeddings"}));
        QCOMPARE(r.offload.size(), std::size_t(1));
        QCOMPARE(r.offload[0].target, std::string("embeddings"));
        QVERIFY(r.offload[0].busy_s > 0.0);
        double pools = 0.0;
        for (const auto& pool : r.pools)
            pools += pool.cost_usd;
        QVERIFY(relative(pools, r.cost_usd) < 1e-9);
        QCOMPARE(r.bottleneck.stage, std::string("train"));

        const ResolvedScenario starved =
            withTableOrFail({"cluster.pools[0].count=4096", "cluster.pools[1].count=2",
                             "workload.parallel.dp=2048", "workload.global_batch=8192"});
        const RunResult s = finishResult(starved, stepFromCosts(starved));
        QCOMPARE(s.bottleneck.stage, std::string("embeddings"));
        QCOMPARE(s.bottleneck.pool, std::string("preprocess"));
        QCOMPARE(s.bottleneck.detail, std::string("the link between the pools"));
        QVERIFY(s.bottleneck.step_time_without_s < s.step_time_s);
    }

    void badTableStages() {
        Diagnostics errors;
        QVERIFY(!withTable("", {}, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.stages[1].pool", "name the pool of CPUs"),
                 joinDiagnostics(errors).c_str());
        errors.clear();
        QVERIFY(!withTable("gpus", {}, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.stages[1].pool", "that trains"),
                 joinDiagnostics(errors).c_str());
        errors.clear();
        QVERIFY(!withTable("disks", {}, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.stages[1].pool", "no pool named"),
                 joinDiagnostics(errors).c_str());
        // A table of 50 M rows needs 922 GB on each of the four sockets, which have 768 GB.
        errors.clear();
        QVERIFY(!withTable("preprocess", {"workload.model.vocab=50000000"}, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.stages[1].pool", "GB on each epyc-9654"),
                 joinDiagnostics(errors).c_str());
    }

    void scenarioRoundTrips() {
        {
            Diagnostics errors;
            const Scenario s = withTableOrFail().scenario;
            auto again = parseScenario(serializeScenario(s), errors);
            QVERIFY2(again, joinDiagnostics(errors).c_str());
            QCOMPARE(again->workload.offload, s.workload.offload);
            QVERIFY(again->workload.offload.at(0).target == OffloadTarget::Embeddings);
        }
        for (const auto& file : {kMoe, kOptimizer}) {
            Diagnostics errors;
            auto s = loadScenarioFile(file, errors);
            QVERIFY(s && s->workload.offload.size() == 1);
            auto again = parseScenario(serializeScenario(*s), errors);
            QVERIFY2(again, joinDiagnostics(errors).c_str());
            QCOMPARE(again->workload.offload, s->workload.offload);
        }
    }

    void badStages_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        const QString moe = QString::fromStdString(kMoe.string());
        const QString opt = QString::fromStdString(kOptimizer.string());
        QTest::newRow("missing pool") << moe << u"workload.stages[1].pool=\"tpus\""_s
                                      << u"workload.stages[1].pool"_s << u"no pool named \"tpus\""_s;
        QTest::newRow("no pool") << moe
                                 << u"workload.stages[1]={\"kind\": \"offload\", \"target\": \"experts\"}"_s
                                 << u"workload.stages[1].pool"_s << u"name the accelerator pool"_s;
        QTest::newRow("training pool") << moe << u"workload.stages[1].pool=\"gpus\""_s
                                       << u"workload.stages[1].pool"_s << u"that trains"_s;
        QTest::newRow("cpu experts") << moe << u"cluster.pools[1].device=\"epyc-9654\""_s
                                     << u"workload.stages[1].pool"_s << u"a cpu"_s;
        QTest::newRow("dense model") << moe << u"workload.model.moe.dense_layers=32"_s
                                     << u"workload.stages[1].target"_s << u"no routed experts"_s;
        QTest::newRow("ep") << moe << u"workload.parallel.ep=8"_s << u"workload.parallel.ep"_s
                            << u"must be 1"_s;
        QTest::newRow("too small cards") << moe << u"cluster.pools[1].device=\"rtx-4090\""_s
                                         << u"workload.stages[1].pool"_s << u"GB on each rtx-4090"_s;
        QTest::newRow("embeddings on accelerators") << moe << u"workload.stages[1].target=\"embeddings\""_s
                                                    << u"workload.stages[1].pool"_s << u"a pool of CPUs"_s;
        QTest::newRow("unknown target") << moe << u"workload.stages[1].target=\"kv-cache\""_s
                                        << u"workload.stages[1].target"_s << u"unknown offload target"_s;
        QTest::newRow("two expert stages")
            << moe
            << u"workload.stages[0]={\"kind\": \"offload\", \"target\": \"experts\", \"pool\": \"experts\"}"_s
            << u"workload.stages[1].target"_s << u"a second \"experts\""_s;
        QTest::newRow("optimizer on gpus")
            << moe
            << u"workload.stages[1]={\"kind\": \"offload\", \"target\": \"optimizer\", \"pool\": \"experts\"}"_s
            << u"workload.stages[1].pool"_s << u"a pool of CPUs"_s;
        QTest::newRow("no host cpus") << opt << u"cluster.pools[0].device=\"mi300x\""_s
                                      << u"workload.stages[1].pool"_s << u"host CPUs and host link"_s;
    }
    void badStages() {
        QFETCH(QString, file);
        QFETCH(QString, assignment);
        QFETCH(QString, path);
        QFETCH(QString, message);
        Diagnostics errors;
        QVERIFY(!load(file.toStdString(), {assignment.toStdString()}, errors));
        QVERIFY2(choreo::test::hasError(errors, path.toStdString(), message.toStdString()),
                 joinDiagnostics(errors).c_str());
    }
};

QTEST_APPLESS_MAIN(TestOffload)
#include "tst_offload.moc"
