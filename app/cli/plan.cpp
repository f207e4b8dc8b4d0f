// choreo-sim plan: the clusters that train a scenario's model by a deadline, within a budget and a site's
// power (sim/plan.h).

#include "sim/plan.h"

#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "models/fieldoverride.h"
#include "models/resolved.h"
#include "models/scenarioio.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace choreo::cli {

namespace {

namespace fs = std::filesystem;
using std::chrono::sys_days;

constexpr std::int64_t kMaxPlanDevices = std::int64_t{1} << 20;

std::string fmt(const char* format, double value) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

// A positive number, or what is wrong with it.
std::string positiveNumber(const std::string& value) {
    try {
        std::size_t used = 0;
        const double v = std::stod(value, &used);
        if (used == value.size() && std::isfinite(v) && v > 0.0)
            return {};
    } catch (const std::exception&) {
    }
    return "needs a positive number, got \"" + value + "\"";
}

std::string wholeNumber(const std::string& value, std::int64_t low, std::int64_t high) {
    try {
        std::size_t used = 0;
        const long long v = std::stoll(value, &used);
        if (used == value.size() && v >= low && v <= high)
            return {};
    } catch (const std::exception&) {
    }
    return "needs a whole number from " + std::to_string(low) + " to " + std::to_string(high) + ", got \"" +
           value + "\"";
}

const Option kDeviceOption{
    "--device",
    "ID",
    "A catalog device the search may use (id or alias), or a vendor's devices (NVIDIA, AMD, ...); a comma "
    "list, or repeat the option. Default: every device that trains and has a price in the cost mode",
    "a catalog device id",
    {},
    {},
    true};
const Option kModeOption{"--mode",
                         "rent|buy",
                         "Rent or buy the devices; default: the scenario's costs.mode",
                         "rent or buy",
                         {},
                         [](const std::string& v) {
                             return v == "rent" || v == "buy" ? std::string()
                                                              : "expected rent or buy, got \"" + v + "\"";
                         }};
const Option kDeadlineOption{
    "--deadline",
    "DATE|DAYS",
    "When the training must have finished: a date (2027-06-30) or a number of days after --start, the "
    "devices' lead time included",
    "a date (YYYY-MM-DD) or days",
    {},
    [](const std::string& v) {
        return sim::parseDate(v) || positiveNumber(v).empty()
                   ? std::string()
                   : "expected a date (YYYY-MM-DD) or a positive number of days, got \"" + v + "\"";
    }};
const Option kBudgetOption{
    "--budget",
    "USD",
    "The most the plan may spend: renting, the run's device-hours; buying, every device at its price "
    "and the run's electricity",
    "a number of dollars",
    {},
    positiveNumber};
const Option kPowerCapOption{
    "--power-cap", "MW", "The site's power for the cluster, at the facility (PUE included), megawatts",
    "megawatts",   {},   positiveNumber};
const Option kStartOption{"--start",
                          "DATE",
                          "When the order is placed (YYYY-MM-DD); default: today (UTC)",
                          "a date (YYYY-MM-DD)",
                          {},
                          [](const std::string& v) {
                              return sim::parseDate(v) ? std::string()
                                                       : "expected a date (YYYY-MM-DD), got \"" + v + "\"";
                          }};
const Option kLeadTimeOption{
    "--lead-time",
    "ID=WEEKS",
    "A device's lead time from order to delivery, over the catalog's (renting: the wait for capacity); "
    "repeatable",
    "ID=WEEKS (e.g. h200-sxm=16)",
    {},
    [](const std::string& v) {
        const auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0)
            return std::string("expected ID=WEEKS");
        const std::string weeks = v.substr(eq + 1);
        try {
            std::size_t used = 0;
            const double w = std::stod(weeks, &used);
            if (used == weeks.size() && w >= 0.0 && w <= 520.0)
                return std::string();
        } catch (const std::exception&) {
        }
        return "WEEKS needs a number from 0 to 520, got \"" + weeks + "\"";
    },
    true};
const Option kMaxDevicesOption{
    "--max-devices",       "N", "The largest training pool tried (default 65536; at most 1048576)",
    "a number of devices", {},  [](const std::string& v) { return wholeNumber(v, 1, kMaxPlanDevices); }};
const Option kConfirmOption{"--confirm",
                            "N",
                            "How many of the fastest options to re-run at flow fidelity (default 3; 0: none)",
                            "a number of options",
                            {},
                            [](const std::string& v) { return wholeNumber(v, 0, 64); }};
const Option kOptionsOption{
    "--options",           "N", "The most options listed (default 12)",
    "a number of options", {},  [](const std::string& v) { return wholeNumber(v, 1, 1000); }};
const Option kScenariosOption{"--scenarios", "DIR",
                              "Writes each option as a scenario file (option-1.json, ...) that `run` and the "
                              "desktop open",
                              "a folder"};

std::vector<std::string> splitList(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const auto& value : values)
        for (std::size_t start = 0; start <= value.size();) {
            const std::size_t comma = std::min(value.find(',', start), value.size());
            if (comma > start)
                out.push_back(value.substr(start, comma - start));
            start = comma + 1;
        }
    return out;
}

// The device with this id or alias, or every device of a vendor ("AMD", case aside).
std::vector<const models::Device*> devicesNamed(const models::Catalog& catalog, const std::string& name) {
    if (const models::Device* device = catalog.find(name))
        return {device};
    const auto lower = [](std::string text) {
        for (auto& ch : text)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return text;
    };
    std::vector<const models::Device*> out;
    for (const auto& device : catalog.devices())
        if (lower(device.vendor) == lower(name))
            out.push_back(&device);
    return out;
}

std::string vendorList(const models::Catalog& catalog) {
    std::vector<std::string> vendors;
    for (const auto& device : catalog.devices())
        if (std::find(vendors.begin(), vendors.end(), device.vendor) == vendors.end())
            vendors.push_back(device.vendor);
    std::string out;
    for (const auto& v : vendors)
        out += (out.empty() ? "" : ", ") + v;
    return out;
}

sys_days today() {
    return std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
}

// The request from the command line; nullopt (after saying why) when a value is wrong.
std::optional<sim::PlanRequest> readRequest(const Invocation& call, const models::Catalog& catalog,
                                            models::Scenario base) {
    sim::PlanRequest request;
    request.base = std::move(base);
    request.start = call.has("--start") ? *sim::parseDate(*call.value("--start")) : today();
    for (const auto& id : splitList(call.values("--device"))) {
        const auto family = devicesNamed(catalog, id);
        if (family.empty()) {
            usageError(call, "--device: unknown device or vendor \"" + id + "\" (known: " + catalog.idList() +
                                 "; or a vendor: " + vendorList(catalog) + ")");
            return std::nullopt;
        }
        for (const models::Device* device : family) {
            if (device->kind == models::DeviceKind::Cpu && family.size() == 1) {
                usageError(call,
                           "--device: " + device->id + " is a CPU; plan searches the devices that train");
                return std::nullopt;
            }
            if (device->kind != models::DeviceKind::Cpu)
                request.devices.push_back(device->id);
        }
    }
    if (const auto mode = call.value("--mode"))
        request.mode = *mode == "buy" ? models::CostMode::Buy : models::CostMode::Rent;
    if (const auto deadline = call.value("--deadline")) {
        request.deadline = sim::parseDate(*deadline);
        if (!request.deadline)
            request.deadline =
                request.start + std::chrono::days{static_cast<int>(std::ceil(std::stod(*deadline)))};
        if (*request.deadline <= request.start) {
            usageError(call, "--deadline: " + sim::formatDate(*request.deadline) +
                                 " is not after the start, " + sim::formatDate(request.start));
            return std::nullopt;
        }
    }
    if (const auto budget = call.value("--budget"))
        request.budget_usd = std::stod(*budget);
    if (const auto cap = call.value("--power-cap"))
        request.site_power_MW = std::stod(*cap);
    for (const auto& item : call.values("--lead-time")) {
        const auto eq = item.find('=');
        const models::Device* device = catalog.find(item.substr(0, eq));
        if (!device) {
            usageError(call, "--lead-time: unknown device \"" + item.substr(0, eq) +
                                 "\" (known: " + catalog.idList() + ")");
            return std::nullopt;
        }
        request.lead_time_weeks[device->id] = std::stod(item.substr(eq + 1));
    }
    if (const auto max = call.value("--max-devices"))
        request.max_devices = std::stoll(*max);
    if (const auto confirm = call.value("--confirm"))
        request.confirm = std::stoi(*confirm);
    if (const auto options = call.value("--options"))
        request.max_options = static_cast<std::size_t>(std::stoul(*options));
    request.jobs = jobsOf(call);
    return request;
}

// The scenario the search starts from, checked as `run` checks it (memory aside: the search sizes it).
std::optional<models::Scenario> loadBase(const Invocation& call, const models::Catalog& catalog, int& exit) {
    const std::string& file = call.positional[0];
    models::Diagnostics errors;
    std::vector<models::FieldOverride> overrides;
    for (const auto& assignment : call.values("--set")) {
        std::string error;
        auto o = models::parseFieldOverride(assignment, error);
        overrides.push_back(*o);
    }
    auto scenario = models::loadScenarioFile(file, errors, overrides);
    if (scenario && !scenario->workload.trains())
        errors.push_back({"workload.kind", "plan searches clusters that train; this workload only serves"});
    else if (scenario && !scenario->trainingPool())
        errors.push_back({"cluster.pools", "plan needs a training pool to vary"});
    else if (scenario)
        models::resolveScenario(*scenario, catalog, errors, false);
    if (!scenario || !errors.empty()) {
        printDiagnostics(file, errors);
        exit = !scenario && errors.size() == 1 && errors[0].path == "(file)" ? kExitIo : kExitInvalidInput;
        return std::nullopt;
    }
    return scenario;
}

void printLimits(const sim::PlanRequest& request, const sim::PlanOutcome& outcome) {
    std::cout << "order placed " << sim::formatDate(request.start) << "; "
              << models::toString(request.mode.value_or(request.base.costs.mode)) << "ing";
    if (request.deadline)
        std::cout << "; deadline " << sim::formatDate(*request.deadline);
    if (request.budget_usd)
        std::cout << fmt("; budget $%.1f million", *request.budget_usd / 1e6);
    if (request.site_power_MW)
        std::cout << fmt("; site power %.4g MW", *request.site_power_MW);
    std::cout << "\n"
              << outcome.searched << " candidates searched" << fmt(" (%.1f s screening)", outcome.screen_s)
              << "; set aside:";
    for (const auto& [reason, count] : outcome.rejected)
        std::cout << " " << count << " " << reason << ",";
    std::cout << "\n";
}

void printOptions(const sim::PlanRequest& request, const sim::PlanOutcome& outcome) {
    std::cout << "\n #  devices               layout                                days  finish       "
                 "cost ($M)    MWh   peak MW  binds\n";
    int n = 0;
    for (const auto& o : outcome.options) {
        const auto& f = o.figures;
        const std::string devices = std::to_string(o.candidate.count) + " x " + o.candidate.device;
        char line[320];
        std::snprintf(
            line, sizeof line, "%2d  %-21s %-36s %6.1f  %s %10.2f %7.0f %8.2f  %s%s\n", ++n, devices.c_str(),
            o.candidate.layout().c_str(), f.time_to_train_s / 86400.0,
            sim::formatDate(request.start + std::chrono::days{static_cast<int>(std::ceil(f.finish_days))})
                .c_str(),
            f.cost_usd / 1e6, f.energy_MWh, f.peak_MW, o.binding.c_str(),
            o.fidelity == "flow" ? " (flow)" : "");
        std::cout << line << "      " << o.why_binds << "\n      fewer: " << o.fewer
                  << "\n      more:  " << o.more << "\n";
    }
    if (!outcome.notes.empty()) {
        std::cout << "\nnotes:\n";
        for (const auto& note : outcome.notes)
            std::cout << "  " << note << "\n";
    }
}

// Writes option-N.json under --scenarios; false after saying what went wrong.
bool writeScenarios(const Invocation& call, const sim::PlanOutcome& outcome) {
    const auto dir = call.value("--scenarios");
    if (!dir)
        return true;
    std::error_code ec;
    fs::create_directories(*dir, ec);
    for (std::size_t i = 0; i < outcome.options.size(); ++i) {
        const fs::path file = fs::path(*dir) / ("option-" + std::to_string(i + 1) + ".json");
        std::string error;
        if (!models::saveScenarioFile(file, outcome.options[i].scenario, error)) {
            std::cerr << "choreo-sim: " << file.string() << ": " << error << "\n";
            return false;
        }
    }
    return true;
}

int run(const Invocation& call) {
    if (call.positional.size() != 1)
        return usageError(call, "plan needs exactly one SCENARIO file");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    int exit = kExitOk;
    auto base = loadBase(call, *catalog, exit);
    if (!base)
        return exit;
    const auto request = readRequest(call, *catalog, std::move(*base));
    if (!request)
        return kExitUsage;
    const auto outcome = sim::plan(*request, *catalog);
    if (call.has("--json"))
        std::cout << sim::planToJson(outcome, *request).dump(2) << "\n";
    else {
        printLimits(*request, outcome);
        if (outcome.options.empty())
            std::cout << "\nno option: " << outcome.infeasible << "\n";
        else
            printOptions(*request, outcome);
    }
    if (!writeScenarios(call, outcome))
        return kExitIo;
    return outcome.options.empty() ? kExitInvalidInput : kExitOk;
}

} // namespace

const Command kPlanCommand{
    "plan",
    "SCENARIO",
    "Search the clusters that train SCENARIO's model on its tokens: every allowed device x count x parallel "
    "layout x precision x recompute at the analytical level, failures and checkpoints included, memory "
    "checked. Lists the Pareto front of time to train, cost and energy that meets the deadline, budget and "
    "site power, the limit that binds each option and why fewer devices lost; the fastest options are "
    "confirmed at flow fidelity. With no option, says which limit cannot be met and by how much (exit 2).",
    {&kDeviceOption, &kModeOption, &kDeadlineOption, &kBudgetOption, &kPowerCapOption, &kStartOption,
     &kLeadTimeOption, &kMaxDevicesOption, &kConfirmOption, &kOptionsOption, &kScenariosOption, &kJsonOption,
     &kJobsOption, &kSetOption},
    run};

} // namespace choreo::cli
