#pragma once
// Goal seeking (`choreo-sim plan`, docs/plan.md): the clusters that train a scenario's model on its tokens
// by a deadline, within a budget and a site's power. Every allowed device x count x parallel layout x
// precision x recompute is screened at the analytical level, Daly's expectation standing for the run with
// failures; the Pareto front of time to train, cost and energy is then run as `choreo-sim run --fidelity
// analytical` runs it (the Monte Carlo's median), and the fastest options are confirmed at flow fidelity.

#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/result.h"
#include "models/scenario.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choreo::sim {

// A board power limit the search tries on every device (models/powerlimit.h): watts, or a fraction of the
// device's busy power.
struct PlanPowerLimit {
    double value = 1.0;
    bool fraction = true;
    // The limit on `device` in watts; nullopt when it is the device's busy power or above (no limit).
    [[nodiscard]] std::optional<double> wattsOn(const models::Device& device) const;
    [[nodiscard]] std::string text() const; // "80 %" or "500 W"
    bool operator==(const PlanPowerLimit&) const = default;
};

struct PlanRequest {
    models::Scenario base; // the model, its tokens and batch, the workload's stages, other pools, the costs
    std::vector<std::string> devices;              // catalog ids allowed; empty: every device that trains
    std::optional<models::CostMode> mode;          // rent or buy; unset: the base scenario's
    std::chrono::sys_days start{};                 // when the order is placed
    std::optional<std::chrono::sys_days> deadline; // when the training must have finished
    std::optional<double> budget_usd;
    std::optional<double> site_power_MW;           // at the facility, PUE included
    std::map<std::string, double> lead_time_weeks; // the planner's, by catalog id; over the catalog's
    std::int64_t max_devices = 65536;              // the largest training pool tried
    int confirm = 3;                               // options confirmed at flow fidelity (0: none)
    int jobs = 1;                                  // flow confirmations at once
    std::size_t max_options = 12;                  // the Pareto front is thinned to this many
    // Power limits tried on every device; empty: each device at its rated power (the base pool's own limit
    // on its own device).
    std::vector<PlanPowerLimit> power_limits;
    // Renting: the providers whose on-demand offers are searched (catalog ids); empty: the catalog's rent
    // prices.
    std::vector<std::string> providers;
};

// One point of the search: the training pool and how the model is laid out on it.
struct PlanCandidate {
    std::string device; // catalog id
    std::int64_t count = 0;
    std::int64_t per_node = 0;
    std::int64_t tp = 1, pp = 1, dp = 1;
    models::Precision precision = models::Precision::Bf16;
    models::Recompute recompute = models::Recompute::None;
    std::optional<double> power_limit_W{}; // per device; absent: its rated power
    std::string provider{};                // renting from this provider's offer; empty: the catalog's price
    // "tp8 pp4 dp64, bf16, recompute full[, limited to 500 W][, from aws]"
    [[nodiscard]] std::string layout() const;
    bool operator==(const PlanCandidate&) const = default;
};

// What a candidate achieves, from its order to the end of its training.
struct PlanFigures {
    double step_s = 0;
    double time_to_train_s = 0; // with failures
    // What the plan spends, the budget's measure: renting, the run's hours (the result's cost_usd); buying,
    // every pool's devices at their price and the run's electricity (the result's cost_usd then charges the
    // run's share of the depreciation alone).
    double cost_usd = 0;
    double purchase_usd = 0; // buying: every pool's devices at their price; renting: 0
    double energy_MWh = 0;
    double peak_MW = 0;     // the cluster at the facility, rated power x PUE
    double lead_days = 0;   // from the order until the devices are there (availability and lead time)
    double finish_days = 0; // from the order until the training ends
};

// A limit the planner set, and how a candidate stands against it.
enum class PlanLimit { Deadline, Budget, Power };
std::string toString(PlanLimit limit);

struct PlanOption {
    PlanCandidate candidate;
    models::Scenario scenario; // opens in the desktop, or runs with `choreo-sim run`
    models::RunResult result;  // as `choreo-sim run --fidelity <fidelity>` gives it
    PlanFigures figures;
    std::string fidelity; // "analytical" or "flow" (confirmed)
    // The limit that binds it: the one twice as many devices miss (what stops it growing), else the one half
    // as many miss (what stops it shrinking); "none" when neither does. Its margin, in words.
    std::string binding; // "deadline", "budget", "power" or "none"
    std::string why_binds;
    std::string fewer; // why half as many of its device lost (the fastest of their layouts)
    std::string more;  // why twice as many lost (the cheapest of their layouts)
};

struct PlanOutcome {
    std::vector<PlanOption> options;              // fastest first
    std::int64_t searched = 0;                    // candidates screened
    std::map<std::string, std::int64_t> rejected; // reason -> candidates
    std::string infeasible;         // when no option: which limit cannot be met, and by how much
    std::vector<std::string> notes; // what was assumed (lead times, prices), once each
    double screen_s = 0;            // wall time of the screening
};

// The candidates of `request`, in a fixed order (device, count, layout, precision, recompute); those that
// cannot be laid out (a batch that does not split, more stages than layers) are counted in `rejected`.
std::vector<PlanCandidate> planCandidates(const PlanRequest& request, const models::Catalog& catalog,
                                          std::map<std::string, std::int64_t>& rejected);

// The base scenario with the candidate's training pool, layout, precision and recompute, the request's cost
// mode and site power.
models::Scenario candidateScenario(const PlanRequest& request, const PlanCandidate& candidate);

// Screens one candidate at the analytical level (failures as Daly's expectation); nullopt with `reason`
// ("memory", "invalid") when it does not resolve.
std::optional<PlanFigures> screenCandidate(const PlanRequest& request, const PlanCandidate& candidate,
                                           const models::Catalog& catalog, std::string& reason);

// Runs the whole search. Deterministic: the same request gives the same options.
PlanOutcome plan(const PlanRequest& request, const models::Catalog& catalog);

// {"options": [...], "searched": N, "rejected": {...}, ...}, as `plan --json` prints it.
models::Json planToJson(const PlanOutcome& outcome, const PlanRequest& request);

// An option re-run at another fidelity (a flow confirmation, here or on a cluster): its result, fidelity and
// figures; its purchase and peak power stay.
void confirmOption(const PlanRequest& request, const models::Catalog& catalog, PlanOption& option,
                   const models::RunResult& confirmed);
// Words the option's margin to the limit that binds it (or to the nearest, when none does) from its figures.
void describeMargin(const PlanRequest& request, PlanOption& option);
// Drops the options that miss a limit (after a confirmation), each with a note.
void dropOptionsMissingLimits(const PlanRequest& request, PlanOutcome& outcome);

// Reads what planToJson wrote back into a request (its limits, start, mode and confirmations) and an outcome;
// nullopt with `error` naming the field. The options' results keep only their headline figures.
std::optional<std::pair<PlanRequest, PlanOutcome>> planFromJson(const models::Json& plan, std::string& error);

// "2027-03-01" from a day; a day from "2027-03-01" (nullopt when it is not a date).
std::string formatDate(std::chrono::sys_days day);
std::optional<std::chrono::sys_days> parseDate(const std::string& text);

} // namespace choreo::sim
