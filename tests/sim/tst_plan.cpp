// Goal seeking (sim/plan.h): the candidates are real layouts, every option meets its limits and none
// dominates another, an option re-run as `run` runs it gives the same figures, an infeasible request says
// which limit and by how much, lead times move the finish, and the same request gives the same plan.
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "sim/plan.h"
#include "sim/simulator.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace choreo;
using std::chrono::days;
using std::chrono::sys_days;

namespace {

const models::Catalog& catalog() {
    static const models::Catalog loaded = [] {
        models::Diagnostics errors;
        auto c = models::Catalog::load(std::filesystem::path(CHOREO_TEST_ASSETS) / "catalog", errors);
        if (!c)
            throw std::runtime_error(models::joinDiagnostics(errors));
        return std::move(*c);
    }();
    return loaded;
}

// Llama 3 70B on 1T tokens (the default scenario's model, a shorter run), H100 and H200 up to 1,024 of them.
sim::PlanRequest request() {
    models::Diagnostics errors;
    auto base = models::loadScenarioFile(
        std::filesystem::path(CHOREO_TEST_ASSETS) / "scenarios" / "default.json", errors);
    if (!base)
        throw std::runtime_error(models::joinDiagnostics(errors));
    base->workload.tokens_to_train = 1e12;
    sim::PlanRequest r;
    r.base = *base;
    r.devices = {"h100-sxm", "h200-sxm"};
    r.start = *sim::parseDate("2027-01-04");
    r.max_devices = 1024;
    r.confirm = 0;
    return r;
}

bool meetsLimits(const sim::PlanRequest& r, const sim::PlanFigures& f) {
    const double deadline = r.deadline ? static_cast<double>((*r.deadline - r.start).count()) : 1e300;
    return f.finish_days <= deadline && f.cost_usd <= r.budget_usd.value_or(1e300) &&
           f.peak_MW <= r.site_power_MW.value_or(1e300);
}

} // namespace

class TestPlan : public QObject {
    Q_OBJECT

private slots:
    void datesReadAndWrite() {
        QCOMPARE(sim::formatDate(*sim::parseDate("2027-03-01")), std::string("2027-03-01"));
        QVERIFY(!sim::parseDate("2027-02-30"));
        QVERIFY(!sim::parseDate("2027-3-1"));
        QVERIFY(!sim::parseDate("2027-03-01x"));
        QCOMPARE((*sim::parseDate("2028-03-01") - *sim::parseDate("2028-02-01")).count(), 29);
    }

    void candidatesAreWholeLayouts() {
        const auto r = request();
        std::map<std::string, std::int64_t> rejected;
        const auto candidates = sim::planCandidates(r, catalog(), rejected);
        QVERIFY(candidates.size() > 100);
        QVERIFY(rejected["batch does not split"] > 0); // dp above the global batch of 128
        for (const auto& c : candidates) {
            QCOMPARE(c.tp * c.pp * c.dp, c.count);
            QCOMPARE(c.count % c.per_node, std::int64_t{0});
            QCOMPARE(r.base.workload.global_batch % (c.dp * r.base.workload.micro_batch), std::int64_t{0});
            QCOMPARE(r.base.workload.model.layers % c.pp, std::int64_t{0});
            QVERIFY(c.count <= r.max_devices);
        }
    }

    // Every option meets the deadline, budget and power it was given; none is dominated by another.
    void everyOptionMeetsItsLimits() {
        auto r = request();
        r.deadline = r.start + days{120};
        r.budget_usd = 20e6;
        r.site_power_MW = 1.0;
        const auto outcome = sim::plan(r, catalog());
        QVERIFY2(!outcome.options.empty(), outcome.infeasible.c_str());
        QVERIFY(outcome.rejected.count("does not fit in memory")); // tp1 pp1 of a 70B model
        for (const auto& o : outcome.options) {
            QVERIFY2(meetsLimits(r, o.figures), o.candidate.layout().c_str());
            QVERIFY(o.binding == "deadline" || o.binding == "budget" || o.binding == "power" ||
                    o.binding == "none");
            QVERIFY(!o.why_binds.empty());
            QVERIFY(!o.fewer.empty() && !o.more.empty());
            // A limit binds when a neighbour (half or twice the devices) misses it.
            const std::map<std::string, std::string> missed = {{"deadline", "past the deadline"},
                                                               {"budget", "over the budget"},
                                                               {"power", "over the site's power"}};
            if (o.binding != "none")
                QVERIFY2((o.fewer + o.more).find(missed.at(o.binding)) != std::string::npos, o.more.c_str());
            QVERIFY(o.result.whole_run);
            QVERIFY(o.result.whole_run->goodput() <= 1.0);
            QVERIFY(o.result.time_to_train_s >= o.result.whole_run->ideal_s);
            for (const auto& other : outcome.options) {
                const auto& a = other.figures;
                const auto& b = o.figures;
                const bool dominated =
                    a.finish_days <= b.finish_days && a.cost_usd <= b.cost_usd &&
                    a.energy_MWh <= b.energy_MWh &&
                    (a.finish_days < b.finish_days || a.cost_usd < b.cost_usd || a.energy_MWh < b.energy_MWh);
                QVERIFY(!dominated);
            }
        }
    }

    // An option, run again as `choreo-sim run --fidelity analytical` runs its scenario, gives the same step
    // and time to train.
    void optionRunsAgainTheSame() {
        const auto r = request();
        const auto outcome = sim::plan(r, catalog());
        QVERIFY(!outcome.options.empty());
        for (const auto& o : outcome.options) {
            const auto text = models::serializeScenario(o.scenario);
            models::Diagnostics errors;
            const auto reread = models::parseScenario(text, errors);
            QVERIFY(reread);
            const auto rs = models::resolveScenario(*reread, catalog(), errors);
            QVERIFY2(rs, models::joinDiagnostics(errors).c_str());
            const auto again = sim::runScenario(*rs, {sim::Fidelity::Analytical, {}});
            QCOMPARE(again.step_time_s, o.result.step_time_s);
            QCOMPARE(again.time_to_train_s, o.result.time_to_train_s);
            QCOMPARE(again.cost_usd, o.result.cost_usd);
        }
    }

    void impossibleDeadlineSaysByHowMuch() {
        auto r = request();
        r.deadline = r.start + days{1};
        const auto outcome = sim::plan(r, catalog());
        QVERIFY(outcome.options.empty());
        QVERIFY2(outcome.infeasible.find("the deadline cannot be met") != std::string::npos,
                 outcome.infeasible.c_str());
        QVERIFY2(outcome.infeasible.find("days past the deadline") != std::string::npos,
                 outcome.infeasible.c_str());
        QVERIFY(outcome.rejected.at("misses the deadline") > 0);
    }

    // Each limit can be met alone, not together: the message names the one the others leave furthest off.
    void limitsThatCannotMeetTogether() {
        auto r = request();
        const auto free = sim::plan(r, catalog());
        QVERIFY(!free.options.empty());
        double fastest = 1e300, cheapest = 1e300;
        for (const auto& o : free.options) {
            fastest = std::min(fastest, o.figures.finish_days);
            cheapest = std::min(cheapest, o.figures.cost_usd);
        }
        r.deadline = r.start + days{static_cast<int>(std::ceil(fastest * 1.05))};
        r.budget_usd = cheapest * 1.01;
        const auto outcome = sim::plan(r, catalog());
        QVERIFY(outcome.options.empty());
        QVERIFY2(outcome.infeasible.find("cannot all be met together") != std::string::npos,
                 outcome.infeasible.c_str());
    }

    // Buying B200s waits out their catalog lead time (52 weeks); the planner's own replaces it.
    void leadTimeMovesTheFinish() {
        auto r = request();
        r.devices = {"b200"};
        r.mode = models::CostMode::Buy;
        auto outcome = sim::plan(r, catalog());
        QVERIFY(!outcome.options.empty());
        const double price = catalog().find("b200")->buy_usd.value;
        for (const auto& o : outcome.options) {
            QCOMPARE(o.figures.lead_days, 364.0);
            // Buying spends the devices' price and the run's electricity, whatever share the run depreciates.
            QCOMPARE(o.figures.purchase_usd, static_cast<double>(o.candidate.count) * price);
            QCOMPARE(o.figures.cost_usd, o.figures.purchase_usd + o.result.cost_electricity_usd);
        }
        r.lead_time_weeks["b200"] = 4;
        outcome = sim::plan(r, catalog());
        for (const auto& o : outcome.options)
            QCOMPARE(o.figures.lead_days, 28.0);
    }

    // A power limit slows compute, not the rest: the step grows by less than the clock falls, and the devices
    // draw less.
    void powerLimitSlowsTheStepAndCoolsTheDevices() {
        auto r = request();
        r.devices = {"h100-sxm"};
        const sim::PlanCandidate rated{"h100-sxm", 256, 8, 8, 4, 8};
        sim::PlanCandidate limited = rated;
        limited.power_limit_W = 392.0; // half the H100's dynamic power: sqrt(1/2) of its clock
        std::string reason;
        const auto full = sim::screenCandidate(r, rated, catalog(), reason);
        const auto slow = sim::screenCandidate(r, limited, catalog(), reason);
        QVERIFY2(full && slow, reason.c_str());
        QVERIFY(slow->step_s > full->step_s);
        QVERIFY2(slow->step_s < full->step_s / std::sqrt(0.5),
                 std::to_string(slow->step_s / full->step_s).c_str());
        QVERIFY(slow->peak_MW < full->peak_MW * 392.0 / 700.0 * 1.0001);
        QVERIFY(slow->energy_MWh < full->energy_MWh);
        QVERIFY(limited.layout().find("limited to 392 W") != std::string::npos);
    }

    // Under a site cap that holds 256 H100 at their rated power, half-power devices let twice as many in; the
    // plan tries them, and every option still meets the cap.
    void powerLimitsLetMoreDevicesUnderACap() {
        auto r = request();
        r.devices = {"h100-sxm"};
        r.max_devices = 512;
        std::string reason;
        const auto at256 = sim::screenCandidate(r, {"h100-sxm", 256, 8, 8, 4, 8}, catalog(), reason);
        QVERIFY2(at256, reason.c_str());
        r.site_power_MW = at256->peak_MW * 1.01;
        r.power_limits = {{0.5, true}, {1.0, true}, {150.0, false}};
        std::map<std::string, std::int64_t> rejected;
        const auto candidates = sim::planCandidates(r, catalog(), rejected);
        QVERIFY(rejected.at("a power limit the device does not take") > 0); // 150 W: below the H100's 200
        const auto outcome = sim::plan(r, catalog());
        QVERIFY2(!outcome.options.empty(), outcome.infeasible.c_str());
        std::int64_t mostRated = 0, mostLimited = 0;
        for (const auto& o : outcome.options) {
            QVERIFY2(meetsLimits(r, o.figures), o.candidate.layout().c_str());
            auto& most = o.candidate.power_limit_W ? mostLimited : mostRated;
            most = std::max(most, o.candidate.count);
            QCOMPARE(o.scenario.trainingPool()->power_limit_W, o.candidate.power_limit_W);
        }
        QCOMPARE(mostRated, std::int64_t{256});
        QCOMPARE(mostLimited, std::int64_t{512});
        bool noted = false;
        for (const auto& note : outcome.notes)
            noted = noted || note.find("h100-sxm limited to 350 W: compute at 66 % of its clock") == 0;
        QVERIFY(noted);
    }

    // Renting from providers: each candidate is priced at one provider's offer, the option's scenario names
    // it and runs again at the same cost, and a device no provider offers is named in the notes.
    void providersPriceTheCandidates() {
        auto r = request();
        r.devices = {"h100-sxm", "b300"};
        r.max_devices = 256;
        r.providers = {"aws", "lambda"};
        std::map<std::string, std::int64_t> rejected;
        const auto candidates = sim::planCandidates(r, catalog(), rejected);
        QVERIFY(!candidates.empty());
        for (const auto& c : candidates) {
            QCOMPARE(c.device, std::string("h100-sxm")); // neither rents b300s
            QVERIFY(c.provider == "aws" || c.provider == "lambda");
        }
        const auto outcome = sim::plan(r, catalog());
        QVERIFY2(!outcome.options.empty(), outcome.infeasible.c_str());
        for (const auto& o : outcome.options) {
            QCOMPARE(o.scenario.costs.provider, o.candidate.provider);
            QVERIFY(o.candidate.layout().find(", from " + o.candidate.provider) != std::string::npos);
            models::Diagnostics errors;
            const auto rs = models::resolveScenario(o.scenario, catalog(), errors);
            QVERIFY2(rs, models::joinDiagnostics(errors).c_str());
            QCOMPARE(sim::runScenario(*rs, {sim::Fidelity::Analytical, {}}).cost_usd, o.result.cost_usd);
        }
        // Lambda rents H100s for less than AWS: the cheapest option is Lambda's.
        const auto cheapest = std::min_element(
            outcome.options.begin(), outcome.options.end(),
            [](const auto& a, const auto& b) { return a.figures.cost_usd < b.figures.cost_usd; });
        QCOMPARE(cheapest->candidate.provider, std::string("lambda"));
        bool named = false;
        for (const auto& note : outcome.notes)
            named = named || note == "left out, offered by none of the providers searched: b300";
        QVERIFY(named);
    }

    void samePlanEachTime() {
        auto r = request();
        r.budget_usd = 10e6;
        const auto a = sim::planToJson(sim::plan(r, catalog()), r).dump();
        const auto b = sim::planToJson(sim::plan(r, catalog()), r).dump();
        QCOMPARE(a, b);
    }
};

QTEST_GUILESS_MAIN(TestPlan)
#include "tst_plan.moc"
