#pragma once
// The whole run with failures (docs/model.md, "Failures and checkpoints"): how often the training pool is
// interrupted (the catalog's failure profile of its device, scaled from the published run to this pool),
// what a checkpoint costs through the storage tier, the interval Young and Daly's rule gives, Daly's expected
// time to train, and a seeded Monte Carlo of the run for its spread.

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/scenario.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

class JsonReader;
struct ResolvedPool;

// Checks across the catalog: each profile's devices are catalog devices, no device has two profiles, and at
// most one profile is the fallback.
void checkFailureProfiles(const Catalog& catalog, Diagnostics& errors);

// A training pool's failure and checkpoint figures, checked against the catalog.
struct ResolvedReliability {
    std::string profile;               // the failure profile's id and name, "(assumed: ...)" for a fallback
    double interruptions_per_hour = 0; // the training pool's, every cause together, scaled
    double checkpoint_bytes = 0;       // weights and optimizer states, once (a sharded checkpoint)
    double write_s = 0;   // the checkpoint through the storage tier, every node writing its share
    double restore_s = 0; // reading it back after a restart
    double stall_s = 0;   // what the training waits for a checkpoint (the write, or the host copy)
    double detection_s = 0;
    double restart_s = 0;
    // Hot spares (Reliability::hot_spare_nodes): how many, the restart onto one, and the share of the
    // interruptions a spare cures (FailureCause::spare_helps).
    std::int64_t spare_nodes = 0;
    double standby_restart_s = 0;
    double spare_share = 0;
    std::string storage; // the tier's name
    bool async = false;
    // The mean restart: onto a spare for the faults a spare cures when there are spares, else requeueing.
    [[nodiscard]] double meanRestart_s() const {
        return spare_nodes > 0 ? spare_share * standby_restart_s + (1.0 - spare_share) * restart_s
                               : restart_s;
    }
    // The time from a fault until training resumes: detection, restart, reading the checkpoint.
    [[nodiscard]] double recovery_s() const { return detection_s + meanRestart_s() + restore_s; }
    [[nodiscard]] double mtbf_s() const { return 3600.0 / interruptions_per_hour; }
};

// The failure and checkpoint figures of `s`'s training pool (pools[trainingPool]); nullopt when failures are
// off. Errors name the field: an unknown storage tier, a device no profile covers.
std::optional<ResolvedReliability> resolveReliability(const Scenario& s,
                                                      const std::vector<ResolvedPool>& pools,
                                                      std::size_t trainingPool, const Catalog& catalog,
                                                      Diagnostics& errors);

// Young and Daly's checkpoint interval for a checkpoint stall `stall` and a mean time between interruptions
// `mtbf` (Daly 2006, eq. 37): the compute time between two checkpoints, seconds.
double dalyInterval(double stall, double mtbf);

// Daly's expected wall time (2006, eq. 16) for `work` seconds of computing in segments of `interval`, each
// followed by a checkpoint stall `stall`, with exponential interruptions of mean `mtbf` and a recovery of
// `recovery` seconds (itself interruptible).
double dalyWallTime(double work, double interval, double stall, double recovery, double mtbf);

// The whole run with failures.
struct WholeRun {
    std::string profile;
    double ideal_s = 0;                     // steps x step time, nothing going wrong
    double expected_s = 0;                  // Daly's expectation
    double p10_s = 0, p50_s = 0, p90_s = 0; // from the Monte Carlo (the expectation when it did not run)
    double mtbf_s = 0;                      // the training pool's mean time between interruptions
    double interruptions_expected = 0;
    double checkpoint_GB = 0;
    double checkpoint_write_s = 0;
    double checkpoint_stall_s = 0;
    double checkpoint_interval_s = 0; // compute between checkpoints, a whole number of steps
    bool interval_from_rule = true;   // chosen by Young and Daly's rule, not set by the scenario
    double recovery_s = 0;            // detection + restart + restore, one interruption
    std::int64_t trials = 0;          // Monte Carlo runs (0: too many interruptions to draw; see note)
    std::string note;                 // how the spread was found, and anything assumed
    // The median run's time split: checkpoint stalls, recoveries, and computing that was redone.
    double checkpoint_total_s = 0;
    double recovery_total_s = 0;
    double lost_work_s = 0;
    // What the failures cost beyond the ideal run (set with the result's pools): energy and money.
    double lost_energy_kWh = 0;
    double lost_cost_usd = 0;
    [[nodiscard]] double goodput() const { return p50_s > 0.0 ? ideal_s / p50_s : 0.0; }
};

// The run of `idealSeconds` of training in steps of `stepSeconds` under `reliability`, with `settings`'
// interval, trials and seed. Deterministic: the same inputs give the same figures.
WholeRun wholeRun(const ResolvedReliability& reliability, const Reliability& settings, double idealSeconds,
                  double stepSeconds);

// Writes `run` into a result's JSON `j`: time_to_train_ideal_s, _expected_s, _p10_s, _p90_s, goodput,
// interruptions_expected, checkpoint {...} and failures {...} (time_to_train_s is the result's own).
void putWholeRun(nlohmann::ordered_json& j, const WholeRun& run);
// Reads what putWholeRun wrote; nullopt when `j` has none (failures off, or an older result).
std::optional<WholeRun> wholeRunFromJson(const nlohmann::ordered_json& j, JsonReader& reader);

// The first figure of `run` that is not finite and non-negative, in words, or an empty string.
std::string unphysicalWholeRun(const WholeRun& run);

} // namespace choreo::models
