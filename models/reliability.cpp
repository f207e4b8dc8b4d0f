#include "models/reliability.h"

#include "models/jsonreader.h"
#include "models/memory.h"
#include "models/requeststream.h"
#include "models/resolved.h"
#include "models/transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace choreo::models {

namespace {

// The Monte Carlo draws at most this many interruptions over all its trials, so that a run with a huge
// failure count stays bounded in time (its spread then narrows to the expectation anyway).
constexpr double kDrawBudget = 2e6;
// Fewer trials than this give no useful percentiles: the expectation is reported alone.
constexpr std::int64_t kMinTrials = 50;
// Beyond this many mean times between interruptions, a segment or a recovery almost never completes.
constexpr double kHopelessRatio = 30.0;

const FailureProfile* profileFor(const Catalog& catalog, const std::string& device, bool& assumed) {
    const FailureProfile* fallback = nullptr;
    for (const auto& p : catalog.failureProfiles()) {
        if (std::find(p.devices.begin(), p.devices.end(), device) != p.devices.end()) {
            assumed = false;
            return &p;
        }
        if (p.fallback)
            fallback = &p;
    }
    assumed = true;
    return fallback;
}

// Interruptions per hour of a pool of `devices`, `perNode` a node; with `spareCausesOnly`, those a hot spare
// cures (FailureCause::spare_helps).
double interruptionsPerHour(const FailureProfile& profile, double devices, double perNode,
                            bool spareCausesOnly = false) {
    const double observedHours = profile.observed_days.value * 24.0;
    const double observedNodes = profile.observed_devices.value / profile.observed_devices_per_node.value;
    const double nodes = std::ceil(devices / perNode);
    double rate = 0.0;
    for (const auto& cause : profile.causes) {
        if (spareCausesOnly && !cause.spare_helps)
            continue;
        double observed = 1.0, here = 1.0; // "job"
        if (cause.per == "device") {
            observed = profile.observed_devices.value;
            here = devices;
        } else if (cause.per == "node") {
            observed = observedNodes;
            here = nodes;
        }
        rate += cause.count.value / (observed * observedHours) * here;
    }
    return rate;
}

std::string describeProfile(const FailureProfile& profile, const std::string& device, bool assumed) {
    std::string out = profile.id + ": " + profile.name;
    if (assumed)
        out += " (assumed: no published failure rates on " + device + ")";
    return out;
}

// One run of the whole training: `segments` segments of `interval` computing and a `stall` each, under
// exponential interruptions of mean `mtbf`, each followed by an interruptible recovery.
struct Trial {
    double wall = 0, checkpoints = 0, recoveries = 0, lost = 0;
};

Trial runTrial(SeededDraws& draws, double segments, double interval, double stall, double recovery,
               double mtbf) {
    Trial t;
    const double segment = interval + stall;
    double done = 0.0;
    while (done < segments) {
        const double untilFault = mtbf * draws.exponential();
        const double whole = std::floor(untilFault / segment);
        if (whole >= segments - done) {
            t.wall += (segments - done) * segment;
            t.checkpoints += (segments - done) * stall;
            break;
        }
        done += whole;
        t.wall += untilFault;
        t.checkpoints += whole * stall;
        t.lost += untilFault - whole * segment; // the unfinished segment, its computing and any stall
        for (;;) {
            const double untilNext = mtbf * draws.exponential();
            if (untilNext >= recovery) {
                t.wall += recovery;
                t.recoveries += recovery;
                break;
            }
            t.wall += untilNext;
            t.recoveries += untilNext;
        }
    }
    return t;
}

// The interval between checkpoints, a whole number of steps (checkpoints are taken between steps).
double checkpointInterval(const ResolvedReliability& rel, const Reliability& settings, double stepSeconds,
                          bool& fromRule) {
    fromRule = settings.checkpoint_interval_s <= 0.0;
    const double wanted = fromRule ? dalyInterval(rel.stall_s, rel.mtbf_s()) : settings.checkpoint_interval_s;
    if (stepSeconds <= 0.0)
        return wanted;
    return std::max(1.0, std::round(wanted / stepSeconds)) * stepSeconds;
}

// Draws the runs and sets the percentiles and the median run's split; the expectation alone when the draws
// would exceed the budget.
void drawRuns(WholeRun& run, const Reliability& settings, double segments, double interval, double stall) {
    const double perTrial = run.interruptions_expected + 1.0;
    const auto affordable = static_cast<std::int64_t>(std::min(1e9, std::floor(kDrawBudget / perTrial)));
    run.trials = std::min(settings.trials, affordable);
    // No trials asked (a plan's screening), or too few affordable: Daly's expectation stands for the spread.
    if (run.trials <= 0 || run.trials < std::min<std::int64_t>(kMinTrials, settings.trials)) {
        run.trials = 0;
        run.p10_s = run.p50_s = run.p90_s = run.expected_s;
        run.note = settings.trials <= 0
                       ? std::string("expectation only: no Monte Carlo asked")
                       : "expectation only: about " + formatNumber(run.interruptions_expected) +
                             " interruptions a run are too many to draw; so many make the "
                             "spread small";
        run.checkpoint_total_s = segments * stall;
        run.recovery_total_s = run.interruptions_expected * run.recovery_s;
        run.lost_work_s =
            std::max(0.0, run.expected_s - run.ideal_s - run.checkpoint_total_s - run.recovery_total_s);
        return;
    }
    SeededDraws draws(static_cast<std::uint64_t>(settings.seed));
    std::vector<Trial> trials;
    trials.reserve(static_cast<std::size_t>(run.trials));
    for (std::int64_t i = 0; i < run.trials; ++i)
        trials.push_back(runTrial(draws, segments, interval, stall, run.recovery_s, run.mtbf_s));
    std::sort(trials.begin(), trials.end(), [](const Trial& a, const Trial& b) { return a.wall < b.wall; });
    const auto at = [&](double q) {
        const auto index = static_cast<std::size_t>(std::floor(q * static_cast<double>(trials.size() - 1)));
        return trials[index];
    };
    run.p10_s = at(0.1).wall;
    const Trial median = at(0.5);
    run.p50_s = median.wall;
    run.p90_s = at(0.9).wall;
    run.checkpoint_total_s = median.checkpoints;
    run.recovery_total_s = median.recoveries;
    run.lost_work_s = median.lost;
    run.note = std::to_string(run.trials) + " Monte Carlo runs, seed " + std::to_string(settings.seed);
    if (run.trials < settings.trials)
        run.note += " (of " + std::to_string(settings.trials) + " asked: the draws are bounded)";
}

// The hot spares of `settings` into `out`: their restart from the profile and the share of the profile's
// `allPerHour` interruptions (every cause, unscaled) they take; false with an error when the profile
// publishes no restart onto a standby node.
bool takeSpares(const Reliability& settings, const FailureProfile& profile, double devices, double perNode,
                double allPerHour, ResolvedReliability& out, Diagnostics& errors) {
    if (!profile.standby_restart_s.present()) {
        errors.push_back({"workload.reliability.hot_spare_nodes",
                          "the failure profile " + profile.id +
                              " has no published restart onto a standby node (standby_restart_s); set 0"});
        return false;
    }
    out.spare_nodes = settings.hot_spare_nodes;
    out.standby_restart_s = profile.standby_restart_s.value;
    out.spare_share =
        allPerHour > 0.0 ? interruptionsPerHour(profile, devices, perNode, true) / allPerHour : 0.0;
    return true;
}

} // namespace

void checkFailureProfiles(const Catalog& catalog, Diagnostics& errors) {
    std::set<std::string> covered;
    const FailureProfile* fallback = nullptr;
    for (const auto& p : catalog.failureProfiles()) {
        const std::string where = "failure_profiles." + p.id;
        for (const auto& id : p.devices) {
            if (!catalog.find(id))
                errors.push_back({where + ".devices", "\"" + id + "\" is not a catalog device"});
            else if (!covered.insert(id).second)
                errors.push_back({where + ".devices", id + " already has a failure profile"});
        }
        if (p.fallback && fallback)
            errors.push_back({where + ".fallback", fallback->id + " is already the fallback profile"});
        if (p.fallback)
            fallback = &p;
        if (p.observed_devices_per_node.value > p.observed_devices.value)
            errors.push_back({where + ".observed_devices_per_node", "more than observed_devices"});
    }
}

std::optional<ResolvedReliability> resolveReliability(const Scenario& s,
                                                      const std::vector<ResolvedPool>& pools,
                                                      std::size_t trainingPool, const Catalog& catalog,
                                                      Diagnostics& errors) {
    const Reliability& settings = s.workload.reliability;
    if (!settings.failures)
        return std::nullopt;
    const ResolvedPool& pool = pools[trainingPool];
    const Device& device = *pool.device;
    ResolvedReliability out;
    bool assumed = false;
    const FailureProfile* profile = profileFor(catalog, device.id, assumed);
    if (!profile) {
        errors.push_back({"workload.reliability.failures",
                          "no failure profile in the catalog covers " + device.id + "; set it to false"});
        return std::nullopt;
    }
    out.profile = describeProfile(*profile, device.id, assumed);
    const auto devices = static_cast<double>(pool.pool.count);
    const auto perNode = static_cast<double>(pool.pool.devices_per_node);
    const double allPerHour = interruptionsPerHour(*profile, devices, perNode);
    out.interruptions_per_hour = allPerHour * settings.failure_rate_scale;
    out.detection_s = settings.detection_s.value_or(profile->detection_s.value);
    out.restart_s = settings.restart_s.value_or(profile->restart_s.value);
    if (settings.hot_spare_nodes > 0 &&
        !takeSpares(settings, *profile, devices, perNode, allPerHour, out, errors))
        return std::nullopt;
    const StorageTier* tier =
        catalog.storage(settings.checkpoint_storage, "workload.reliability.checkpoint_storage", errors);
    if (!tier)
        return std::nullopt;
    out.storage = tier->name;
    const auto bytes = trainingStateBytes(s.workload);
    out.checkpoint_bytes = countParameters(s.workload.model).total() * (bytes.weights + bytes.optimizer);
    // Every node writes and reads its share at the tier's streaming rate (writes as reads), up to the tier's
    // ceiling or the scenario's.
    const double tierBps = settings.checkpoint_GBps ? *settings.checkpoint_GBps * 1e9
                                                    : tier->bandwidthBps(std::ceil(devices / perNode));
    const double latency = tier->latency_ms.value / 1e3;
    out.write_s = out.checkpoint_bytes / tierBps + latency;
    out.restore_s = out.write_s;
    out.async = settings.async_checkpoint;
    out.stall_s = out.write_s;
    if (out.async) {
        if (!device.host_link_GBps.present() || device.host_link_GBps.value <= 0.0) {
            errors.push_back({"workload.reliability.async_checkpoint",
                              device.id + " has no host-link bandwidth in the catalog (host_link_GBps), so "
                                          "the copy to host memory cannot be timed"});
            return std::nullopt;
        }
        out.stall_s = out.checkpoint_bytes / devices / (device.host_link_GBps.value * 1e9);
    }
    return out;
}

double dalyInterval(double stall, double mtbf) {
    if (stall >= 2.0 * mtbf)
        return mtbf;
    const double x = std::sqrt(stall / (2.0 * mtbf));
    return std::sqrt(2.0 * stall * mtbf) * (1.0 + x / 3.0 + x * x / 9.0) - stall;
}

double dalyWallTime(double work, double interval, double stall, double recovery, double mtbf) {
    return mtbf * std::exp(recovery / mtbf) * std::expm1((interval + stall) / mtbf) * work / interval;
}

WholeRun wholeRun(const ResolvedReliability& rel, const Reliability& settings, double idealSeconds,
                  double stepSeconds) {
    WholeRun run;
    run.profile = rel.profile;
    run.ideal_s = idealSeconds;
    run.mtbf_s = rel.mtbf_s();
    run.checkpoint_GB = rel.checkpoint_bytes / 1e9;
    run.checkpoint_write_s = rel.write_s;
    run.checkpoint_stall_s = rel.stall_s;
    run.recovery_s = rel.recovery_s();
    double interval = checkpointInterval(rel, settings, stepSeconds, run.interval_from_rule);
    // An asynchronous write must end before the next one starts.
    if (rel.async)
        interval = std::max(interval, stepSeconds > 0.0 ? std::ceil(rel.write_s / stepSeconds) * stepSeconds
                                                        : rel.write_s);
    run.checkpoint_interval_s = interval;
    if (idealSeconds <= 0.0 || !std::isfinite(idealSeconds)) { // nothing to do, or already unphysical
        run.expected_s = run.p10_s = run.p50_s = run.p90_s = idealSeconds;
        return run;
    }
    // Equal segments (the last one as long as the others), so that Daly's expectation holds exactly.
    const double segments = std::max(1.0, std::ceil(idealSeconds / interval));
    const double segment = idealSeconds / segments;
    if ((segment + rel.stall_s) / run.mtbf_s > kHopelessRatio ||
        run.recovery_s / run.mtbf_s > kHopelessRatio) {
        run.expected_s = run.p10_s = run.p50_s = run.p90_s = std::numeric_limits<double>::infinity();
        run.note = "the run never finishes: interrupted every " + formatNumber(run.mtbf_s) +
                   " s on average, while a recovery takes " + formatNumber(run.recovery_s) +
                   " s and a checkpoint interval with its write " + formatNumber(segment + rel.stall_s) +
                   " s";
        return run;
    }
    run.expected_s = dalyWallTime(idealSeconds, segment, rel.stall_s, run.recovery_s, run.mtbf_s);
    run.interruptions_expected = run.expected_s / run.mtbf_s;
    drawRuns(run, settings, segments, segment, rel.stall_s);
    if (rel.spare_nodes > 0)
        run.note += "; " + std::to_string(rel.spare_nodes) + " hot spare node" +
                    (rel.spare_nodes > 1 ? "s" : "") + ": a faulty device or node (" +
                    formatNumber(std::round(100.0 * rel.spare_share)) +
                    " % of interruptions) is swapped and the job restarts in " +
                    formatNumber(rel.standby_restart_s) + " s, not " + formatNumber(rel.restart_s);
    return run;
}

void putWholeRun(Json& j, const WholeRun& run) {
    j["time_to_train_ideal_s"] = run.ideal_s;
    j["time_to_train_expected_s"] = run.expected_s;
    j["time_to_train_p10_s"] = run.p10_s;
    j["time_to_train_p90_s"] = run.p90_s;
    j["goodput"] = run.goodput();
    j["interruptions_expected"] = run.interruptions_expected;
    j["checkpoint"] = Json{{"size_GB", run.checkpoint_GB},
                           {"write_s", run.checkpoint_write_s},
                           {"stall_s", run.checkpoint_stall_s},
                           {"interval_s", run.checkpoint_interval_s},
                           {"interval_from_rule", run.interval_from_rule}};
    j["failures"] = Json{{"profile", run.profile},
                         {"mtbf_s", run.mtbf_s},
                         {"recovery_s", run.recovery_s},
                         {"trials", run.trials},
                         {"note", run.note},
                         {"checkpoint_total_s", run.checkpoint_total_s},
                         {"recovery_total_s", run.recovery_total_s},
                         {"lost_work_s", run.lost_work_s},
                         {"lost_energy_kWh", run.lost_energy_kWh},
                         {"lost_cost_usd", run.lost_cost_usd}};
}

std::optional<WholeRun> wholeRunFromJson(const Json& j, JsonReader& rd) {
    const auto failures = j.find("failures");
    const auto checkpoint = j.find("checkpoint");
    if (failures == j.end() || checkpoint == j.end())
        return std::nullopt;
    const std::string p = "result";
    const std::string fp = "result.failures", cp = "result.checkpoint";
    if (!rd.expectObject(*failures, fp) || !rd.expectObject(*checkpoint, cp))
        return std::nullopt;
    const auto num = [&](const Json& o, const std::string& path, const char* key) {
        return rd.number(o, path, key, false, true).value_or(0.0);
    };
    WholeRun run;
    run.ideal_s = num(j, p, "time_to_train_ideal_s");
    run.expected_s = num(j, p, "time_to_train_expected_s");
    run.p10_s = num(j, p, "time_to_train_p10_s");
    run.p50_s = num(j, p, "time_to_train_s");
    run.p90_s = num(j, p, "time_to_train_p90_s");
    run.interruptions_expected = num(j, p, "interruptions_expected");
    run.checkpoint_GB = num(*checkpoint, cp, "size_GB");
    run.checkpoint_write_s = num(*checkpoint, cp, "write_s");
    run.checkpoint_stall_s = num(*checkpoint, cp, "stall_s");
    run.checkpoint_interval_s = num(*checkpoint, cp, "interval_s");
    run.interval_from_rule = rd.boolean(*checkpoint, cp, "interval_from_rule", true).value_or(true);
    run.profile = rd.text(*failures, fp, "profile").value_or("");
    run.mtbf_s = num(*failures, fp, "mtbf_s");
    run.recovery_s = num(*failures, fp, "recovery_s");
    run.trials = rd.integer(*failures, fp, "trials", 0).value_or(0);
    run.note = rd.text(*failures, fp, "note").value_or("");
    run.checkpoint_total_s = num(*failures, fp, "checkpoint_total_s");
    run.recovery_total_s = num(*failures, fp, "recovery_total_s");
    run.lost_work_s = num(*failures, fp, "lost_work_s");
    run.lost_energy_kWh = num(*failures, fp, "lost_energy_kWh");
    run.lost_cost_usd = num(*failures, fp, "lost_cost_usd");
    return run;
}

std::string unphysicalWholeRun(const WholeRun& run) {
    if (!std::isfinite(run.p50_s) && std::isfinite(run.ideal_s))
        return "time_to_train_s is infinite: " + run.note;
    return {};
}

} // namespace choreo::models
