#include "sim/plan.h"

#include "models/powerlimit.h"
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "models/sweep.h"
#include "sim/analytical.h"
#include "sim/isolate.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace choreo::sim {

namespace {

using std::chrono::sys_days;
constexpr double kDay = 86400.0;
// The largest scale-up domain taken as a node (an NVL72 rack); bigger ones (TPU pods) keep the base's nodes.
constexpr std::int64_t kLargestNode = 72;
constexpr std::int64_t kMaxPipelineStages = 32;

std::string fmt(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

std::string money(double usd) {
    if (usd >= 1e9)
        return fmt("$%.2f billion", usd / 1e9);
    if (usd >= 1e6)
        return fmt("$%.1f million", usd / 1e6);
    return fmt("$%.0f", usd);
}

// The first day of a catalog device's release ("2024", "2024-10"); nullopt when it gives none.
std::optional<sys_days> releaseDay(const std::string& released) {
    int year = 0;
    unsigned month = 1;
    if (std::sscanf(released.c_str(), "%d-%u", &year, &month) < 1 || year < 1990 || month < 1 || month > 12)
        return std::nullopt;
    return sys_days{std::chrono::year{year} / std::chrono::month{month} / 1};
}

bool trains(const models::Device& device) {
    return device.kind != models::DeviceKind::Cpu && device.scale_up &&
           device.peakFlops(models::Precision::Bf16).has_value();
}

models::CostMode modeOf(const PlanRequest& request) {
    return request.mode.value_or(request.base.costs.mode);
}

// The providers searched for `device`: those of the request that offer it; {""} (the catalog's price) when
// the request names none or buys.
std::vector<std::string> providersOf(const PlanRequest& request, const models::Catalog& catalog,
                                     const models::Device& device) {
    if (request.providers.empty() || modeOf(request) == models::CostMode::Buy)
        return {""};
    std::vector<std::string> out;
    for (const auto& id : request.providers)
        if (const models::Provider* p = catalog.provider(id); p && p->offer(device.id))
            out.push_back(p->id);
    return out;
}

bool priced(const PlanRequest& request, const models::Catalog& catalog, const models::Device& device) {
    if (modeOf(request) == models::CostMode::Buy)
        return device.buy_usd.present();
    return request.providers.empty() ? device.rent_usd_per_hour.present()
                                     : !providersOf(request, catalog, device).empty();
}

// The catalog devices the search covers: those asked for (every one that trains when none is), with a price
// in the request's cost mode.
std::vector<const models::Device*> searchedDevices(const PlanRequest& request, const models::Catalog& catalog,
                                                   std::vector<std::string>& unpriced) {
    std::vector<const models::Device*> out;
    const auto consider = [&](const models::Device* device) {
        if (!device || !trains(*device) || std::find(out.begin(), out.end(), device) != out.end())
            return;
        if (priced(request, catalog, *device))
            out.push_back(device);
        else
            unpriced.push_back(device->id);
    };
    if (request.devices.empty())
        for (const auto& device : catalog.devices())
            consider(&device);
    for (const auto& id : request.devices)
        consider(catalog.find(id));
    return out;
}

// A node of `device`: its scale-up domain up to an NVL72 rack, else the base scenario's node.
std::int64_t nodeSize(const models::Device& device, std::int64_t baseNode) {
    const auto domain = static_cast<std::int64_t>(device.scale_up->domain_size.value);
    return domain <= kLargestNode ? domain : std::max<std::int64_t>(1, baseNode);
}

// The power limits tried on `device`, in watts (nullopt: its rated power), each once: the request's, else the
// base pool's own limit on its own device, else none. A limit the device cannot take (at or below its idle
// power, below its lowest) is left out and counted in `refused`.
std::vector<std::optional<double>> powerLimitsOf(const PlanRequest& request, const models::Device& device,
                                                 std::int64_t& refused) {
    std::vector<std::optional<double>> out;
    const auto add = [&](std::optional<double> watts) {
        models::Diagnostics ignored;
        if (watts && !models::powerLimitEffect(device, *watts, "", ignored)) {
            ++refused;
            return;
        }
        if (std::find(out.begin(), out.end(), watts) == out.end())
            out.push_back(watts);
    };
    for (const auto& limit : request.power_limits)
        add(limit.wattsOn(device));
    if (request.power_limits.empty()) {
        const models::Pool* base = request.base.trainingPool();
        const bool own = base && base->power_limit_W && device.answersTo(base->device);
        add(own ? base->power_limit_W : std::nullopt);
    }
    return out;
}

// The precisions and recompute policies tried: bf16, and fp8 where the device has it.
std::vector<models::Precision> precisionsOf(const models::Device& device) {
    std::vector<models::Precision> out = {models::Precision::Bf16};
    if (device.peakFlops(models::Precision::Fp8))
        out.push_back(models::Precision::Fp8);
    return out;
}

constexpr models::Recompute kRecomputes[] = {models::Recompute::None, models::Recompute::Selective,
                                             models::Recompute::Full};

// What is tried on every layout of one device: its precisions, its power limits (and how many the device
// refused), and the providers renting it. Found once per device.
struct DeviceVariants {
    std::vector<models::Precision> precisions;
    std::vector<std::optional<double>> limits;
    std::int64_t refused_limits = 0;
    std::vector<std::string> providers;
    // Candidates per layout for `limitCount` power limits.
    [[nodiscard]] std::int64_t perLayout(std::int64_t limitCount) const {
        return static_cast<std::int64_t>(precisions.size() * std::size(kRecomputes) * providers.size()) *
               limitCount;
    }
};

DeviceVariants variantsOf(const PlanRequest& request, const models::Catalog& catalog,
                          const models::Device& device) {
    DeviceVariants v;
    v.precisions = precisionsOf(device);
    v.limits = powerLimitsOf(request, device, v.refused_limits);
    v.providers = providersOf(request, catalog, device);
    return v;
}

// Adds the layouts of `count` devices of `device` to `out`: tp a power of two dividing the node, pp a divisor
// of the layers, dp the rest, the global batch split evenly over dp; each with every variant.
void addLayouts(const PlanRequest& request, const models::Device& device, const DeviceVariants& variants,
                std::int64_t node, std::int64_t count, std::vector<PlanCandidate>& out,
                std::map<std::string, std::int64_t>& rejected) {
    const auto& w = request.base.workload;
    const auto limitCount = static_cast<std::int64_t>(variants.limits.size());
    for (std::int64_t tp = 1; tp <= node && tp <= count; tp *= 2) {
        if (node % tp != 0)
            continue;
        for (const std::int64_t pp : models::divisors(w.model.layers)) {
            if (pp > kMaxPipelineStages || count % (tp * pp) != 0)
                continue;
            const std::int64_t dp = count / (tp * pp);
            if (w.micro_batch <= 0 || w.global_batch % (dp * w.micro_batch) != 0) {
                rejected["batch does not split"] += variants.perLayout(limitCount + variants.refused_limits);
                continue;
            }
            if (variants.refused_limits > 0)
                rejected["a power limit the device does not take"] +=
                    variants.perLayout(variants.refused_limits);
            for (const auto precision : variants.precisions)
                for (const auto recompute : kRecomputes)
                    for (const auto& limit : variants.limits)
                        for (const auto& provider : variants.providers)
                            out.push_back(
                                {device.id, count, node, tp, pp, dp, precision, recompute, limit, provider});
        }
    }
}

// How a candidate stands against the request's limits: the fraction of each limit left (negative: missed).
struct Slack {
    PlanLimit limit;
    double fraction = 0;
    std::string text; // "finishes 12 days before the deadline (87 of 99 days)"
};

double deadlineDays(const PlanRequest& request) {
    return request.deadline ? static_cast<double>((*request.deadline - request.start).count()) : 0.0;
}

std::vector<Slack> slacks(const PlanRequest& request, const PlanFigures& f) {
    std::vector<Slack> out;
    if (request.deadline) {
        const double days = deadlineDays(request);
        const double left = days - f.finish_days;
        out.push_back({PlanLimit::Deadline, days > 0.0 ? left / days : -1.0,
                       fmt(left >= 0.0 ? "finishes %.1f days before the deadline"
                                       : "finishes %.1f days past "
                                         "the deadline",
                           std::abs(left)) +
                           fmt(" (%.1f", f.finish_days) + fmt(" of %.0f days)", days)});
    }
    if (request.budget_usd) {
        const double left = *request.budget_usd - f.cost_usd;
        out.push_back(
            {PlanLimit::Budget, left / *request.budget_usd,
             (left >= 0.0 ? money(left) + " under the budget (" : money(-left) + " over the budget (") +
                 money(f.cost_usd) + " of " + money(*request.budget_usd) + ")"});
    }
    if (request.site_power_MW) {
        const double left = *request.site_power_MW - f.peak_MW;
        out.push_back({PlanLimit::Power, left / *request.site_power_MW,
                       fmt(left >= 0.0 ? "%.2f MW under the site's power" : "%.2f MW over the site's power",
                           std::abs(left)) +
                           fmt(" (%.2f", f.peak_MW) + fmt(" of %.2f MW)", *request.site_power_MW)});
    }
    return out;
}

bool meets(const PlanRequest& request, const PlanFigures& f) {
    const auto all = slacks(request, f);
    return std::all_of(all.begin(), all.end(), [](const Slack& s) { return s.fraction >= 0.0; });
}

// The day the devices can be there: the device's release, then its lead time (the planner's, else the
// catalog's; renting: none unless the planner gives one).
double leadDays(const PlanRequest& request, const models::Device& device) {
    double days = 0.0;
    if (const auto released = releaseDay(device.released); released && *released > request.start)
        days = static_cast<double>((*released - request.start).count());
    if (const auto it = request.lead_time_weeks.find(device.id); it != request.lead_time_weeks.end())
        return days + 7.0 * it->second;
    if (modeOf(request) == models::CostMode::Buy && device.lead_time_weeks.present())
        days += 7.0 * device.lead_time_weeks.value;
    return days;
}

// Every pool's devices at their purchase price (0 when renting).
double purchaseOf(const models::ResolvedScenario& rs) {
    if (rs.scenario.costs.mode != models::CostMode::Buy)
        return 0.0;
    double usd = 0.0;
    for (const auto& pool : rs.pools)
        usd += static_cast<double>(pool.pool.count) * pool.buy_usd_per_device;
    return usd;
}

PlanFigures figuresOf(const PlanRequest& request, const models::RunResult& r, const models::Device& device,
                      double purchase) {
    PlanFigures f;
    f.step_s = r.step_time_s;
    f.time_to_train_s = r.time_to_train_s;
    f.purchase_usd = purchase;
    f.cost_usd = modeOf(request) == models::CostMode::Buy ? purchase + r.cost_electricity_usd : r.cost_usd;
    f.energy_MWh = r.energy_kWh / 1e3;
    f.peak_MW = r.site_power ? r.site_power->peak_MW : 0.0;
    f.lead_days = leadDays(request, device);
    f.finish_days = f.lead_days + f.time_to_train_s / kDay;
    return f;
}

// One screened candidate.
struct Screened {
    std::size_t candidate = 0;
    PlanFigures figures;
    bool feasible = false;
};

// Whether `a` is at least as good as `b` on time, cost and energy, and better on one.
bool dominates(const PlanFigures& a, const PlanFigures& b) {
    const bool noWorse =
        a.finish_days <= b.finish_days && a.cost_usd <= b.cost_usd && a.energy_MWh <= b.energy_MWh;
    const bool better =
        a.finish_days < b.finish_days || a.cost_usd < b.cost_usd || a.energy_MWh < b.energy_MWh;
    return noWorse && better;
}

// The feasible candidates no other feasible one dominates, fastest first.
std::vector<Screened> paretoFront(std::vector<Screened> feasible) {
    std::sort(feasible.begin(), feasible.end(), [](const Screened& a, const Screened& b) {
        if (a.figures.finish_days != b.figures.finish_days)
            return a.figures.finish_days < b.figures.finish_days;
        if (a.figures.cost_usd != b.figures.cost_usd)
            return a.figures.cost_usd < b.figures.cost_usd;
        return a.candidate < b.candidate;
    });
    std::vector<Screened> front;
    for (const auto& s : feasible) {
        const bool beaten = std::any_of(front.begin(), front.end(), [&](const Screened& f) {
            return dominates(f.figures, s.figures) ||
                   (f.figures.finish_days == s.figures.finish_days &&
                    f.figures.cost_usd == s.figures.cost_usd && f.figures.energy_MWh == s.figures.energy_MWh);
        });
        if (!beaten)
            front.push_back(s);
    }
    return front;
}

// At most `keep` of the front: the fastest, the cheapest and the most frugal, then evenly through the rest.
std::vector<Screened> thinned(const std::vector<Screened>& front, std::size_t keep) {
    if (front.size() <= keep || keep == 0)
        return front;
    const auto best = [&](auto key) {
        return static_cast<std::size_t>(
            std::min_element(front.begin(), front.end(),
                             [&](const Screened& a, const Screened& b) { return key(a) < key(b); }) -
            front.begin());
    };
    std::vector<std::size_t> picks = {0, best([](const Screened& s) { return s.figures.cost_usd; }),
                                      best([](const Screened& s) { return s.figures.energy_MWh; })};
    const auto add = [&](std::size_t i) {
        if (picks.size() < keep && std::find(picks.begin(), picks.end(), i) == picks.end())
            picks.push_back(i);
    };
    for (std::size_t i = 0; i < keep; ++i)
        add(i * (front.size() - 1) / std::max<std::size_t>(1, keep - 1));
    for (std::size_t i = 0; i < front.size(); ++i)
        add(i);
    picks.resize(std::min(picks.size(), keep));
    std::sort(picks.begin(), picks.end());
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    std::vector<Screened> out;
    out.reserve(picks.size());
    for (const std::size_t i : picks)
        out.push_back(front[i]);
    return out;
}

} // namespace

std::string toString(PlanLimit limit) {
    switch (limit) {
    case PlanLimit::Deadline:
        return "deadline";
    case PlanLimit::Budget:
        return "budget";
    case PlanLimit::Power:
        return "power";
    }
    return "?";
}

std::string PlanCandidate::layout() const {
    return "tp" + std::to_string(tp) + " pp" + std::to_string(pp) + " dp" + std::to_string(dp) + ", " +
           models::toString(precision) + ", recompute " + models::toString(recompute) +
           (power_limit_W ? ", limited to " + models::formatNumber(*power_limit_W) + " W" : "") +
           (provider.empty() ? "" : ", from " + provider);
}

std::optional<double> PlanPowerLimit::wattsOn(const models::Device& device) const {
    const double busy = device.tdp_W.value;
    const double watts = fraction ? value * busy : value;
    if (watts >= busy)
        return std::nullopt;
    return watts;
}

std::string PlanPowerLimit::text() const {
    return fraction ? models::formatNumber(100.0 * value) + " %" : models::formatNumber(value) + " W";
}

std::string formatDate(sys_days day) {
    const std::chrono::year_month_day ymd{day};
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
    return buffer;
}

std::optional<sys_days> parseDate(const std::string& text) {
    int year = 0;
    unsigned month = 0, day = 0;
    char tail = 0;
    if (text.size() != 10 || std::sscanf(text.c_str(), "%4d-%2u-%2u%c", &year, &month, &day, &tail) != 3)
        return std::nullopt;
    const std::chrono::year_month_day ymd{std::chrono::year{year} / std::chrono::month{month} /
                                          std::chrono::day{day}};
    if (!ymd.ok())
        return std::nullopt;
    return sys_days{ymd};
}

std::vector<PlanCandidate> planCandidates(const PlanRequest& request, const models::Catalog& catalog,
                                          std::map<std::string, std::int64_t>& rejected) {
    std::vector<PlanCandidate> out;
    std::vector<std::string> unpriced;
    const models::Pool* basePool = request.base.trainingPool();
    const std::int64_t baseNode = basePool ? basePool->devices_per_node : 8;
    for (const models::Device* device : searchedDevices(request, catalog, unpriced)) {
        const std::int64_t node = nodeSize(*device, baseNode);
        const DeviceVariants variants = variantsOf(request, catalog, *device);
        for (std::int64_t count = node; count <= request.max_devices; count *= 2)
            addLayouts(request, *device, variants, node, count, out, rejected);
    }
    return out;
}

models::Scenario candidateScenario(const PlanRequest& request, const PlanCandidate& c) {
    models::Scenario s = request.base;
    models::Pool* pool = s.trainingPool();
    const bool samePrices = pool->device == c.device && c.provider.empty();
    pool->device = c.device;
    pool->count = c.count;
    pool->devices_per_node = c.per_node;
    if (!samePrices) { // the base's prices were its own device's; a provider's offer replaces them
        pool->rent_usd_per_device_hour.reset();
        pool->buy_usd_per_device.reset();
        s.costs.rent_usd_per_device_hour.reset();
        s.costs.buy_usd_per_device.reset();
    }
    auto& par = s.workload.parallel;
    par.tp = c.tp;
    par.pp = c.pp;
    par.dp = c.dp;
    par.cp = 1;
    par.vp = 1;
    s.workload.precision = c.precision;
    s.workload.recompute = c.recompute;
    pool->power_limit_W = c.power_limit_W;
    s.costs.mode = modeOf(request);
    if (s.costs.mode == models::CostMode::Rent)
        s.costs.provider = c.provider;
    s.costs.site_power_MW = request.site_power_MW;
    s.calibration.reset(); // a calibration refines one device; the search compares the catalog's
    s.name = request.base.name + ": " + std::to_string(c.count) + " x " + c.device + " (" + c.layout() + ")";
    return s;
}

std::optional<PlanFigures> screenCandidate(const PlanRequest& request, const PlanCandidate& candidate,
                                           const models::Catalog& catalog, std::string& reason) {
    models::Diagnostics errors;
    auto rs = models::resolveScenario(candidateScenario(request, candidate), catalog, errors);
    if (!rs) {
        reason = !errors.empty() && errors.front().path == "memory" ? "does not fit in memory"
                 : errors.empty()                                   ? "invalid"
                                                                    : "invalid " + errors.front().path;
        return std::nullopt;
    }
    // Daly's expectation for the failures (no Monte Carlo), and a cap that makes the result give the peak.
    rs->scenario.workload.reliability.trials = 0;
    if (!rs->scenario.costs.site_power_MW)
        rs->scenario.costs.site_power_MW = std::numeric_limits<double>::max();
    const auto result = models::finishResult(*rs, estimateStep(*rs, StepLayout::StepTimeOnly));
    if (!models::unphysicalQuantity(result).empty() || !std::isfinite(result.time_to_train_s)) {
        reason = "never finishes";
        return std::nullopt;
    }
    return figuresOf(request, result, rs->device(), purchaseOf(*rs));
}

namespace {

// The search's record: every candidate, what each screened one achieves, why the others were left.
struct Search {
    std::vector<PlanCandidate> candidates;
    std::vector<Screened> screened;
    // (device, count) -> why its layouts failed to resolve, by reason.
    std::map<std::pair<std::string, std::int64_t>, std::map<std::string, std::int64_t>> failures;
};

Search screenAll(const PlanRequest& request, const models::Catalog& catalog, PlanOutcome& out) {
    Search search;
    search.candidates = planCandidates(request, catalog, out.rejected);
    search.screened.reserve(search.candidates.size());
    for (std::size_t i = 0; i < search.candidates.size(); ++i) {
        const auto& c = search.candidates[i];
        std::string reason;
        const auto figures = screenCandidate(request, c, catalog, reason);
        if (!figures) {
            ++out.rejected[reason];
            ++search.failures[{c.device, c.count}][reason];
            continue;
        }
        search.screened.push_back({i, *figures, meets(request, *figures)});
        if (!search.screened.back().feasible)
            for (const auto& s : slacks(request, *figures))
                if (s.fraction < 0.0) {
                    ++out.rejected["misses the " + toString(s.limit)];
                    break;
                }
    }
    out.searched = static_cast<std::int64_t>(search.candidates.size()) + out.rejected["batch does not split"];
    return search;
}

// The most that can be achieved on `limit`'s measure among `pool`: the smallest finish, cost or peak.
double measure(PlanLimit limit, const PlanFigures& f) {
    switch (limit) {
    case PlanLimit::Deadline:
        return f.finish_days;
    case PlanLimit::Budget:
        return f.cost_usd;
    case PlanLimit::Power:
        return f.peak_MW;
    }
    return 0.0;
}

// Why no candidate meets every limit: a limit none meets even alone, by how much the best misses it; else the
// limit the candidates meeting all the others come closest to.
std::string whyInfeasible(const PlanRequest& request, const Search& search, const PlanOutcome& out) {
    if (search.screened.empty()) {
        std::string reasons;
        for (const auto& [reason, count] : out.rejected)
            reasons += (reasons.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
        return "no candidate can run the workload (" +
               (reasons.empty() ? std::string("none searched") : reasons) + ")";
    }
    std::string best;
    double closest = -std::numeric_limits<double>::infinity();
    for (const auto limit : {PlanLimit::Deadline, PlanLimit::Budget, PlanLimit::Power}) {
        const Screened* alone = nullptr;      // the best on this limit, whatever the others
        const Screened* withOthers = nullptr; // the best on it among those meeting the other limits
        for (const auto& s : search.screened) {
            if (!alone || measure(limit, s.figures) < measure(limit, alone->figures))
                alone = &s;
            const auto all = slacks(request, s.figures);
            const bool othersMet = std::all_of(all.begin(), all.end(), [&](const Slack& k) {
                return k.limit == limit || k.fraction >= 0.0;
            });
            if (othersMet && (!withOthers || measure(limit, s.figures) < measure(limit, withOthers->figures)))
                withOthers = &s;
        }
        const auto slackOf = [&](const Screened& s) -> std::optional<Slack> {
            for (const auto& k : slacks(request, s.figures))
                if (k.limit == limit)
                    return k;
            return std::nullopt;
        };
        const auto a = slackOf(*alone);
        if (!a)
            continue;
        const auto& c = search.candidates[alone->candidate];
        if (a->fraction < 0.0)
            return "the " + toString(limit) + " cannot be met: the best candidate (" +
                   std::to_string(c.count) + " x " + c.device + ", " + c.layout() + ") " + a->text;
        if (!withOthers)
            continue;
        const auto w = slackOf(*withOthers);
        if (w->fraction > closest) {
            closest = w->fraction;
            const auto& wc = search.candidates[withOthers->candidate];
            best = "the limits cannot all be met together: meeting the others, the best on the " +
                   toString(limit) + " (" + std::to_string(wc.count) + " x " + wc.device + ", " +
                   wc.layout() + ") " + w->text;
        }
    }
    return best.empty() ? "no candidate meets every limit at once" : best;
}

// The option as `choreo-sim run --fidelity analytical` gives it.
std::optional<PlanOption> analyticalOption(const PlanRequest& request, const models::Catalog& catalog,
                                           const PlanCandidate& candidate, const PlanFigures& screened) {
    PlanOption option;
    option.candidate = candidate;
    option.scenario = candidateScenario(request, candidate);
    models::Diagnostics errors;
    const auto rs = models::resolveScenario(option.scenario, catalog, errors);
    if (!rs)
        return std::nullopt;
    option.result = runScenario(*rs, {Fidelity::Analytical, {}});
    option.fidelity = "analytical";
    option.figures = figuresOf(request, option.result, rs->device(), purchaseOf(*rs));
    option.figures.peak_MW = screened.peak_MW; // rated power, whatever the run's length
    return option;
}

// Re-runs the `count` fastest options at flow fidelity, each in its own process; an option whose
// simulation fails keeps its analytical figures and says so.
void confirmAtFlow(const PlanRequest& request, const models::Catalog& catalog,
                   std::vector<PlanOption>& options, std::vector<std::string>& notes) {
    const std::size_t count =
        std::min(options.size(), static_cast<std::size_t>(std::max(0, request.confirm)));
    std::vector<std::function<std::string()>> jobs;
    for (std::size_t i = 0; i < count; ++i)
        jobs.emplace_back([&catalog, scenario = options[i].scenario] {
            models::Diagnostics errors;
            const auto rs = models::resolveScenario(scenario, catalog, errors);
            if (!rs)
                throw SimulationError("the option no longer resolves");
            return models::resultToJson(runScenario(*rs, {Fidelity::Flow, {}})).dump();
        });
    const auto outcomes = runIsolated(jobs, std::max(1, request.jobs));
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        auto& option = options[i];
        models::Diagnostics errors;
        const auto result = outcomes[i].ok
                                ? models::resultFromJson(models::Json::parse(outcomes[i].output), errors)
                                : std::nullopt;
        if (!result) {
            notes.push_back(std::to_string(option.candidate.count) + " x " + option.candidate.device +
                            ": the flow confirmation failed (" + outcomes[i].output +
                            "); analytical figures kept");
            continue;
        }
        confirmOption(request, catalog, option, *result);
    }
}

// The same device with `count` devices: why its best layout (the fastest with fewer devices, the cheapest
// with more) is not the option, and the limit it misses, if one.
struct Neighbour {
    std::string text;
    std::optional<PlanLimit> missed;
};

Neighbour neighbour(const PlanRequest& request, const Search& search, const std::vector<PlanOption>& options,
                    const PlanCandidate& c, std::int64_t count) {
    const bool fewer = count < c.count;
    const std::string label = std::to_string(count) + " x " + c.device;
    if (count < c.per_node || count > request.max_devices)
        return {fewer ? "none: the smallest pool searched"
                      : "none: the largest pool searched (--max-devices)",
                {}};
    const auto better = [&](const PlanFigures& a, const PlanFigures& b) {
        return fewer ? a.finish_days < b.finish_days : a.cost_usd < b.cost_usd;
    };
    const Screened* best = nullptr;
    for (const auto& s : search.screened) {
        const auto& sc = search.candidates[s.candidate];
        if (sc.device == c.device && sc.count == count && sc.power_limit_W == c.power_limit_W &&
            sc.provider == c.provider && (!best || better(s.figures, best->figures)))
            best = &s;
    }
    if (!best) {
        const auto it = search.failures.find({c.device, count});
        if (it == search.failures.end() || it->second.empty())
            return {label + ": no layout (the global batch does not split over so many)", {}};
        const auto most = std::max_element(it->second.begin(), it->second.end(),
                                           [](const auto& x, const auto& y) { return x.second < y.second; });
        return {label + ": no layout works (" + most->first + ")", {}};
    }
    const auto& layout = search.candidates[best->candidate];
    const std::string named = label + " (" + layout.layout() + ")";
    for (std::size_t i = 0; i < options.size(); ++i)
        if (options[i].candidate == layout)
            return {named + ": option " + std::to_string(i + 1), {}};
    for (const auto& s : slacks(request, best->figures))
        if (s.fraction < 0.0)
            return {named + " " + s.text, s.limit};
    const bool beaten = std::any_of(options.begin(), options.end(),
                                    [&](const PlanOption& o) { return dominates(o.figures, best->figures); });
    return {named + fmt(" meets every limit in %.1f days", best->figures.finish_days) + " for " +
                money(best->figures.cost_usd) +
                (beaten ? std::string(", but an option is faster, cheaper and more frugal")
                        : std::string(": a trade the list leaves out to stay short")),
            {}};
}

// What binds an option: the limit that twice as many devices miss (what stops it growing), else the one that
// half as many miss; none when both neighbours meet every limit (the option is one trade on the front).
void explainBinding(const PlanRequest& request, const Search& search, const std::vector<PlanOption>& options,
                    PlanOption& option) {
    const auto& c = option.candidate;
    const Neighbour fewer = neighbour(request, search, options, c, c.count / 2);
    const Neighbour more = neighbour(request, search, options, c, c.count * 2);
    option.fewer = fewer.text;
    option.more = more.text;
    const auto binding = more.missed ? more.missed : fewer.missed;
    option.binding = binding ? toString(*binding) : std::string("none");
    describeMargin(request, option);
}

// Options whose step is mostly pipeline bubble: the scenario's global batch leaves too few micro-batches a
// replica at their scale, which a larger batch (a training choice the search keeps) would change.
void noteBubbles(const PlanRequest& request, PlanOutcome& out) {
    std::string bubbly;
    for (std::size_t i = 0; i < out.options.size(); ++i) {
        const auto& r = out.options[i].result;
        if (r.step_time_s > 0.0 && r.breakdown.pipeline_bubble_s > 0.5 * r.step_time_s)
            bubbly += (bubbly.empty() ? "" : ", ") + std::to_string(i + 1) +
                      fmt(" (%.0f %%)", 100.0 * r.breakdown.pipeline_bubble_s / r.step_time_s);
    }
    if (!bubbly.empty())
        out.notes.push_back(
            "options " + bubbly + " spend most of a step in pipeline bubbles: a global batch of " +
            std::to_string(request.base.workload.global_batch) +
            " sequences leaves few micro-batches a replica at that scale (the search keeps the "
            "batch; --set workload.global_batch=N tries another)");
}

// What was assumed, once each: lead times, devices left out for want of a price, the calibration dropped.
// The offer behind each option's price, once per provider and device.
void noteOffers(const models::Catalog& catalog, PlanOutcome& out) {
    std::vector<std::pair<std::string, std::string>> seen;
    for (const auto& option : out.options) {
        const auto& c = option.candidate;
        if (c.provider.empty() ||
            std::find(seen.begin(), seen.end(), std::pair{c.provider, c.device}) != seen.end())
            continue;
        seen.emplace_back(c.provider, c.device);
        const models::Provider* provider = catalog.provider(c.provider);
        const models::RentOffer* offer = provider ? provider->offer(c.device) : nullptr;
        if (offer)
            out.notes.push_back(c.device + " from " + provider->name + ": " + offer->instance +
                                (offer->devices_per_instance > 1
                                     ? " (" + std::to_string(offer->devices_per_instance) + " devices)"
                                     : std::string()) +
                                " at " + fmt("$%.2f", offer->usd_per_instance_hour.value) +
                                " an hour on demand" + (offer->region.empty() ? "" : ", " + offer->region) +
                                " (" + offer->usd_per_instance_hour.source + ")");
    }
}

// The power limits tried, and what each option's limit does to its device's clock.
void notePowerLimits(const PlanRequest& request, const models::Catalog& catalog, PlanOutcome& out) {
    if (!request.power_limits.empty()) {
        std::string tried;
        for (const auto& limit : request.power_limits)
            tried += (tried.empty() ? "" : ", ") + limit.text();
        out.notes.push_back("power limits tried on every device: " + tried +
                            " (a limit at or above a device's busy power is its rated power)");
    }
    std::vector<std::pair<std::string, double>> seen;
    for (const auto& option : out.options) {
        const auto& c = option.candidate;
        if (!c.power_limit_W ||
            std::find(seen.begin(), seen.end(), std::pair{c.device, *c.power_limit_W}) != seen.end())
            continue;
        seen.emplace_back(c.device, *c.power_limit_W);
        models::Diagnostics ignored;
        const auto effect = models::powerLimitEffect(*catalog.find(c.device), *c.power_limit_W, "", ignored);
        if (effect)
            out.notes.push_back(
                c.device + " limited to " + models::formatNumber(*c.power_limit_W) + " W: compute at " +
                fmt("%.0f %%", 100.0 * effect->clock_fraction) + " of its clock, memory-bound work at " +
                fmt("%.0f %%", 100.0 * effect->memory_fraction) + " (dynamic power ~ clock^" +
                models::formatNumber(effect->exponent.value) + ", " + effect->exponent.source + ")");
    }
}

void addNotes(const PlanRequest& request, const models::Catalog& catalog, PlanOutcome& out) {
    std::vector<std::string> unpriced;
    searchedDevices(request, catalog, unpriced);
    if (!unpriced.empty()) {
        std::string ids;
        for (const auto& id : unpriced)
            ids += (ids.empty() ? "" : ", ") + id;
        const bool byProvider = !request.providers.empty() && modeOf(request) == models::CostMode::Rent;
        out.notes.push_back(byProvider ? "left out, offered by none of the providers searched: " + ids
                                       : "left out for want of a " + models::toString(modeOf(request)) +
                                             " price in the catalog: " + ids);
    }
    noteOffers(catalog, out);
    std::vector<std::string> seen;
    for (const auto& option : out.options) {
        const auto& id = option.candidate.device;
        if (std::find(seen.begin(), seen.end(), id) != seen.end())
            continue;
        seen.push_back(id);
        const models::Device& device = *catalog.find(id);
        if (request.lead_time_weeks.count(id))
            out.notes.push_back(id + ": lead time " + models::formatNumber(request.lead_time_weeks.at(id)) +
                                " weeks, as given");
        else if (modeOf(request) == models::CostMode::Rent)
            out.notes.push_back(id + ": rented, taken as available at once (--lead-time " + id.c_str() +
                                "=WEEKS sets a wait)");
        else if (device.lead_time_weeks.present())
            out.notes.push_back(id + ": lead time " + models::formatNumber(device.lead_time_weeks.value) +
                                " weeks, from the catalog (" + device.lead_time_weeks.source + ")");
        else
            out.notes.push_back(id + ": no published lead time; 0 weeks assumed (--lead-time " + id.c_str() +
                                "=WEEKS)");
    }
    if (request.base.calibration)
        out.notes.emplace_back("the scenario's calibration is not applied: the search compares the catalog's "
                               "figures");
    notePowerLimits(request, catalog, out);
}

} // namespace

void confirmOption(const PlanRequest& request, const models::Catalog& catalog, PlanOption& option,
                   const models::RunResult& flow) {
    const double peak = option.figures.peak_MW; // rated power: the same at every fidelity
    option.result = flow;
    option.fidelity = flow.fidelity;
    option.figures = figuresOf(request, option.result, *catalog.find(option.candidate.device),
                               option.figures.purchase_usd);
    option.figures.peak_MW = peak;
}

void describeMargin(const PlanRequest& request, PlanOption& option) {
    const auto all = slacks(request, option.figures);
    for (const auto& s : all)
        if (toString(s.limit) == option.binding) {
            option.why_binds = s.text;
            return;
        }
    if (all.empty()) {
        option.why_binds = "no deadline, budget or power cap was given";
        return;
    }
    const auto tightest = std::min_element(
        all.begin(), all.end(), [](const Slack& x, const Slack& y) { return x.fraction < y.fraction; });
    option.why_binds = "no limit stops it; the nearest: " + tightest->text;
}

void dropOptionsMissingLimits(const PlanRequest& request, PlanOutcome& outcome) {
    std::erase_if(outcome.options, [&](const PlanOption& o) {
        if (meets(request, o.figures))
            return false;
        outcome.notes.push_back(std::to_string(o.candidate.count) + " x " + o.candidate.device +
                                " left out: at " + o.fidelity + " fidelity it misses a limit");
        return true;
    });
}

PlanOutcome plan(const PlanRequest& request, const models::Catalog& catalog) {
    PlanOutcome out;
    const auto began = std::chrono::steady_clock::now();
    const Search search = screenAll(request, catalog, out);
    out.screen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::vector<Screened> feasible;
    std::copy_if(search.screened.begin(), search.screened.end(), std::back_inserter(feasible),
                 [](const Screened& s) { return s.feasible; });
    if (feasible.empty()) {
        out.infeasible = whyInfeasible(request, search, out);
        return out;
    }
    const auto front = paretoFront(feasible);
    if (feasible.size() > front.size())
        out.rejected["dominated"] = static_cast<std::int64_t>(feasible.size() - front.size());
    for (const auto& s : thinned(front, request.max_options)) {
        auto option = analyticalOption(request, catalog, search.candidates[s.candidate], s.figures);
        if (option && meets(request, option->figures))
            out.options.push_back(std::move(*option));
        else if (option)
            out.notes.push_back(std::to_string(option->candidate.count) + " x " + option->candidate.device +
                                " (" + option->candidate.layout() +
                                ") left out: its Monte Carlo median misses a limit Daly's expectation met");
    }
    confirmAtFlow(request, catalog, out.options, out.notes);
    dropOptionsMissingLimits(request, out);
    if (out.options.empty()) {
        out.infeasible = whyInfeasible(request, search, out);
        return out;
    }
    for (auto& option : out.options) {
        explainBinding(request, search, out.options, option);
    }
    addNotes(request, catalog, out);
    noteBubbles(request, out);
    return out;
}

models::Json planToJson(const PlanOutcome& outcome, const PlanRequest& request) {
    models::Json options = models::Json::array();
    for (const auto& o : outcome.options) {
        const auto& f = o.figures;
        options.push_back(models::Json{
            {"scenario", models::Json::parse(models::serializeScenario(o.scenario))},
            {"device", o.candidate.device},
            {"count", o.candidate.count},
            {"layout", o.candidate.layout()},
            {"power_limit_W",
             o.candidate.power_limit_W ? models::Json(*o.candidate.power_limit_W) : models::Json()},
            {"provider", o.candidate.provider},
            {"fidelity", o.fidelity},
            {"step_time_s", f.step_s},
            {"time_to_train_s", f.time_to_train_s},
            {"cost_usd", f.cost_usd},
            {"purchase_usd", f.purchase_usd},
            {"run_cost_usd", o.result.cost_usd},
            {"energy_MWh", f.energy_MWh},
            {"peak_MW", f.peak_MW},
            {"lead_days", f.lead_days},
            {"start",
             formatDate(request.start + std::chrono::days{static_cast<int>(std::ceil(f.lead_days))})},
            {"finish",
             formatDate(request.start + std::chrono::days{static_cast<int>(std::ceil(f.finish_days))})},
            {"binding_constraint", o.binding},
            {"why", o.why_binds},
            {"fewer_devices", o.fewer},
            {"more_devices", o.more}});
    }
    models::Json limits = models::Json::object();
    if (request.deadline)
        limits["deadline"] = formatDate(*request.deadline);
    if (request.budget_usd)
        limits["budget_usd"] = *request.budget_usd;
    if (request.site_power_MW)
        limits["site_power_MW"] = *request.site_power_MW;
    models::Json j{{"options", options},
                   {"searched", outcome.searched},
                   {"rejected", outcome.rejected},
                   {"start", formatDate(request.start)},
                   {"limits", limits},
                   {"mode", models::toString(modeOf(request))},
                   {"confirm", request.confirm},
                   {"notes", outcome.notes}};
    if (!outcome.infeasible.empty())
        j["infeasible"] = outcome.infeasible;
    return j;
}

namespace {

// Reads what planToJson wrote; each problem names its path.
class PlanReader {
public:
    std::string error;

    double number(const models::Json& j, const std::string& path, const char* key) {
        if (!j.contains(key) || !j[key].is_number()) {
            fail(path + key, "expected a number");
            return 0.0;
        }
        return j[key].get<double>();
    }
    std::string text(const models::Json& j, const std::string& path, const char* key) {
        if (!j.contains(key) || !j[key].is_string()) {
            fail(path + key, "expected a string");
            return {};
        }
        return j[key].get<std::string>();
    }
    std::optional<sys_days> date(const models::Json& j, const std::string& path, const char* key) {
        const auto day = parseDate(text(j, path, key));
        if (!day)
            fail(path + key, "expected a date (YYYY-MM-DD)");
        return day;
    }
    void fail(const std::string& path, const std::string& problem) {
        if (error.empty())
            error = path + ": " + problem;
    }
};

PlanRequest requestFromJson(const models::Json& j, PlanReader& read) {
    PlanRequest r;
    r.start = read.date(j, "", "start").value_or(sys_days{});
    r.mode = read.text(j, "", "mode") == "buy" ? models::CostMode::Buy : models::CostMode::Rent;
    r.confirm = static_cast<int>(read.number(j, "", "confirm"));
    const models::Json limits = j.value("limits", models::Json::object());
    if (limits.contains("deadline"))
        r.deadline = read.date(limits, "limits.", "deadline");
    if (limits.contains("budget_usd"))
        r.budget_usd = read.number(limits, "limits.", "budget_usd");
    if (limits.contains("site_power_MW"))
        r.site_power_MW = read.number(limits, "limits.", "site_power_MW");
    return r;
}

std::optional<PlanOption> optionFromJson(const models::Json& o, const std::string& path, PlanReader& read) {
    PlanOption option;
    models::Diagnostics errors;
    const auto scenario =
        o.contains("scenario") ? models::readScenarioDocument(o["scenario"], errors) : std::nullopt;
    if (!scenario || !scenario->trainingPool()) {
        read.fail(path + "scenario", errors.empty() ? "missing" : models::joinDiagnostics(errors));
        return std::nullopt;
    }
    option.scenario = *scenario;
    const auto& pool = *scenario->trainingPool();
    const auto& par = scenario->workload.parallel;
    option.candidate = {pool.device,
                        pool.count,
                        pool.devices_per_node,
                        par.tp,
                        par.pp,
                        par.dp,
                        scenario->workload.precision,
                        scenario->workload.recompute,
                        pool.power_limit_W,
                        scenario->costs.mode == models::CostMode::Rent ? scenario->costs.provider : ""};
    auto& f = option.figures;
    f.step_s = read.number(o, path, "step_time_s");
    f.time_to_train_s = read.number(o, path, "time_to_train_s");
    f.cost_usd = read.number(o, path, "cost_usd");
    f.purchase_usd = read.number(o, path, "purchase_usd");
    f.energy_MWh = read.number(o, path, "energy_MWh");
    f.peak_MW = read.number(o, path, "peak_MW");
    f.lead_days = read.number(o, path, "lead_days");
    f.finish_days = f.lead_days + f.time_to_train_s / kDay;
    option.fidelity = read.text(o, path, "fidelity");
    option.result.fidelity = option.fidelity;
    option.result.step_time_s = f.step_s;
    option.result.time_to_train_s = f.time_to_train_s;
    option.result.cost_usd = read.number(o, path, "run_cost_usd");
    option.binding = read.text(o, path, "binding_constraint");
    option.why_binds = read.text(o, path, "why");
    option.fewer = read.text(o, path, "fewer_devices");
    option.more = read.text(o, path, "more_devices");
    return option;
}

} // namespace

std::optional<std::pair<PlanRequest, PlanOutcome>> planFromJson(const models::Json& j, std::string& error) {
    PlanReader read;
    if (!j.is_object() || !j.contains("options") || !j["options"].is_array()) {
        error = "options: expected an array (is this what plan --json wrote?)";
        return std::nullopt;
    }
    PlanRequest request = requestFromJson(j, read);
    PlanOutcome outcome;
    for (std::size_t i = 0; i < j["options"].size(); ++i)
        if (auto option = optionFromJson(j["options"][i], "options[" + std::to_string(i) + "].", read))
            outcome.options.push_back(std::move(*option));
    outcome.searched = static_cast<std::int64_t>(read.number(j, "", "searched"));
    if (j.contains("rejected") && j["rejected"].is_object())
        for (const auto& [reason, count] : j["rejected"].items())
            outcome.rejected[reason] = count.is_number_integer() ? count.get<std::int64_t>() : 0;
    if (j.contains("notes") && j["notes"].is_array())
        for (const auto& note : j["notes"])
            if (note.is_string())
                outcome.notes.push_back(note.get<std::string>());
    if (j.contains("infeasible") && j["infeasible"].is_string())
        outcome.infeasible = j["infeasible"].get<std::string>();
    if (!read.error.empty()) {
        error = read.error;
        return std::nullopt;
    }
    return std::make_pair(std::move(request), std::move(outcome));
}

} // namespace choreo::sim
