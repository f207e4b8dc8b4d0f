// The input pipeline (workload.stages, kind "data"): its closed form, how it composes with the training
// step, per-pool results and costs, and the errors of bad stages.
#include "models/datastage.h"
#include "models/fieldoverride.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"

#include <QTest>

#include <cmath>
#include <filesystem>

#include "tests/models/stagetesting.h"

using namespace choreo::models;
using namespace Qt::StringLiterals;

namespace {

using choreo::test::catalog;
const std::filesystem::path kHybrid = choreo::test::kAssets / "scenarios" / "hybrid-multimodal.json";

std::optional<ResolvedScenario> hybrid(const std::vector<std::string>& assignments, Diagnostics& errors) {
    return choreo::test::resolveWith(kHybrid, assignments, errors);
}

ResolvedScenario hybridOrFail(const std::vector<std::string>& assignments) {
    return choreo::test::resolveOrFail(kHybrid, assignments);
}

// A training step of `seconds` at 500 W per device, as a simulator would report it.
StepMeasurement trainStep(const ResolvedScenario& rs, double seconds) {
    StepMeasurement m;
    m.step_time_s = seconds;
    m.breakdown.compute_s = 0.8 * seconds;
    m.breakdown.exposed_communication_s = 0.2 * seconds;
    m.it_energy_per_step_J = 500.0 * static_cast<double>(rs.pool().count) * seconds;
    m.fidelity = "analytical";
    return m;
}

} // namespace

class TestDataStage : public QObject {
    Q_OBJECT

private slots:
    void closedFormByHand() {
        const ResolvedScenario rs = hybridOrFail({});
        QVERIFY(rs.data);
        const ResolvedDataStage& d = *rs.data;
        QCOMPARE(d.cpus, 4.0);
        QCOMPARE(d.nodes, 2.0);
        // One 336-px image (3 x 336 x 336 bytes) and 1,472 token ids of 4 bytes.
        QCOMPARE(d.delivered_bytes_per_sample, 3.0 * 336 * 336 + 1472.0 * kTokenIdBytes);
        const Device& cpu = *d.cpu;
        const double perSample =
            1.0 / cpu.data_rates.images_per_s.value + 1472.0 / cpu.data_rates.text_tokens_per_s.value;
        QVERIFY(std::fabs(d.core_seconds_per_sample - perSample) < 1e-12);
        const DataStageTimes t = dataStageTimes(d, 512);
        QVERIFY(std::fabs(t.preprocess_s - 512 * perSample / (4 * cpu.cores.value)) < 1e-12);
        const double read = 512 * 250e3 / (2 * d.storage->read_GBps_per_node.value * 1e9);
        QCOMPARE(t.read_s, std::max(read, d.storage->latency_ms.value / 1e3));
        QCOMPARE(t.stage_s(), std::max({t.read_s, t.preprocess_s, t.deliver_s}));
    }

    // In steady state the queue hides the data stage while it keeps up: step = max(train, data).
    void stepIsTheSlowerOfTrainAndData() {
        const ResolvedScenario rs = hybridOrFail({});
        const double data = dataStageTimes(*rs.data, rs.workload().global_batch).stage_s();
        for (double train : {0.25 * data, 0.99 * data, data, 1.5 * data, 10.0 * data}) {
            const RunResult r = finishResult(rs, trainStep(rs, train));
            QCOMPARE(r.step_time_s, std::max(train, data));
            QCOMPARE(r.breakdown.data_wait_s, std::max(train, data) - train);
            QCOMPARE(r.bottleneck.stage, std::string(data > train ? "data" : "train"));
            QCOMPARE(r.bottleneck.pool, std::string(data > train ? "preprocess" : "gpus"));
            QCOMPARE(r.bottleneck.step_time_without_s, data > train ? train : data);
        }
    }

    void shrinkingTheCpuPoolNeverSpeedsUp() {
        double previous = 0.0;
        for (int sockets : {64, 32, 16, 8, 4, 2}) {
            const ResolvedScenario rs = hybridOrFail({"cluster.pools[1].count=" + std::to_string(sockets),
                                                      "workload.stages[0].modality=\"video\"",
                                                      "workload.stages[0].items_per_sample=64"});
            const RunResult r = finishResult(rs, trainStep(rs, 1.0));
            QVERIFY2(r.step_time_s >= previous, qPrintable(QString::number(sockets)));
            previous = r.step_time_s;
        }
        QVERIFY(previous > 1.0); // 2 sockets cannot decode 32,768 frames a second: the data stage limits
    }

    // One loader per training device, each at most `loader_samples_per_s`: 64 loaders at 2 samples/s take
    // 4 s for a 512-sample batch, whatever the CPUs could do; the CPUs stay busy only for their own work.
    // Unset, or above what the CPUs manage, the ceiling changes nothing.
    void loaderCeilingByHand() {
        const ResolvedScenario free = hybridOrFail({});
        const DataStageTimes unlimited = dataStageTimes(*free.data, 512);
        const ResolvedScenario capped = hybridOrFail({"workload.stages[data].loader_samples_per_s=2"});
        QCOMPARE(capped.data->loaders, 64.0);
        const DataStageTimes t = dataStageTimes(*capped.data, 512);
        QCOMPARE(t.preprocess_s, 512.0 / (64.0 * 2.0));
        QVERIFY(t.preprocess_s > unlimited.preprocess_s);
        QCOMPARE(cpuBusySeconds(*capped.data, 512.0), unlimited.preprocess_s);
        const RunResult r = finishResult(capped, trainStep(capped, 1.0));
        QCOMPARE(r.step_time_s, 4.0);
        QCOMPARE(r.bottleneck.stage, std::string("data"));
        // The loaders, not the CPUs' cores, hold the stage back, and the result says so.
        QCOMPARE(r.bottleneck.detail, std::string("data loaders"));
        QVERIFY(t.loader_bound && !unlimited.loader_bound);
        QVERIFY(unlimited.limit() != "data loaders");
        QVERIFY(std::fabs(r.pools[1].utilisation - unlimited.preprocess_s / 4.0) < 1e-12);
        const ResolvedScenario high = hybridOrFail({"workload.stages[data].loader_samples_per_s=1e6"});
        QCOMPARE(dataStageTimes(*high.data, 512).preprocess_s, unlimited.preprocess_s);
        QVERIFY(!dataStageTimes(*high.data, 512).loader_bound);
        // The field's range: a ceiling must be above zero.
        Diagnostics errors;
        QVERIFY(!hybrid({"workload.stages[data].loader_samples_per_s=0"}, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.stages[0].loader_samples_per_s", "greater than 0"),
                 joinDiagnostics(errors).c_str());
    }

    void poolCostsAndEnergyAddUp() {
        for (const char* mode : {"\"buy\"", "\"rent\""}) {
            std::vector<std::string> set{std::string("costs.mode=") + mode};
            if (std::string(mode) == "\"rent\"")
                set.push_back("cluster.pools[1].rent_usd_per_device_hour=4.5");
            const ResolvedScenario rs = hybridOrFail(set);
            const RunResult r = finishResult(rs, trainStep(rs, 0.01)); // data-bound: the GPUs wait
            QCOMPARE(r.pools.size(), std::size_t(2));
            double cost = 0, energy = 0;
            for (const auto& p : r.pools) {
                cost += p.cost_usd;
                energy += p.energy_kWh;
                QVERIFY(p.cost_usd > 0 && p.energy_kWh > 0 && p.utilisation >= 0 && p.utilisation <= 1);
            }
            QVERIFY(std::fabs(cost - r.cost_usd) <= 1e-9 * r.cost_usd);
            QVERIFY(std::fabs(energy - r.energy_kWh) <= 1e-9 * r.energy_kWh);
            QCOMPARE(r.pools[0].stages, std::vector<std::string>{"train"});
            QCOMPARE(r.pools[1].stages, std::vector<std::string>{"data"});
        }
        // Each pool at its own price: the CPUs never at the GPUs'.
        const ResolvedScenario rs = hybridOrFail({"costs.mode=\"rent\"", "costs.rent_usd_per_device_hour=2.0",
                                                  "cluster.pools[1].rent_usd_per_device_hour=0.5"});
        const RunResult r = finishResult(rs, trainStep(rs, 1.0));
        const double hours = r.time_to_train_s / 3600.0;
        QVERIFY(std::fabs(r.pools[0].cost_usd - 2.0 * 64 * hours) < 1e-6 * r.cost_usd);
        QVERIFY(std::fabs(r.pools[1].cost_usd - 0.5 * 4 * hours) < 1e-6 * r.cost_usd);
        // Rented CPUs without an override: the catalog's sourced socket-hour (an AWS c7a's share).
        const ResolvedScenario catalogPriced = hybridOrFail({"costs.mode=\"rent\""});
        QCOMPARE(catalogPriced.pools[1].rent_usd_per_device_hour,
                 catalog().find("epyc-9654")->rent_usd_per_hour.value);
        QVERIFY(catalogPriced.pools[1].rent_usd_per_device_hour > 0.0);
    }

    void hostCpusByDefault() {
        const ResolvedScenario rs =
            hybridOrFail({"workload.stages[0]={\"kind\": \"data\", \"modality\": \"text\"}"});
        QVERIFY(rs.data && !rs.data->pool);
        QCOMPARE(rs.data->cpu->id, std::string("xeon-8480")); // two per DGX H100's eight GPUs
        QCOMPARE(rs.data->cpus, 16.0);
        const RunResult r = finishResult(rs, trainStep(rs, 0.001));
        QCOMPARE(r.bottleneck.pool, std::string("gpus host CPUs"));
        QCOMPARE(r.pools[0].stages, (std::vector<std::string>{"train", "data"}));
        QCOMPARE(r.pools[1].stages, std::vector<std::string>{});
    }

    void resultJsonRoundTrips() {
        const ResolvedScenario rs = hybridOrFail({});
        const RunResult r = finishResult(rs, trainStep(rs, 0.01));
        const Json j = resultToJson(r);
        QCOMPARE(j["pools"].size(), std::size_t(2));
        QCOMPARE(j["bottleneck"]["stage"].get<std::string>(), std::string("data"));
        Diagnostics errors;
        auto back = resultFromJson(j, errors);
        QVERIFY2(back, joinDiagnostics(errors).c_str());
        QCOMPARE(back->pools.size(), r.pools.size());
        QCOMPARE(back->pools[1].cost_usd, r.pools[1].cost_usd);
        QCOMPARE(back->bottleneck.step_time_without_s, r.bottleneck.step_time_without_s);
        QCOMPARE(back->breakdown.data_wait_s, r.breakdown.data_wait_s);
    }

    void scenarioRoundTrips() {
        Diagnostics errors;
        auto s = loadScenarioFile(kHybrid, errors);
        QVERIFY(s && s->workload.data);
        auto again = parseScenario(serializeScenario(*s), errors);
        QVERIFY2(again, joinDiagnostics(errors).c_str());
        QCOMPARE(*again, *s);
    }

    void badStages_data() {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing pool") << u"workload.stages[0].pool=\"cpus\""_s << u"workload.stages[0].pool"_s
                                      << u"no pool named \"cpus\""_s;
        QTest::newRow("training pool")
            << u"workload.stages[0].pool=\"gpus\""_s << u"workload.stages[0].pool"_s << u"a pool of CPUs"_s;
        QTest::newRow("gpu pool") << u"cluster.pools[1].device=\"h100-sxm\""_s << u"workload.stages[0].pool"_s
                                  << u"a gpu"_s;
        QTest::newRow("zero queue") << u"workload.stages[0].prefetch_batches=0"_s
                                    << u"workload.stages[0].prefetch_batches"_s << u"at least 1"_s;
        QTest::newRow("long queue") << u"workload.stages[0].prefetch_batches=100000"_s
                                    << u"workload.stages[0].prefetch_batches"_s << u"must be at most 1000"_s;
        // Two 65,536-px frames' batches (12.9 GB a sample) do not fit in the CPUs' memory.
        QTest::newRow("huge queue") << u"workload.stages[0].image_px=65536"_s
                                    << u"workload.stages[0].prefetch_batches"_s << u"GB on each epyc-9654"_s;
        QTest::newRow("storage") << u"workload.stages[0].storage=\"tape\""_s
                                 << u"workload.stages[0].storage"_s << u"unknown storage tier \"tape\""_s;
        QTest::newRow("modality") << u"workload.stages[0].modality=\"smell\""_s
                                  << u"workload.stages[0].modality"_s << u"unknown modality"_s;
        QTest::newRow("unknown kind") << u"workload.stages[0].kind=\"checkpoint\""_s
                                      << u"workload.stages[0].kind"_s << u"unknown stage kind"_s;
        QTest::newRow("video size") << u"workload.stages[0]={\"kind\": \"data\", \"modality\": \"video\"}"_s
                                    << u"workload.stages[0].stored_bytes_per_sample"_s
                                    << u"needed for video"_s;
        QTest::newRow("two data")
            << u"workload.stages=[{\"kind\": \"data\", \"modality\": \"text\"}, {\"kind\": \"data\", \"modality\": \"text\"}]"_s
            << u"workload.stages[1].kind"_s << u"a second data stage"_s;
    }
    void badStages() {
        QFETCH(QString, assignment);
        QFETCH(QString, path);
        QFETCH(QString, message);
        Diagnostics errors;
        QVERIFY(!hybrid({assignment.toStdString()}, errors));
        QVERIFY2(choreo::test::hasError(errors, path.toStdString(), message.toStdString()),
                 joinDiagnostics(errors).c_str());
    }
};

QTEST_APPLESS_MAIN(TestDataStage)
#include "tst_datastage.moc"
