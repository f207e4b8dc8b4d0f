#include "models/catalog.h"

#include "app/cli/common.h"
#include "models/exitcodes.h"
#include "models/jsonreader.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace choreo::cli {

namespace {

// A sourced figure as {value, source, as_of}; null when the catalog has none.
models::Json figure(const models::Sourced& s, const models::Catalog& catalog) {
    if (!s.present())
        return nullptr;
    const models::Source* source = catalog.source(s.source);
    models::Json j{{"value", s.value}, {"source", s.source}, {"as_of", source ? source->as_of : ""}};
    if (!s.note.empty())
        j["note"] = s.note;
    if (s.announced)
        j["announced"] = true;
    return j;
}

// A price: its sourced figure, or the reason the catalog has none.
models::Json price(const models::Sourced& s, const std::string& reason, const models::Catalog& catalog) {
    return s.present() ? figure(s, catalog) : models::Json{{"none", reason}};
}

// Every source key `j`'s figures cite, once each, in the order they first appear.
void collectSources(const models::Json& j, std::vector<std::string>& keys) {
    if (j.is_object()) {
        if (const auto it = j.find("source"); it != j.end() && it->is_string()) {
            const auto key = it->get<std::string>();
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
                keys.push_back(key);
        }
        for (const auto& [name, value] : j.items())
            collectSources(value, keys);
    } else if (j.is_array()) {
        for (const auto& value : j)
            collectSources(value, keys);
    }
}

// The sources a device's figures cite, each with its title, address and date.
models::Json sourcesJson(const models::Json& device, const models::Catalog& catalog) {
    std::vector<std::string> keys;
    collectSources(device, keys);
    models::Json out = models::Json::array();
    for (const auto& key : keys) {
        const models::Source* s = catalog.source(key);
        out.push_back({{"key", key},
                       {"title", s ? s->title : ""},
                       {"url", s ? s->url : ""},
                       {"as_of", s ? s->as_of : ""}});
    }
    return out;
}

models::Json deviceJson(const models::Device& d, const models::Catalog& catalog) {
    models::Json peaks = models::Json::object();
    for (const auto& [precision, peak] : d.peak_tflops)
        peaks[models::toString(precision)] = figure(peak, catalog);
    models::Json j{{"id", d.id},
                   {"name", d.name},
                   {"kind", models::toString(d.kind)},
                   {"family", d.vendor},
                   {"released", d.released},
                   {"fabric", d.scale_up ? d.scale_up->fabric : std::string("none")},
                   {"figures",
                    {{"peak_tflops", peaks},
                     {"memory_GB", figure(d.memory_GB, catalog)},
                     {"memory_bandwidth_TBps", figure(d.memory_bandwidth_TBps, catalog)},
                     {"tdp_W", figure(d.tdp_W, catalog)},
                     {"nic_Gbps", figure(d.nic_Gbps, catalog)}}},
                   {"price",
                    {{"buy_usd", price(d.buy_usd, d.no_buy_price, catalog)},
                     {"rent_usd_per_hour", price(d.rent_usd_per_hour, d.no_rent_price, catalog)}}}};
    if (d.lead_time_weeks.present())
        j["lead_time_weeks"] = figure(d.lead_time_weeks, catalog);
    for (const auto& [key, value] : {std::pair{"min_power_limit_W", &d.min_power_limit_W},
                                     std::pair{"memory_bound_W", &d.memory_bound_W},
                                     std::pair{"clock_power_exponent", &d.clock_power_exponent}})
        if (value->present())
            j["figures"][key] = figure(*value, catalog);
    if (!d.aliases.empty())
        j["aliases"] = d.aliases;
    if (d.announced())
        j["announced"] = d.announced_figures;
    j["sources"] = sourcesJson(j, catalog);
    return j;
}

// Every interruption a failure profile's published run counted.
double interruptions(const models::FailureProfile& profile) {
    double count = 0.0;
    for (const auto& cause : profile.causes)
        count += cause.count.value;
    return count;
}

models::Json catalogJson(const models::Catalog& catalog) {
    models::Json devices = models::Json::array();
    for (const auto& d : catalog.devices())
        devices.push_back(deviceJson(d, catalog));
    models::Json frameworks = models::Json::array();
    for (const auto& p : catalog.frameworkProfiles())
        frameworks.push_back({{"id", p.id},
                              {"framework", p.framework},
                              {"name", p.name},
                              {"from", p.from},
                              {"behaviours", p.behaviours.size()}});
    models::Json failures = models::Json::array();
    for (const auto& p : catalog.failureProfiles()) {
        const double count = interruptions(p);
        failures.push_back({{"id", p.id},
                            {"name", p.name},
                            {"devices", p.devices},
                            {"fallback", p.fallback},
                            {"interruptions", count},
                            {"observed_devices", figure(p.observed_devices, catalog)},
                            {"observed_days", figure(p.observed_days, catalog)}});
    }
    models::Json providers = models::Json::array();
    for (const auto& p : catalog.providers()) {
        models::Json offers = models::Json::array();
        for (const auto& o : p.offers)
            offers.push_back({{"device", o.device},
                              {"instance", o.instance},
                              {"devices_per_instance", o.devices_per_instance},
                              {"usd_per_instance_hour", figure(o.usd_per_instance_hour, catalog)},
                              {"usd_per_device_hour", o.usdPerDeviceHour()},
                              {"region", o.region}});
        providers.push_back({{"id", p.id}, {"name", p.name}, {"offers", offers}});
    }
    return {{"devices", devices},
            {"training_frameworks", frameworks},
            {"failure_profiles", failures},
            {"providers", providers}};
}

std::string priceText(const models::Sourced& s, const char* format) {
    if (!s.present())
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, format, s.value);
    return text;
}

void printText(const models::Catalog& catalog) {
    std::printf("%-14s %-11s %-9s %-16s %9s %7s %6s %9s %7s\n", "id", "kind", "family", "fabric", "16-bit TF",
                "mem GB", "TDP W", "buy $", "rent $/h");
    std::vector<std::string> unpriced;
    std::vector<std::string> announced;
    for (const auto& d : catalog.devices()) {
        // bf16's peak, or fp16's on a device without bf16 (Graphcore's IPUs).
        auto sixteen = d.peak_tflops.find(models::Precision::Bf16);
        if (sixteen == d.peak_tflops.end())
            sixteen = d.peak_tflops.find(models::Precision::Fp16);
        const std::string id = d.announced() ? d.id + "*" : d.id;
        std::printf("%-14s %-11s %-9s %-16s %9s %7.4g %6.0f %9s %7s\n", id.c_str(),
                    models::toString(d.kind).c_str(), d.vendor.c_str(),
                    (d.scale_up ? d.scale_up->fabric : std::string("none")).c_str(),
                    sixteen == d.peak_tflops.end() ? "-" : priceText(sixteen->second, "%.0f").c_str(),
                    d.memory_GB.value, d.tdp_W.value, priceText(d.buy_usd, "%.0f").c_str(),
                    priceText(d.rent_usd_per_hour, "%.2f").c_str());
        if (!d.no_buy_price.empty())
            unpriced.push_back(d.id + " buy: " + d.no_buy_price);
        if (!d.no_rent_price.empty())
            unpriced.push_back(d.id + " rent: " + d.no_rent_price);
        if (d.announced())
            announced.push_back(d.id + ": " + models::announcedFigureList(d));
    }
    if (!announced.empty()) {
        std::cout << "\n* announced only: the vendor's preliminary figures, and no part was measured:\n";
        for (const auto& line : announced)
            std::cout << "  " << line << "\n";
    }
    std::cout << "\nno price (-), and why:\n";
    for (const auto& line : unpriced)
        std::cout << "  " << line << "\n";
    std::cout << "\nlead times from order to delivery (plan; the others are the planner's to give):\n";
    for (const auto& d : catalog.devices())
        if (d.lead_time_weeks.present())
            std::cout << "  " << d.id << ": " << models::formatNumber(d.lead_time_weeks.value) << " weeks ("
                      << d.lead_time_weeks.source << ", " << d.lead_time_weeks.note << ")\n";
    std::cout << "\nrent providers' on-demand offers (costs.provider, plan --provider), $ a device-hour:\n";
    for (const auto& p : catalog.providers()) {
        std::cout << "  " << p.id << " (" << p.name << "):";
        for (const auto& o : p.offers)
            std::printf(" %s %.2f (%s)%s", o.device.c_str(), o.usdPerDeviceHour(), o.instance.c_str(),
                        &o == &p.offers.back() ? "\n" : ",");
    }
    std::cout << "\ntraining-framework profiles (workload.framework, framework_version from):\n";
    for (const auto& p : catalog.frameworkProfiles())
        std::cout << "  " << p.framework << " " << p.from << "  " << p.id << ": " << p.name << "\n";
    std::cout << "\nfailure profiles (the whole run's interruptions; workload.reliability):\n";
    for (const auto& p : catalog.failureProfiles()) {
        const double count = interruptions(p);
        std::string devices;
        for (const auto& id : p.devices)
            devices += (devices.empty() ? "" : ", ") + id;
        std::printf("  %s: %s; %.0f interruptions on %.0f devices over %.0f days; %s%s\n", p.id.c_str(),
                    p.name.c_str(), count, p.observed_devices.value, p.observed_days.value, devices.c_str(),
                    p.fallback ? ", and every device without its own" : "");
    }
}

int run(const Invocation& call) {
    if (!call.positional.empty())
        return usageError(call, "catalog takes no arguments");
    auto catalog = loadCatalogOrSay(call.assets);
    if (!catalog)
        return kExitIo;
    if (call.has("--json"))
        std::cout << catalogJson(*catalog).dump(2) << "\n";
    else
        printText(*catalog);
    return kExitOk;
}

} // namespace

const Command kCatalogCommand{
    "catalog",
    "",
    "List every catalog device (kind, family, scale-up fabric, peak, memory, power, prices) and the training "
    "frameworks' and failure profiles. With --json each figure carries its source and date, and a device "
    "without a "
    "purchase or rent price says why (assets/catalog, docs/catalog.md).",
    {&kJsonOption},
    run};

} // namespace choreo::cli
