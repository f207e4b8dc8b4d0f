// The whole run with failures (models/reliability.h): the failure profile's rates at the published run's
// scale, Young and Daly's interval and expectation, the seeded Monte Carlo, and bad input.
#include "models/reliability.h"
#include "models/result.h"

#include <QTest>

#include <cmath>

#include "stagetesting.h"

using namespace choreo::models;
using choreo::test::catalog;
using choreo::test::kAssets;

namespace {

const std::filesystem::path& kDefault = choreo::test::kDefaultScenario;

// The default scenario (Llama 3 70B on 128 H100) on `devices` H100, with `more` overrides.
ResolvedScenario onDevices(int devices, std::vector<std::string> more = {}) {
    std::vector<std::string> sets = {"cluster.pools[0].count=" + std::to_string(devices),
                                     "workload.parallel.dp=" + std::to_string(devices / 16),
                                     "workload.global_batch=" + std::to_string(devices / 16 * 4)};
    sets.insert(sets.end(), more.begin(), more.end());
    return choreo::test::resolveOrFail(kDefault, sets);
}

Reliability settings(std::int64_t trials = 1000, std::int64_t seed = 1) {
    Reliability r;
    r.trials = trials;
    r.seed = seed;
    return r;
}

} // namespace

class TstReliability : public QObject {
    Q_OBJECT

private slots:
    // The check the plan issue sets: 16,384 H100 over 54 days give between 300 and 600 interruptions. The
    // profile is that run's own (Llama 3, 466), so this checks the scaling arithmetic, not the rates.
    void llama3ScaleGivesItsInterruptions() {
        const auto rs = onDevices(16384);
        QVERIFY(rs.reliability);
        const double interruptions = rs.reliability->interruptions_per_hour * 54.0 * 24.0;
        QVERIFY2(interruptions > 300.0 && interruptions < 600.0, std::to_string(interruptions).c_str());
        QCOMPARE(std::round(interruptions), 466.0);
        QVERIFY(rs.reliability->profile.find("llama3-h100") == 0);
        QVERIFY(rs.reliability->profile.find("assumed") == std::string::npos);
    }

    // Every cause is counted per device or per node: 16 times the devices, 16 times the interruptions.
    void ratesGrowWithTheDevices() {
        const double small = onDevices(1024).reliability->interruptions_per_hour;
        const double large = onDevices(16384).reliability->interruptions_per_hour;
        QVERIFY2(std::abs(large / small - 16.0) < 1e-9, std::to_string(large / small).c_str());
    }

    // Daly's published optima (2006, figures for M = 24 h, 6 h and 15 min; delta = 5 min): 117, 57 and 9.1
    // min.
    void dalyIntervalMatchesThePaper() {
        const double stall = 300.0;
        QCOMPARE(std::round(dalyInterval(stall, 24 * 3600.0) / 60.0), 117.0);
        QCOMPARE(std::round(dalyInterval(stall, 6 * 3600.0) / 60.0), 57.0);
        QCOMPARE(std::round(dalyInterval(stall, 15 * 60.0) / 6.0) / 10.0, 9.1);
        // A checkpoint longer than twice the MTBF: checkpoint every MTBF.
        QCOMPARE(dalyInterval(1000.0, 400.0), 400.0);
    }

    // The Monte Carlo's median lies near Daly's expectation, the spread is ordered, nothing beats the ideal.
    void monteCarloAgreesWithTheExpectation() {
        const auto rs = onDevices(16384);
        const WholeRun run = wholeRun(*rs.reliability, settings(), 54.0 * 86400.0, 10.0);
        QCOMPARE(run.trials, std::int64_t{1000});
        QVERIFY(run.ideal_s <= run.p10_s);
        QVERIFY(run.p10_s <= run.p50_s && run.p50_s <= run.p90_s);
        QVERIFY2(std::abs(run.p50_s / run.expected_s - 1.0) < 0.02,
                 (std::to_string(run.p50_s) + " vs " + std::to_string(run.expected_s)).c_str());
        QVERIFY(run.goodput() > 0.0 && run.goodput() <= 1.0);
        QVERIFY(run.interval_from_rule);
        QCOMPARE(std::fmod(run.checkpoint_interval_s, 10.0), 0.0); // whole steps
        // The median run's time is the ideal, its checkpoints, its recoveries and its lost work.
        const double parts = run.ideal_s + run.checkpoint_total_s + run.recovery_total_s + run.lost_work_s;
        QVERIFY2(std::abs(parts / run.p50_s - 1.0) < 1e-9, std::to_string(parts).c_str());
    }

    void theSameSeedGivesTheSameRun() {
        const auto rs = onDevices(4096);
        const WholeRun a = wholeRun(*rs.reliability, settings(500, 7), 30.0 * 86400.0, 10.0);
        const WholeRun b = wholeRun(*rs.reliability, settings(500, 7), 30.0 * 86400.0, 10.0);
        const WholeRun c = wholeRun(*rs.reliability, settings(500, 8), 30.0 * 86400.0, 10.0);
        QCOMPARE(a.p50_s, b.p50_s);
        QCOMPARE(a.p90_s, b.p90_s);
        QVERIFY(a.p90_s != c.p90_s);
    }

    // Doubling the failure rate never shortens the run; a set interval is kept (in whole steps).
    void moreFailuresNeverHelp() {
        const auto base = onDevices(4096);
        const auto worse = onDevices(4096, {"workload.reliability.failure_rate_scale=2"});
        const WholeRun a = wholeRun(*base.reliability, settings(), 30.0 * 86400.0, 10.0);
        const WholeRun b = wholeRun(*worse.reliability, settings(), 30.0 * 86400.0, 10.0);
        QVERIFY(b.expected_s > a.expected_s);
        QVERIFY(b.interruptions_expected > 1.9 * a.interruptions_expected);
        Reliability fixed = settings();
        fixed.checkpoint_interval_s = 1234.0;
        const WholeRun c = wholeRun(*base.reliability, fixed, 30.0 * 86400.0, 10.0);
        QCOMPARE(c.checkpoint_interval_s, 1230.0);
        QVERIFY(!c.interval_from_rule);
        QVERIFY(c.expected_s >= a.expected_s * 0.999); // Daly's interval is the best one
    }

    // Asynchronous checkpoints stall only for the copy to host memory.
    void asyncCheckpointsStallLess() {
        const auto sync = onDevices(1024);
        const auto async = onDevices(1024, {"workload.reliability.async_checkpoint=true"});
        // Each device copies its share over its own host link; the write to storage runs behind.
        const double hostLinkBps = async.device().host_link_GBps.value * 1e9;
        QCOMPARE(async.reliability->stall_s, async.reliability->checkpoint_bytes / 1024.0 / hostLinkBps);
        QCOMPARE(sync.reliability->stall_s, sync.reliability->write_s);
        QVERIFY(async.reliability->stall_s < sync.reliability->stall_s);
        QCOMPARE(async.reliability->write_s, sync.reliability->write_s);
    }

    // Off: no whole-run figures, the ideal time to train.
    void failuresOffGiveTheIdeal() {
        const auto rs = onDevices(1024, {"workload.reliability.failures=false"});
        QVERIFY(!rs.reliability);
    }

    // A run interrupted faster than it can checkpoint never finishes: said so, not a number.
    void aHopelessRunSaysWhy() {
        const auto rs = onDevices(16384, {"workload.reliability.failure_rate_scale=1000",
                                          "workload.reliability.checkpoint_storage=\"object-store\""});
        const WholeRun run = wholeRun(*rs.reliability, settings(), 54.0 * 86400.0, 10.0);
        const std::string why = unphysicalWholeRun(run);
        QVERIFY2(why.find("never finishes") != std::string::npos, why.c_str());
    }

    // So many interruptions that drawing them would take too long: the expectation alone, bounded time.
    void tooManyInterruptionsToDrawGiveTheExpectation() {
        const auto rs = onDevices(16384, {"workload.reliability.failure_rate_scale=20"});
        const WholeRun run = wholeRun(*rs.reliability, settings(100'000), 3000.0 * 86400.0, 10.0);
        QCOMPARE(run.trials, std::int64_t{0});
        QCOMPARE(run.p50_s, run.expected_s);
        QVERIFY2(run.note.find("expectation only") == 0, run.note.c_str());
        // Fewer interruptions a run: as many trials as the bound allows, and the note says so.
        const auto fewer = onDevices(16384);
        const WholeRun drawn = wholeRun(*fewer.reliability, settings(100'000), 2000.0 * 86400.0, 10.0);
        QVERIFY(drawn.trials >= 50 && drawn.trials < 100'000);
        QVERIFY2(drawn.note.find("of 100000 asked") != std::string::npos, drawn.note.c_str());
    }

    // Bad input names the field.
    void badInputNamesTheField() {
        Diagnostics errors;
        QVERIFY(!choreo::test::resolveWith(kDefault, {"workload.reliability.checkpoint_storage=\"tape\""},
                                           errors));
        QCOMPARE(errors.front().path, std::string("workload.reliability.checkpoint_storage"));
        errors.clear();
        QVERIFY(!choreo::test::loadWith(kDefault, {"workload.reliability.failure_rate_scale=0"}, errors));
        QCOMPARE(errors.front().path, std::string("workload.reliability.failure_rate_scale"));
        errors.clear();
        QVERIFY(!choreo::test::loadWith(kDefault, {"workload.reliability.trials=1000000"}, errors));
        QCOMPARE(errors.front().path, std::string("workload.reliability.trials"));
    }

    // The site's power cap: every device at its rated power, times PUE; how many fit when they do not all.
    void sitePowerSaysWhatFits() {
        const auto rs = choreo::test::resolveOrFail(kDefault, {"costs.site_power_MW=0.1", "costs.pue=1.3"});
        StepMeasurement step;
        step.step_time_s = 10.0;
        const RunResult r = finishResult(rs, step);
        QVERIFY(r.site_power);
        const double tdp = rs.device().tdp_W.value;
        QCOMPARE(r.site_power->peak_MW, 128 * tdp * 1.3 / 1e6);
        QCOMPARE(r.site_power->fits, r.site_power->peak_MW <= 0.1);
        QCOMPARE(r.site_power->devices_that_fit,
                 std::min<std::int64_t>(128, static_cast<std::int64_t>(0.1e6 / 1.3 / tdp)));
        Diagnostics errors;
        const auto back = resultFromJson(resultToJson(r), errors);
        QVERIFY(back && back->site_power);
        QCOMPARE(back->site_power->devices_that_fit, r.site_power->devices_that_fit);
        const auto uncapped = choreo::test::resolveOrFail(kDefault);
        QVERIFY(!finishResult(uncapped, step).site_power);
    }

    // Checkpoints go no faster than the shared file system's ceiling, or the scenario's own rate.
    void checkpointsShareTheTiersCeiling() {
        const auto rs = onDevices(16384);
        const double bytes = rs.reliability->checkpoint_bytes;
        const double ceiling = catalog().storage("parallel-fs")->aggregate_GBps.value * 1e9;
        QVERIFY(2048 * 80e9 > ceiling); // the nodes' own links would go faster
        QCOMPARE(rs.reliability->write_s, bytes / ceiling + 1e-3);
        const auto slow = onDevices(16384, {"workload.reliability.checkpoint_GBps=100"});
        QCOMPARE(slow.reliability->write_s, bytes / 100e9 + 1e-3);
        // A slower write, a longer Young/Daly interval.
        const double step = 10.0;
        QVERIFY(wholeRun(*slow.reliability, settings(), 86400.0, step).checkpoint_interval_s >
                wholeRun(*rs.reliability, settings(), 86400.0, step).checkpoint_interval_s);
    }

    // A catalog profile that names an unknown device, counts per something else, or is a second fallback.
    void badProfilesNameTheirPath() {
        namespace fs = std::filesystem;
        const fs::path dir = fs::temp_directory_path() / "choreo-tst-reliability";
        fs::remove_all(dir);
        fs::copy(kAssets / "catalog", dir);
        const std::string entry = R"({"format": "choreo-catalog/1", "failure_profiles": [{"id": "bad",
            "name": "x", "devices": ["no-such-gpu"], "fallback": true,
            "observed_devices": {"value": 8, "source": "LLAMA3-RELIABILITY"},
            "observed_devices_per_node": {"value": 8, "source": "LLAMA3-RELIABILITY"},
            "observed_days": {"value": 1, "source": "LLAMA3-RELIABILITY"},
            "causes": [{"name": "x", "per": "rack", "count": {"value": 1, "source": "LLAMA3-RELIABILITY"}}],
            "detection_s": {"value": 1, "source": "LLAMA3-RELIABILITY"},
            "restart_s": {"value": 1, "source": "LLAMA3-RELIABILITY"}}]})";
        std::string error;
        QVERIFY2(writeTextFileAtomically(dir / "zz-test.json", entry, error), error.c_str());
        Diagnostics errors;
        QVERIFY(!Catalog::load(dir, errors));
        const std::string all = joinDiagnostics(errors);
        for (const char* expected : {"failure_profiles[0].causes[0].per", "failure_profiles.bad.devices",
                                     "failure_profiles.bad.fallback"})
            QVERIFY2(all.find(expected) != std::string::npos, all.c_str());
        fs::remove_all(dir);
    }

    // Hot spares: a faulty device or node is swapped for a spare and the job restarts in the standby time,
    // while software faults and switches are still requeued. The spares are a pool of their own, idle and
    // billed like the training pool, and count at idle power against the site's cap.
    void hotSparesShortenRecoveries() {
        const auto plain = onDevices(1024, {"costs.site_power_MW=10"});
        const auto spared =
            onDevices(1024, {"workload.reliability.hot_spare_nodes=4", "costs.site_power_MW=10"});
        const auto& rel = *spared.reliability;
        QCOMPARE(rel.spare_nodes, std::int64_t{4});
        QCOMPARE(rel.standby_restart_s, 55.0);
        // Llama 3's causes: 370 on devices and nodes a spare replaces, 98 software, watchdog, dependency and
        // switch; per device and per node they scale alike, so about 79 % at any size.
        QVERIFY2(rel.spare_share > 0.78 && rel.spare_share < 0.80, std::to_string(rel.spare_share).c_str());
        QCOMPARE(rel.recovery_s(), rel.detection_s + rel.spare_share * 55.0 +
                                       (1.0 - rel.spare_share) * rel.restart_s + rel.restore_s);
        QVERIFY(rel.recovery_s() < plain.reliability->recovery_s());
        StepMeasurement step;
        step.step_time_s = 10.0;
        step.fidelity = "analytical";
        const RunResult a = finishResult(plain, step);
        const RunResult b = finishResult(spared, step);
        QVERIFY(b.whole_run->expected_s < a.whole_run->expected_s);
        QVERIFY2(
            b.whole_run->note.find("4 hot spare nodes: a faulty device or node (79 % of interruptions)") !=
                std::string::npos,
            b.whole_run->note.c_str());
        const PoolResult& pool = b.pools.back();
        QCOMPARE(pool.name, std::string("gpus (hot spares)"));
        QCOMPARE(pool.count, std::int64_t{32});
        QCOMPARE(pool.utilisation, 0.0);
        const double hours = b.time_to_train_s / 3600.0;
        QVERIFY(std::abs(pool.cost_usd - spared.pools[0].rent_usd_per_device_hour * 32 * hours) <
                1e-6 * pool.cost_usd);
        double pools = 0.0;
        for (const auto& p : b.pools)
            pools += p.cost_usd;
        QVERIFY(std::abs(pools - b.cost_usd) < 1e-9 * b.cost_usd);
        const double pue = spared.scenario.costs.pue;
        QVERIFY(std::abs(b.site_power->peak_MW - a.site_power->peak_MW -
                         32 * spared.device().idle_W.value * pue / 1e6) < 1e-12);
    }

    // A profile without a published restart onto a standby node refuses hot spares by the field.
    void hotSparesNeedAPublishedStandbyRestart() {
        namespace fs = std::filesystem;
        const fs::path dir = fs::temp_directory_path() / "choreo-tst-spares";
        fs::remove_all(dir);
        fs::copy(kAssets / "catalog", dir);
        std::string text, error;
        QVERIFY(readTextFile(dir / "reliability.json", text, error));
        Json doc = Json::parse(text);
        for (auto& profile : doc["failure_profiles"])
            profile.erase("standby_restart_s");
        QVERIFY2(writeTextFileAtomically(dir / "reliability.json", doc.dump(2), error), error.c_str());
        Diagnostics errors;
        const auto bare = Catalog::load(dir, errors);
        QVERIFY2(bare, joinDiagnostics(errors).c_str());
        auto s = choreo::test::loadWith(kDefault, {"workload.reliability.hot_spare_nodes=2"}, errors);
        QVERIFY(s);
        QVERIFY(!resolveScenario(*s, *bare, errors));
        QVERIFY2(choreo::test::hasError(errors, "workload.reliability.hot_spare_nodes",
                                        "has no published restart onto a standby node"),
                 joinDiagnostics(errors).c_str());
        fs::remove_all(dir);
    }

    // A result's whole run survives its JSON.
    void theWholeRunSurvivesJson() {
        const auto rs = onDevices(1024);
        StepMeasurement step;
        step.step_time_s = 10.0;
        step.fidelity = "analytical";
        const RunResult r = finishResult(rs, step);
        QVERIFY(r.whole_run);
        QCOMPARE(r.time_to_train_s, r.whole_run->p50_s);
        QVERIFY(r.time_to_train_s > r.whole_run->ideal_s);
        Diagnostics errors;
        const auto back = resultFromJson(resultToJson(r), errors);
        QVERIFY2(back && back->whole_run, joinDiagnostics(errors).c_str());
        QCOMPARE(back->whole_run->p90_s, r.whole_run->p90_s);
        QCOMPARE(back->whole_run->checkpoint_interval_s, r.whole_run->checkpoint_interval_s);
        QCOMPARE(back->whole_run->profile, r.whole_run->profile);
    }
};

QTEST_APPLESS_MAIN(TstReliability)
#include "tst_reliability.moc"
