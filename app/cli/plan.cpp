// choreo-sim plan: the clusters that train a scenario's model by a deadline, within a budget and a site's
// power (sim/plan.h).

#include "sim/plan.h"

#include "app/cli/common.h"
#include "models/exitcodes.h"
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
// "70%,85%,100%" or "450,600": the power limits to try, or nullopt with what is wrong in `error`.
std::optional<std::vector<sim::PlanPowerLimit>> parsePowerLimits(const std::string& text,
                                                                 std::string& error) {
    std::vector<sim::PlanPowerLimit> out;
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t comma = std::min(text.find(',', from), text.size());
        std::string item = text.substr(from, comma - from);
        from = comma + 1;
        const bool percent = !item.empty() && item.back() == '%';
        if (percent)
            item.pop_back();
        double value = 0.0;
        std::size_t used = 0;
        try {
            value = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != item.size() || !std::isfinite(value) || value <= 0.0 ||
            (percent && value > 100.0)) {
            error = "expected watts (500) or a percent of the device's busy power up to 100 (80%), got \"" +
                    item + (percent ? "%" : "") + "\"";
            return std::nullopt;
        }
        out.push_back(percent ? sim::PlanPowerLimit{value / 100.0, true} : sim::PlanPowerLimit{value, false});
    }
    return out;
}

const Option kPowerLimitOption{
    "--power-limit",
    "LIST",
    "Board power limits to try on every device, comma-separated: watts, or a percent "
    "of the device's busy power (e.g. 70%,85%,100%); default: rated power only",
    "watts or percents (e.g. 70%,85%,100%)",
    {},
    [](const std::string& v) {
        std::string error;
        return parsePowerLimits(v, error) ? std::string() : error;
    }};
const Option kProviderOption{"--provider",
                             "IDS",
                             "Rent from these providers' on-demand offers, comma-separated (aws, gcp, azure, "
                             "lambda, ...; all: every one); default: the catalog's rent prices",
                             "provider ids, or all",
                             {},
                             {},
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
// --provider into `request`: known ids, or "all"; renting only. False after a usage error.
bool readProviders(const Invocation& call, const models::Catalog& catalog, sim::PlanRequest& request) {
    for (const auto& id : splitList(call.values("--provider"))) {
        if (id == "all") {
            for (const auto& p : catalog.providers())
                request.providers.push_back(p.id);
            continue;
        }
        if (!catalog.provider(id)) {
            usageError(call, "--provider: unknown provider \"" + id + "\" (known: " + catalog.providerList() +
                                 "; or all)");
            return false;
        }
        request.providers.push_back(id);
    }
    const auto mode = request.mode.value_or(request.base.costs.mode);
    if (!request.providers.empty() && mode == models::CostMode::Buy) {
        usageError(call, "--provider: providers rent; this plan buys (--mode rent rents)");
        return false;
    }
    return true;
}

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
    if (!readProviders(call, catalog, request))
        return std::nullopt;
    if (const auto limits = call.value("--power-limit")) {
        std::string ignored;
        request.power_limits = *parsePowerLimits(*limits, ignored);
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
    auto scenario = models::loadScenarioFile(file, errors, setOverrides(call));
    if (scenario && !scenario->workload.trains())
        errors.push_back({"workload.kind", "plan searches clusters that train; this workload only serves"});
    else if (scenario && !scenario->trainingPool())
        errors.push_back({"cluster.pools", "plan needs a training pool to vary"});
    else if (scenario)
        models::resolveScenario(*scenario, catalog, errors, false);
    if (!scenario || !errors.empty()) {
        printDiagnostics(file, errors);
        exit = scenario ? kExitInvalidInput : scenarioLoadExit(errors);
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
    const char* separator = " ";
    for (const auto& [reason, count] : outcome.rejected) {
        std::cout << separator << count << " " << reason;
        separator = ", ";
    }
    std::cout << "\n";
}

void printOptions(const sim::PlanRequest& request, const sim::PlanOutcome& outcome) {
    int width = 36; // the layout column: the longest layout (a power limit lengthens it)
    for (const auto& o : outcome.options)
        width = std::max(width, static_cast<int>(o.candidate.layout().size()));
    std::cout << "\n #  devices               " << std::string("layout").append(width - 3, ' ')
              << "days  finish       cost ($M)    MWh   peak MW  binds\n";
    int n = 0;
    for (const auto& o : outcome.options) {
        const auto& f = o.figures;
        const std::string devices = std::to_string(o.candidate.count) + " x " + o.candidate.device;
        char line[400];
        std::snprintf(
            line, sizeof line, "%2d  %-21s %-*s %6.1f  %s %10.2f %7.0f %8.2f  %s%s\n", ++n, devices.c_str(),
            width, o.candidate.layout().c_str(), f.time_to_train_s / 86400.0,
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

// Prints the plan as text or JSON and writes --scenarios; the exit code.
int report(const Invocation& call, const sim::PlanRequest& request, const sim::PlanOutcome& outcome) {
    if (call.has("--json"))
        std::cout << sim::planToJson(outcome, request).dump(2) << "\n";
    else {
        printLimits(request, outcome);
        if (outcome.options.empty())
            std::cout << "\nno option: " << outcome.infeasible << "\n";
        else
            printOptions(request, outcome);
    }
    if (!writeScenarios(call, outcome))
        return kExitIo;
    return outcome.options.empty() ? kExitInvalidInput : kExitOk;
}

bool writeFile(const fs::path& file, const std::string& text) {
    std::string error;
    if (models::writeTextFileAtomically(file, text, error))
        return true;
    std::cerr << "choreo-sim: " << file.string() << ": " << error << "\n";
    return false;
}

// What one array task may use: SimGrid's platform and the step, about 16 KiB a device, and a margin.
std::int64_t taskMemoryMiB(const sim::PlanOutcome& outcome, std::size_t tasks) {
    std::int64_t devices = 0;
    for (std::size_t i = 0; i < tasks; ++i)
        devices = std::max(devices, outcome.options[i].candidate.count);
    return 512 + devices * 16 / 1024;
}

// --slurm DIR: the plan (plan.json), each option as a scenario (option-K.json), and a Slurm job array that
// confirms the first --confirm of them at flow fidelity (confirm.sbatch), for `choreo-sim merge DIR`.
int writeSlurmArray(const Invocation& call, sim::PlanRequest request, const sim::PlanOutcome& outcome) {
    const fs::path dir = fs::absolute(*call.value("--slurm"));
    const std::string exe = fs::absolute(call.self).string();
    const std::string assets = fs::absolute(call.assets).string();
    for (const std::string& path : {dir.string(), exe, assets})
        if (path.find('\'') != std::string::npos)
            return usageError(call,
                              "--slurm: a path with a quote (') cannot go into the job script: " + path);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::size_t tasks = std::min(outcome.options.size(), static_cast<std::size_t>(request.confirm));
    request.confirm = static_cast<int>(tasks);
    if (!writeFile(dir / "plan.json", sim::planToJson(outcome, request).dump(2) + "\n"))
        return kExitIo;
    for (std::size_t i = 0; i < outcome.options.size(); ++i)
        if (!writeFile(dir / ("option-" + std::to_string(i + 1) + ".json"),
                       models::serializeScenario(outcome.options[i].scenario)))
            return kExitIo;
    const std::string d = dir.string();
    const std::string script =
        "#!/bin/sh\n"
        "# choreo-sim plan's flow confirmations, one array task an option (docs/plan.md).\n"
        "# Submit: sbatch " +
        d + "/confirm.sbatch    Then: choreo-sim merge " + d +
        "\n"
        "#SBATCH --job-name=choreo-plan\n"
        "#SBATCH --array=1-" +
        std::to_string(std::max<std::size_t>(1, tasks)) +
        "\n"
        "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
        "#SBATCH --mem=" +
        std::to_string(taskMemoryMiB(outcome, tasks)) +
        "M\n"
        "#SBATCH --output=" +
        d +
        "/slurm-%a.log\n"
        "set -eu\n"
        "task=$SLURM_ARRAY_TASK_ID\n"
        "'" +
        exe + "' run '" + d + "/option-'$task'.json' --fidelity flow --json --assets '" + assets + "' > '" +
        d +
        "/result-'$task'.json.part'\n"
        "mv '" +
        d + "/result-'$task'.json.part' '" + d + "/result-'$task'.json'\n";
    if (tasks > 0 && !writeFile(dir / "confirm.sbatch", script))
        return kExitIo;
    std::cerr << "choreo-sim: wrote " << d << ": " << outcome.options.size() << " options; "
              << (tasks > 0
                      ? std::to_string(tasks) + " flow confirmations as a Slurm job array. Submit: sbatch " +
                            d + "/confirm.sbatch; then: choreo-sim merge " + d
                      : std::string("nothing to confirm"))
              << "\n";
    return kExitOk;
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
    if (!call.has("--slurm"))
        return report(call, *request, sim::plan(*request, *catalog));
    auto local = *request; // the confirmations go to the cluster
    local.confirm = 0;
    const auto outcome = sim::plan(local, *catalog);
    if (const int written = writeSlurmArray(call, *request, outcome); written != kExitOk)
        return written;
    return report(call, local, outcome);
}

// merge DIR: the array's results into the plan --slurm wrote.
int merge(const Invocation& call) {
    if (call.positional.size() != 1)
        return usageError(call, "merge needs exactly one DIR, the one plan --slurm wrote");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    const fs::path dir = call.positional[0];
    std::string text, error;
    if (!models::readTextFile(dir / "plan.json", text, error)) {
        std::cerr << "choreo-sim: " << (dir / "plan.json").string() << ": " << error << "\n";
        return kExitIo;
    }
    const auto json = models::Json::parse(text, nullptr, false);
    auto read = json.is_discarded() ? std::nullopt : sim::planFromJson(json, error);
    if (!read) {
        std::cerr << "choreo-sim: " << (dir / "plan.json").string() << ": "
                  << (json.is_discarded() ? std::string("not JSON") : error) << "\n";
        return kExitInvalidInput;
    }
    auto& [request, outcome] = *read;
    const auto tasks =
        std::min(outcome.options.size(), static_cast<std::size_t>(std::max(0, request.confirm)));
    for (std::size_t i = 0; i < tasks; ++i) {
        const fs::path file = dir / ("result-" + std::to_string(i + 1) + ".json");
        models::Diagnostics errors;
        std::optional<models::RunResult> result;
        if (models::readTextFile(file, text, error)) {
            const auto j = models::Json::parse(text, nullptr, false);
            if (!j.is_discarded())
                result = models::resultFromJson(j, errors);
        }
        if (!result) {
            outcome.notes.push_back("option " + std::to_string(i + 1) + ": no result in " + file.string() +
                                    " (its array task did not finish: see slurm-" + std::to_string(i + 1) +
                                    ".log); analytical figures kept");
            continue;
        }
        sim::confirmOption(request, *catalog, outcome.options[i], *result);
    }
    sim::dropOptionsMissingLimits(request, outcome);
    for (auto& option : outcome.options)
        sim::describeMargin(request, option);
    return report(call, request, outcome);
}

} // namespace

const Option kSlurmOption{
    "--slurm", "DIR",
    "Writes the plan, its options and a Slurm job array (DIR/confirm.sbatch) that confirms the "
    "--confirm fastest at flow fidelity across a cluster, instead of on this machine; "
    "`choreo-sim merge DIR` collects the results",
    "a folder"};

const Command kPlanCommand{
    "plan",
    "SCENARIO",
    "Search the clusters that train SCENARIO's model on its tokens: every allowed device x count x parallel "
    "layout x precision x recompute at the analytical level, failures and checkpoints included, memory "
    "checked. Lists the Pareto front of time to train, cost and energy that meets the deadline, budget and "
    "site power, the limit that binds each option and why half or twice its devices lost; the fastest are "
    "confirmed at flow fidelity. With no option, says which limit cannot be met and by how much (exit 2).",
    {&kDeviceOption, &kModeOption, &kDeadlineOption, &kBudgetOption, &kPowerCapOption, &kStartOption,
     &kLeadTimeOption, &kPowerLimitOption, &kProviderOption, &kMaxDevicesOption, &kConfirmOption,
     &kOptionsOption, &kScenariosOption, &kSlurmOption, &kJsonOption, &kJobsOption, &kSetOption},
    run};

const Command kMergeCommand{
    "merge",
    "DIR",
    "Collect the flow confirmations of a Slurm job array that `plan --slurm DIR` wrote (DIR/result-K.json) "
    "into "
    "the plan: each confirmed option's figures become the flow ones, an option that then misses a limit is "
    "dropped with a note, and a task that did not finish is named. Prints the plan as plan does.",
    {&kJsonOption, &kScenariosOption},
    merge};

} // namespace choreo::cli
