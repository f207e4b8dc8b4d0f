// The step timeline (partition of overlapping activities, size cap, JSON) and the power trace derived from
// it.
#include "models/powertrace.h"
#include "models/resolved.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "models/timeline.h"

#include <QTest>

#include <cmath>
#include <filesystem>

using namespace choreo::models;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(std::vector<TimelineSpan>)
Q_DECLARE_METATYPE(std::vector<ActivityKind>)

namespace {

const std::filesystem::path kAssets(CHOREO_TEST_ASSETS);

TimelineSpan span(ActivityKind kind, int priority, double start, double end, std::int64_t micro = -1) {
    return {kind, priority, micro, -1, start, end};
}

// Intervals are in order, end to end, and cover exactly [0, step].
void checkPartition(const StageTimeline& stage, double step) {
    QVERIFY(!stage.intervals.empty());
    QCOMPARE(stage.intervals.front().start_s, 0.0);
    QCOMPARE(stage.intervals.back().end_s, step);
    double total = 0.0;
    for (std::size_t i = 0; i < stage.intervals.size(); ++i) {
        const auto& iv = stage.intervals[i];
        QVERIFY(iv.end_s > iv.start_s);
        if (i > 0)
            QCOMPARE(iv.start_s, stage.intervals[i - 1].end_s);
        total += iv.duration_s();
    }
    QVERIFY(std::fabs(total - step) < 1e-12 * step);
}

ResolvedScenario resolvedDefault(const Catalog& catalog, bool withCpuPool) {
    Diagnostics errors;
    auto scenario = loadScenarioFile(kAssets / "scenarios" / "default.json", errors);
    if (!scenario)
        qFatal("default scenario: %s", joinDiagnostics(errors).c_str());
    if (withCpuPool) {
        Pool prep{"prep", "epyc-9654", 16, 2};
        prep.rent_usd_per_device_hour = 3.0; // the pool's own price, over the catalog's
        scenario->cluster.pools.push_back(prep);
    }
    auto rs = resolveScenario(*scenario, catalog, errors);
    if (!rs)
        qFatal("resolve: %s", joinDiagnostics(errors).c_str());
    return std::move(*rs);
}

// A plausible two-stage timeline: forward, backward, communication, idle.
StepTimeline twoStages(std::int64_t devices) {
    StepTimeline t;
    t.step_time_s = 2.0;
    t.stages.push_back(partitionStage(
        0, devices,
        {span(ActivityKind::Forward, 0, 0.0, 0.5, 0), span(ActivityKind::TensorComm, 2, 0.0, 0.6, 0),
         span(ActivityKind::Backward, 0, 1.0, 1.7, 0), span(ActivityKind::Optimizer, 0, 1.8, 1.9)},
        t.step_time_s, 100));
    t.stages.push_back(partitionStage(
        1, devices,
        {span(ActivityKind::PipelineComm, 3, 0.5, 0.6, 0), span(ActivityKind::Forward, 0, 0.6, 1.1, 0),
         span(ActivityKind::Backward, 0, 1.1, 1.8, 0), span(ActivityKind::DataComm, 4, 1.8, 1.95)},
        t.step_time_s, 100));
    return t;
}

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        Diagnostics errors;
        catalog_ = Catalog::load(kAssets / "catalog", errors);
        QVERIFY2(catalog_.has_value(), joinDiagnostics(errors).c_str());
    }

    void partition_data() {
        QTest::addColumn<std::vector<TimelineSpan>>("spans");
        QTest::addColumn<std::vector<ActivityKind>>("kinds");
        using K = ActivityKind;
        QTest::newRow("nothing: all bubble") << std::vector<TimelineSpan>{} << std::vector<K>{K::Bubble};
        QTest::newRow("gap becomes bubble")
            << std::vector<TimelineSpan>{span(K::Forward, 0, 0, 1, 0), span(K::Backward, 0, 2, 3, 0)}
            << std::vector<K>{K::Forward, K::Bubble, K::Backward, K::Bubble};
        QTest::newRow("computation hides communication")
            << std::vector<TimelineSpan>{span(K::DataComm, 4, 0.5, 3.5), span(K::Backward, 0, 1, 2, 0)}
            << std::vector<K>{K::Bubble, K::DataComm, K::Backward, K::DataComm, K::Bubble};
        QTest::newRow("priority, not order, decides")
            << std::vector<TimelineSpan>{span(K::TensorComm, 2, 0, 2, 0), span(K::PipelineComm, 3, 1, 3, 1)}
            << std::vector<K>{K::TensorComm, K::PipelineComm, K::Bubble};
        QTest::newRow("same activity merges, micro-batches do not")
            << std::vector<TimelineSpan>{span(K::Forward, 0, 0, 1, 0), span(K::Forward, 0, 1, 2, 0),
                                         span(K::Forward, 0, 2, 3, 1)}
            << std::vector<K>{K::Forward, K::Forward, K::Bubble};
        QTest::newRow("clipped to the step")
            << std::vector<TimelineSpan>{span(K::Optimizer, 0, -1, 0.5), span(K::DataComm, 4, 3.5, 9)}
            << std::vector<K>{K::Optimizer, K::Bubble, K::DataComm};
    }

    void partition() {
        QFETCH(std::vector<TimelineSpan>, spans);
        QFETCH(std::vector<ActivityKind>, kinds);
        const auto stage = partitionStage(2, 16, spans, 4.0, 1000);
        QCOMPARE(stage.stage, std::int64_t{2});
        QCOMPARE(stage.devices, std::int64_t{16});
        checkPartition(stage, 4.0);
        std::vector<ActivityKind> got;
        for (const auto& i : stage.intervals)
            got.push_back(i.kind);
        QCOMPARE(got, kinds);
    }

    void capBoundsTheSize() {
        // 20,000 alternating slivers and a few long computations: above the cap, short stretches fold away.
        std::vector<TimelineSpan> spans;
        for (int i = 0; i < 20000; ++i)
            spans.push_back(span(i % 2 ? ActivityKind::TensorComm : ActivityKind::Forward, i % 2 ? 2 : 0,
                                 i * 1e-5, (i + 1) * 1e-5, i / 2));
        spans.push_back(span(ActivityKind::Backward, 0, 0.3, 0.8, 0));
        const auto stage = partitionStage(0, 1, spans, 1.0, 64);
        QVERIFY2(stage.intervals.size() <= 64, qPrintable(QString::number(stage.intervals.size())));
        checkPartition(stage, 1.0);
        // The long backward survives the folding whole (intervals before it may absorb slivers, not it).
        QVERIFY(stage.total_s(ActivityKind::Backward) >= 0.5 - 1e-12);
        QCOMPARE(intervalCapPerStage(1), kMaxTimelineIntervals);
        QCOMPARE(intervalCapPerStage(1000), kMinIntervalsPerStage);
    }

    void resultJsonRoundTrip() {
        const auto rs = resolvedDefault(*catalog_, true);
        StepMeasurement m;
        m.step_time_s = 2.0;
        m.timeline = twoStages(32);
        m.it_energy_per_step_J = 1e6;
        m.fidelity = "flow";
        const RunResult r = finishResult(rs, m);
        QVERIFY(!r.power.empty());
        const Json j = resultToJson(r);
        Diagnostics errors;
        const auto back = resultFromJson(Json::parse(j.dump()), errors);
        QVERIFY2(back.has_value(), joinDiagnostics(errors).c_str());
        QCOMPARE(back->timeline, r.timeline);
        QCOMPARE(back->power, r.power);
        QCOMPARE(resultToJson(*back).dump(), j.dump());
        // Activation offloading's wait: omitted when none, read back when there is one.
        QVERIFY(!j["compute_split_s"].contains("offload_wait"));
        RunResult offloading = r;
        offloading.compute_split.offload_wait_s = 0.125;
        const Json withWait = resultToJson(offloading);
        QCOMPARE(withWait["compute_split_s"]["offload_wait"].get<double>(), 0.125);
        const auto waitBack = resultFromJson(Json::parse(withWait.dump()), errors);
        QVERIFY2(waitBack.has_value(), joinDiagnostics(errors).c_str());
        QCOMPARE(waitBack->compute_split.offload_wait_s, 0.125);
        QCOMPARE(waitBack->compute_split.total(), offloading.compute_split.total());
    }

    void olderResultHasNoTimeline() {
        const auto rs = resolvedDefault(*catalog_, false);
        StepMeasurement m;
        m.step_time_s = 2.0;
        m.timeline = twoStages(32);
        Json j = resultToJson(finishResult(rs, m));
        j.erase("timeline");
        j.erase("power_trace");
        Diagnostics errors;
        const auto back = resultFromJson(j, errors);
        QVERIFY2(back.has_value(), joinDiagnostics(errors).c_str());
        QVERIFY(back->timeline.empty());
        QVERIFY(back->power.empty());
    }

    void badTimelineNamesTheField_data() {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("field");
        QTest::newRow("unknown kind") << u"/timeline/stages/0/intervals/1/kind"_s << u"\"lunch\""_s
                                      << u"result.timeline.stages[0].intervals[1].kind"_s;
        QTest::newRow("gap") << u"/timeline/stages/1/intervals/1/start_s"_s << u"0.55"_s
                             << u"result.timeline.stages[1].intervals[1].start_s"_s;
        QTest::newRow("stages not a list") << u"/timeline/stages"_s << u"3"_s << u"result.timeline.stages"_s;
        QTest::newRow("power series")
            << u"/power_trace/cpus_W/4"_s << u"\"hot\""_s << u"result.power_trace.cpus_W[4]"_s;
    }

    void badTimelineNamesTheField() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, field);
        const auto rs = resolvedDefault(*catalog_, false);
        StepMeasurement m;
        m.step_time_s = 2.0;
        m.timeline = twoStages(32);
        Json j = resultToJson(finishResult(rs, m));
        j[Json::json_pointer(pointer.toStdString())] = Json::parse(value.toStdString());
        Diagnostics errors;
        QVERIFY(!resultFromJson(j, errors).has_value());
        QVERIFY(!errors.empty());
        QCOMPARE(QString::fromStdString(errors.front().path), field);
    }

    void powerIntegralIsTheEnergy() {
        const auto rs = resolvedDefault(*catalog_, true);
        const auto& dev = rs.device();
        const StepTimeline t = twoStages(64);
        const PowerTrace p = powerTrace(rs, t, 37); // bins that cut through intervals
        QCOMPARE(p.bins(), std::size_t{37});
        // Each stage's devices: idle all step, TDP - idle while computing; the CPU pool idles.
        double expected = 0.0;
        for (const auto& s : t.stages)
            expected += 64.0 * (dev.idle_W.value * t.step_time_s +
                                (dev.tdp_W.value - dev.idle_W.value) * s.compute_s());
        const Device* cpu = catalog_->find("epyc-9654");
        QVERIFY(cpu);
        const double cpuEnergy = 16.0 * cpu->idle_W.value * t.step_time_s;
        QVERIFY(std::fabs(p.itEnergy_J() - (expected + cpuEnergy)) < 1e-9 * expected);
        QVERIFY(std::fabs(p.facilityEnergy_J() - rs.scenario.costs.pue * p.itEnergy_J()) < 1e-9 * expected);
        double cpus = 0.0;
        for (std::size_t k = 0; k < p.bins(); ++k)
            cpus += p.cpus_W[k] * (p.time_s[k + 1] - p.time_s[k]);
        QVERIFY(std::fabs(cpus - cpuEnergy) < 1e-9 * cpuEnergy);
        QVERIFY(QString::fromStdString(p.cpus_note).contains(u"prep"_s));
        QVERIFY(QString::fromStdString(p.network_note).contains(u"assumption"_s));
        // Power is highest where both stages compute and idle-only where neither does.
        const auto bin = [&](double time) { return static_cast<std::size_t>(time / 2.0 * 37.0); };
        QVERIFY(p.accelerators_W[bin(1.15)] > p.accelerators_W[bin(1.96)]);
        QVERIFY(std::fabs(p.accelerators_W[bin(1.96)] - 128.0 * dev.idle_W.value) < 1e-6);
    }

    void overTheCapFoldsAfterThePower() {
        // 8 stages x 2,000 alternating slivers: over the bound of 8,192 intervals in all.
        const auto rs = resolvedDefault(*catalog_, false);
        StepMeasurement m;
        m.step_time_s = 4.0;
        m.timeline.step_time_s = 4.0;
        for (std::int64_t s = 0; s < 8; ++s) {
            std::vector<TimelineSpan> spans;
            for (int i = 0; i < 2000; ++i)
                spans.push_back(span(i % 2 ? ActivityKind::TensorComm : ActivityKind::Forward, i % 2 ? 2 : 0,
                                     i * 1.5e-3, (i + 1) * 1.5e-3 - (i % 2 ? 0.0 : 1e-3 * (i % 3)), i / 2));
            m.timeline.stages.push_back(partitionStage(s, 16, spans, 4.0));
        }
        QVERIFY(m.timeline.intervalCount() > kMaxTimelineIntervals);
        const PowerTrace exact = powerTrace(rs, m.timeline);
        const RunResult r = finishResult(rs, m);
        QVERIFY(r.timeline.intervalCount() <= kMaxTimelineIntervals);
        QVERIFY(r.timeline.folded_below_s > 0.0);
        for (const auto& s : r.timeline.stages)
            checkPartition(s, 4.0);
        // The power trace is that of the timeline as simulated, not of the folded one; so are the totals per
        // kind, which summing the folded intervals would not give.
        QCOMPARE(r.power, exact);
        for (std::size_t s = 0; s < r.timeline.stages.size(); ++s) {
            const auto& folded = r.timeline.stages[s];
            const auto& simulated = m.timeline.stages[s];
            double tensorInIntervals = 0.0;
            for (const auto& i : folded.intervals)
                if (i.kind == ActivityKind::TensorComm)
                    tensorInIntervals += i.duration_s();
            double simulatedTensor = 0.0;
            for (const auto& i : simulated.intervals)
                if (i.kind == ActivityKind::TensorComm)
                    simulatedTensor += i.duration_s();
            QVERIFY(std::fabs(folded.total_s(ActivityKind::TensorComm) - simulatedTensor) < 1e-9);
            QVERIFY(std::fabs(tensorInIntervals - simulatedTensor) > 1e-3);
            double all = 0.0;
            for (int k = 0; k < kActivityKindCount; ++k)
                all += folded.total_s(static_cast<ActivityKind>(k));
            QVERIFY(std::fabs(all - 4.0) < 1e-9);
        }
        Diagnostics errors;
        const auto back = resultFromJson(Json::parse(resultToJson(r).dump()), errors);
        QVERIFY2(back.has_value(), joinDiagnostics(errors).c_str());
        QCOMPARE(back->timeline.folded_below_s, r.timeline.folded_below_s);
        QCOMPARE(back->timeline, r.timeline);
        // A timeline without totals (an older result) sums its intervals; an unknown kind is an error.
        Json old = resultToJson(r);
        for (auto& stage : old["timeline"]["stages"])
            stage.erase("totals_s");
        const auto older = resultFromJson(old, errors);
        QVERIFY2(older.has_value(), joinDiagnostics(errors).c_str());
        QVERIFY(!older->timeline.stages.front().hasTotals());
        double forwardInIntervals = 0.0;
        for (const auto& i : older->timeline.stages.front().intervals)
            if (i.kind == ActivityKind::Forward)
                forwardInIntervals += i.duration_s();
        QVERIFY(forwardInIntervals > 0.0);
        QCOMPARE(older->timeline.stages.front().total_s(ActivityKind::Forward), forwardInIntervals);
        Json wrong = resultToJson(r);
        wrong["timeline"]["stages"][0]["totals_s"]["idling"] = 1.0;
        Diagnostics wrongErrors;
        QVERIFY(!resultFromJson(wrong, wrongErrors).has_value());
        QVERIFY2(joinDiagnostics(wrongErrors).find("totals_s.idling: unknown activity") != std::string::npos,
                 joinDiagnostics(wrongErrors).c_str());
        // Under the bound nothing is folded.
        StepMeasurement small;
        small.step_time_s = 2.0;
        small.timeline = twoStages(4);
        QCOMPARE(finishResult(rs, small).timeline.folded_below_s, 0.0);
    }

    void noTimelineNoTrace() {
        const auto rs = resolvedDefault(*catalog_, false);
        QVERIFY(powerTrace(rs, StepTimeline{}).empty());
        StepMeasurement m;
        m.step_time_s = 1.0;
        const Json j = resultToJson(finishResult(rs, m));
        QVERIFY(!j.contains("timeline"));
        QVERIFY(!j.contains("power_trace"));
    }

private:
    std::optional<Catalog> catalog_;
};

QTEST_APPLESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
