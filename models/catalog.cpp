#include "models/catalog.h"

#include "models/framework.h"
#include "models/jsonreader.h"
#include "models/reliability.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace choreo::models {

std::string toString(DeviceKind kind) {
    switch (kind) {
    case DeviceKind::Gpu:
        return "gpu";
    case DeviceKind::Cpu:
        return "cpu";
    case DeviceKind::Accelerator:
        return "accelerator";
    }
    return "unknown";
}

std::optional<double> Device::peakFlops(Precision precision) const {
    auto it = peak_tflops.find(precision);
    if (it == peak_tflops.end() || it->second.value <= 0.0)
        return std::nullopt;
    return it->second.value * 1e12;
}

namespace {

// A rate that grows with the size of the call: `top` * F / (F + half), F and half in FLOP; flat without a
// half size.
double sizeCurve(double top, double halfFlops, double flops) {
    if (halfFlops <= 0.0 || flops <= 0.0)
        return top;
    return top * flops / (flops + halfFlops);
}

} // namespace

namespace {

const Sourced& byPrecision(const std::map<Precision, Sourced>& entries, Precision precision,
                           const Sourced& fallback) {
    if (const auto own = entries.find(precision); own != entries.end())
        return own->second;
    // fp4 and the integer types fall back to fp8's entry: the nearest measured low-precision rate.
    if (precision == Precision::Int4)
        if (const auto int8 = entries.find(Precision::Int8); int8 != entries.end())
            return int8->second;
    if (precision == Precision::Fp4 || precision == Precision::Int8 || precision == Precision::Int4)
        if (const auto fp8 = entries.find(Precision::Fp8); fp8 != entries.end())
            return fp8->second;
    return fallback;
}

} // namespace

std::string announcedFigureList(const Device& device) {
    // Consecutive figures of one block ("peak_tflops.bf16", "peak_tflops.fp8") read as one: "peak_tflops
    // (bf16, fp8)"; a block of one keeps its path.
    struct Block {
        std::string head;               // "peak_tflops", or the whole path outside a block
        std::vector<std::string> names; // "bf16", "fp8"; empty outside a block
    };
    std::vector<Block> blocks;
    for (const auto& path : device.announced_figures) {
        const auto dot = path.find('.');
        const std::string head = dot == std::string::npos ? path : path.substr(0, dot);
        if (dot == std::string::npos || blocks.empty() || blocks.back().head != head)
            blocks.push_back({head, {}});
        if (dot != std::string::npos)
            blocks.back().names.push_back(path.substr(dot + 1));
    }
    std::string words;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const Block& b = blocks[i];
        std::string item = b.head;
        if (b.names.size() == 1)
            item += "." + b.names.front();
        for (std::size_t n = 0; b.names.size() > 1 && n < b.names.size(); ++n)
            item += (n == 0 ? " (" : ", ") + b.names[n] + (n + 1 == b.names.size() ? ")" : "");
        words += (i == 0 ? "" : i + 1 == blocks.size() ? " and " : ", ") + item;
    }
    return words;
}

const Sourced& DeviceEfficiency::gemmAt(Precision precision) const {
    return byPrecision(gemm_by_precision, precision, gemm);
}

const Sourced& DeviceEfficiency::gemmHalfAt(Precision precision) const {
    return byPrecision(gemm_half_gflop_by_precision, precision, gemm_half_gflop);
}

double DeviceEfficiency::gemmFraction(Precision precision, double flops) const {
    return sizeCurve(gemmAt(precision).value, gemmHalfAt(precision).value * 1e9, flops);
}

double DeviceEfficiency::attentionFraction(double flops, bool flash2) const {
    if (flash2 && attention_flash2.present())
        return sizeCurve(attention_flash2.value, attention_flash2_half_gflop.value * 1e9, flops);
    return sizeCurve(attention.value, attention_half_gflop.value * 1e9, flops);
}

namespace {

// Reads {"value": x, "source": "KEY", "note": "..."}; records which keys must resolve later.
struct DeviceParser {
    JsonReader& reader;
    std::vector<std::pair<std::string, std::string>>& citations; // (path, key)
    // While a device is read: its path, and the places of its announced figures (Device::announced_figures).
    std::string device_path;
    std::vector<std::string> announced;

    std::optional<Sourced> sourced(const Json& object, const std::string& path, const char* key,
                                   bool required, bool allowZero = false) {
        auto it = object.find(key);
        const std::string here = JsonReader::join(path, key);
        if (it == object.end()) {
            if (required)
                reader.error(here, "missing required field");
            return std::nullopt;
        }
        if (!reader.expectObject(*it, here))
            return std::nullopt;
        reader.rejectUnknownKeys(*it, here, {"value", "source", "note", "announced"});
        Sourced s;
        auto value = reader.number(*it, here, "value", !allowZero);
        auto source = reader.text(*it, here, "source");
        auto note = reader.text(*it, here, "note", false);
        const auto announcedFlag = reader.boolean(*it, here, "announced", false);
        if (!value || !source)
            return std::nullopt;
        s.value = *value;
        s.source = *source;
        s.note = note.value_or("");
        s.announced = announcedFlag.value_or(false);
        citations.emplace_back(here, s.source);
        if (s.announced)
            noteAnnounced(here);
        return s;
    }

    // Records an announced figure at `path` in the device being read; elsewhere (a price list, an engine)
    // the flag has no device to mark, and is refused.
    void noteAnnounced(const std::string& path) {
        const std::string prefix = device_path + ".";
        if (!device_path.empty() && path.rfind(prefix, 0) == 0)
            announced.push_back(path.substr(prefix.size()));
        else
            reader.error(JsonReader::join(path, "announced"), "only a device's figures can be announced");
    }

    // The sourced number `key` of `obj` (at `p`) into `into`, when present.
    void take(Sourced& into, const Json& obj, const std::string& p, const char* key, bool required) {
        if (auto s = sourced(obj, p, key, required))
            into = *s;
    }

    // {"bf16": {value, source}, ...}: one sourced number per precision.
    void perPrecision(std::map<Precision, Sourced>& into, const Json& obj, const std::string& p,
                      const char* key, bool required = false) {
        const std::string here = JsonReader::join(p, key);
        auto it = obj.find(key);
        if (it == obj.end()) {
            if (required)
                reader.error(here, "missing required field");
            return;
        }
        if (!reader.expectObject(*it, here))
            return;
        for (const auto& [name, value] : it->items()) {
            auto precision = precisionFromString(name);
            if (!precision) {
                reader.error(JsonReader::join(here, name.c_str()), "unknown precision");
                continue;
            }
            if (auto s = sourced(*it, here, name.c_str(), true))
                into[*precision] = *s;
        }
    }

    // A CPU's cores and data rates, an accelerator's host CPUs.
    void readDataPipeline(Device& dev, const Json& d, const std::string& path) {
        take(dev.cores, d, path, "cores", false);
        if (auto it = d.find("data_rates"); it != d.end()) {
            const std::string p = JsonReader::join(path, "data_rates");
            if (reader.expectObject(*it, p)) {
                reader.rejectUnknownKeys(
                    *it, p,
                    {"text_tokens_per_s", "images_per_s", "video_frames_per_s", "audio_seconds_per_s"});
                take(dev.data_rates.text_tokens_per_s, *it, p, "text_tokens_per_s", false);
                take(dev.data_rates.images_per_s, *it, p, "images_per_s", false);
                take(dev.data_rates.video_frames_per_s, *it, p, "video_frames_per_s", false);
                take(dev.data_rates.audio_seconds_per_s, *it, p, "audio_seconds_per_s", false);
            }
            if (!dev.cores.present())
                reader.error(JsonReader::join(path, "cores"), "needed with data_rates, which are per core");
        }
        if (auto it = d.find("host"); it != d.end()) {
            const std::string p = JsonReader::join(path, "host");
            if (reader.expectObject(*it, p)) {
                reader.rejectUnknownKeys(*it, p, {"cpu", "cpus_per_device"});
                HostCpus host;
                host.cpu = reader.text(*it, p, "cpu").value_or("");
                take(host.cpus_per_device, *it, p, "cpus_per_device", true);
                dev.host = host;
            }
        }
    }

    // Whether decodes and prefills share an iteration (0 or 1), and the decode iterations between two runs of
    // the scheduler (1 to kMaxDecodeSteps); both optional.
    static constexpr double kMaxDecodeSteps = 64;
    void schedulerOrder(ServingEngine& engine, const Json& e, const std::string& path) {
        if (auto s = sourced(e, path, "mixed_batches", false, true)) {
            if (s->value != 0.0 && s->value != 1.0)
                reader.error(JsonReader::join(path, "mixed_batches"),
                             "1 (decodes and prefills share an iteration) or 0, got " +
                                 formatNumber(s->value));
            engine.mixed_batches = *s;
        }
        if (auto s = sourced(e, path, "decode_steps", false)) {
            if (s->value != std::floor(s->value) || s->value < 1 || s->value > kMaxDecodeSteps)
                reader.error(JsonReader::join(path, "decode_steps"),
                             "a whole number of iterations from 1 to " + formatNumber(kMaxDecodeSteps) +
                                 ", got " + formatNumber(s->value));
            engine.decode_steps = *s;
        }
    }

    std::optional<ServingEngine> engine(const Json& e, const std::string& path) {
        if (!reader.expectObject(e, path))
            return std::nullopt;
        reader.rejectUnknownKeys(
            e, path,
            {"id", "name", "aliases", "memory_fraction", "fraction_of_free", "kv_block_tokens", "max_batch",
             "max_tokens_per_iteration", "chunked_prefill", "iteration_overhead_us", "layer_overhead_us",
             "allreduce_latency_us", "reserved_GB", "reserve_full_output", "custom_allreduce_pcie_max_gpus",
             "mixed_batches", "decode_steps", "harness_markers"});
        ServingEngine engine;
        engine.id = reader.text(e, path, "id").value_or("");
        engine.name = reader.text(e, path, "name").value_or("");
        engine.aliases = strings(e, path);
        engine.harness_markers = strings(e, path, "harness_markers");
        for (const auto& marker : engine.harness_markers)
            if (marker.size() < 4)
                reader.error(JsonReader::join(path, "harness_markers"),
                             "a marker of under 4 characters (\"" + marker + "\") would match too much");
        engine.fraction_of_free = reader.boolean(e, path, "fraction_of_free", false).value_or(false);
        take(engine.memory_fraction, e, path, "memory_fraction", true);
        take(engine.kv_block_tokens, e, path, "kv_block_tokens", true);
        take(engine.max_batch, e, path, "max_batch", true);
        take(engine.max_tokens_per_iteration, e, path, "max_tokens_per_iteration", true);
        if (auto s = sourced(e, path, "chunked_prefill", true, true))
            engine.chunked_prefill = *s;
        if (auto s = sourced(e, path, "reserve_full_output", false, true))
            engine.reserve_full_output = *s;
        schedulerOrder(engine, e, path);
        for (auto [into, key] : {std::pair{&engine.iteration_overhead_us, "iteration_overhead_us"},
                                 std::pair{&engine.layer_overhead_us, "layer_overhead_us"},
                                 std::pair{&engine.allreduce_latency_us, "allreduce_latency_us"},
                                 std::pair{&engine.reserved_GB, "reserved_GB"}})
            if (auto s = sourced(e, path, key, true, true))
                *into = *s;
        if (auto s = sourced(e, path, "custom_allreduce_pcie_max_gpus", false))
            engine.custom_allreduce_pcie_max_gpus = *s;
        if (engine.memory_fraction.value > 1.0)
            reader.error(JsonReader::join(path, "memory_fraction"),
                         "a fraction of memory, at most 1, got " +
                             formatNumber(engine.memory_fraction.value));
        return engine;
    }

    std::optional<StorageTier> storage(const Json& t, const std::string& path) {
        if (!reader.expectObject(t, path))
            return std::nullopt;
        reader.rejectUnknownKeys(t, path,
                                 {"id", "name", "read_GBps_per_node", "latency_ms", "aggregate_GBps"});
        StorageTier tier;
        tier.id = reader.text(t, path, "id").value_or("");
        tier.name = reader.text(t, path, "name").value_or("");
        auto bandwidth = sourced(t, path, "read_GBps_per_node", true);
        auto latency = sourced(t, path, "latency_ms", true);
        if (!bandwidth || !latency)
            return std::nullopt;
        tier.read_GBps_per_node = *bandwidth;
        tier.latency_ms = *latency;
        take(tier.aggregate_GBps, t, path, "aggregate_GBps", false);
        return tier;
    }

    // {"id", "name", "offers": [{"device", "instance", "devices_per_instance", "usd_per_instance_hour",
    // "region"}]}
    std::optional<Provider> provider(const Json& j, const std::string& path) {
        if (!reader.expectObject(j, path))
            return std::nullopt;
        reader.rejectUnknownKeys(j, path, {"id", "name", "offers"});
        Provider provider;
        provider.id = reader.text(j, path, "id").value_or("");
        provider.name = reader.text(j, path, "name").value_or("");
        const auto offers = j.find("offers");
        if (offers == j.end() || !offers->is_array() || offers->empty()) {
            reader.error(JsonReader::join(path, "offers"), "expected a non-empty array of offers");
            return std::nullopt;
        }
        for (std::size_t i = 0; i < offers->size(); ++i) {
            const Json& o = (*offers)[i];
            const std::string p = JsonReader::index(JsonReader::join(path, "offers"), i);
            if (!reader.expectObject(o, p))
                continue;
            reader.rejectUnknownKeys(
                o, p, {"device", "instance", "devices_per_instance", "usd_per_instance_hour", "region"});
            RentOffer offer;
            offer.device = reader.text(o, p, "device").value_or("");
            offer.instance = reader.text(o, p, "instance").value_or("");
            offer.devices_per_instance = reader.integer(o, p, "devices_per_instance").value_or(1);
            offer.region = reader.text(o, p, "region", false).value_or("");
            if (auto price = sourced(o, p, "usd_per_instance_hour", true))
                offer.usd_per_instance_hour = *price;
            provider.offers.push_back(std::move(offer));
        }
        return provider;
    }

    std::optional<FailureProfile> failureProfile(const Json& f, const std::string& path) {
        if (!reader.expectObject(f, path))
            return std::nullopt;
        reader.rejectUnknownKeys(f, path,
                                 {"id", "name", "devices", "fallback", "observed_devices",
                                  "observed_devices_per_node", "observed_days", "causes", "detection_s",
                                  "restart_s", "standby_restart_s"});
        FailureProfile profile;
        profile.id = reader.text(f, path, "id").value_or("");
        profile.name = reader.text(f, path, "name").value_or("");
        profile.devices = strings(f, path, "devices");
        profile.fallback = reader.boolean(f, path, "fallback", false).value_or(false);
        for (auto [into, key] :
             {std::pair{&profile.observed_devices, "observed_devices"},
              std::pair{&profile.observed_devices_per_node, "observed_devices_per_node"},
              std::pair{&profile.observed_days, "observed_days"},
              std::pair{&profile.detection_s, "detection_s"}, std::pair{&profile.restart_s, "restart_s"}})
            take(*into, f, path, key, true);
        take(profile.standby_restart_s, f, path, "standby_restart_s", false);
        const std::string causesPath = JsonReader::join(path, "causes");
        const auto causes = f.find("causes");
        if (causes == f.end() || !causes->is_array() || causes->empty()) {
            reader.error(causesPath, "expected a non-empty array of causes");
            return std::nullopt;
        }
        for (std::size_t i = 0; i < causes->size(); ++i) {
            const std::string p = JsonReader::index(causesPath, i);
            const Json& c = (*causes)[i];
            if (!reader.expectObject(c, p))
                continue;
            reader.rejectUnknownKeys(c, p, {"name", "per", "count", "spare_helps"});
            FailureCause cause;
            cause.name = reader.text(c, p, "name").value_or("");
            cause.per = reader.text(c, p, "per").value_or("");
            if (cause.per != "device" && cause.per != "node" && cause.per != "job")
                reader.error(JsonReader::join(p, "per"),
                             "expected \"device\", \"node\" or \"job\", got \"" + cause.per + "\"");
            if (auto n = sourced(c, p, "count", true, true))
                cause.count = *n;
            cause.spare_helps = reader.boolean(c, p, "spare_helps", false).value_or(cause.per != "job");
            profile.causes.push_back(std::move(cause));
        }
        return profile;
    }

    // The achieved fractions of peak and the collective library's latencies.
    void readEfficiency(Device& dev, const Json& d, const std::string& path) {
        const std::string effPath = JsonReader::join(path, "efficiency");
        if (auto it = d.find("efficiency"); it == d.end()) {
            reader.error(effPath, "missing required field");
        } else if (reader.expectObject(*it, effPath)) {
            reader.rejectUnknownKeys(
                *it, effPath,
                {"gemm", "gemm_half_gflop", "gemm_by_precision", "gemm_half_gflop_by_precision", "attention",
                 "attention_half_gflop", "attention_flash2", "attention_flash2_half_gflop", "memory",
                 "network", "nic", "kernel_overhead_us", "collective_base_us", "ring_step_scale_up_us",
                 "ring_step_network_us", "tree_step_scale_up_us", "tree_step_network_us",
                 "tree_bandwidth_fraction"});
            take(dev.efficiency.gemm, *it, effPath, "gemm", true);
            take(dev.efficiency.gemm_half_gflop, *it, effPath, "gemm_half_gflop", false);
            perPrecision(dev.efficiency.gemm_by_precision, *it, effPath, "gemm_by_precision");
            perPrecision(dev.efficiency.gemm_half_gflop_by_precision, *it, effPath,
                         "gemm_half_gflop_by_precision");
            for (const auto& [precision, f] : dev.efficiency.gemm_by_precision)
                if (f.value > 1.0)
                    reader.error(JsonReader::join(JsonReader::join(effPath, "gemm_by_precision"),
                                                  toString(precision).c_str()),
                                 "efficiencies are fractions of peak and must not exceed 1, got " +
                                     formatNumber(f.value));
            take(dev.efficiency.attention, *it, effPath, "attention", true);
            take(dev.efficiency.attention_half_gflop, *it, effPath, "attention_half_gflop", false);
            take(dev.efficiency.attention_flash2, *it, effPath, "attention_flash2", false);
            take(dev.efficiency.attention_flash2_half_gflop, *it, effPath, "attention_flash2_half_gflop",
                 false);
            if (dev.efficiency.attention_flash2_half_gflop.present() &&
                !dev.efficiency.attention_flash2.present())
                reader.error(JsonReader::join(effPath, "attention_flash2_half_gflop"),
                             "needs attention_flash2, the rate it is the half-size of");
            take(dev.efficiency.memory, *it, effPath, "memory", true);
            take(dev.efficiency.network, *it, effPath, "network", true);
            take(dev.efficiency.nic, *it, effPath, "nic", false);
            take(dev.efficiency.kernel_overhead_us, *it, effPath, "kernel_overhead_us", true);
            take(dev.efficiency.collective_base_us, *it, effPath, "collective_base_us", false);
            take(dev.efficiency.ring_step_scale_up_us, *it, effPath, "ring_step_scale_up_us", false);
            take(dev.efficiency.ring_step_network_us, *it, effPath, "ring_step_network_us", false);
            take(dev.efficiency.tree_step_scale_up_us, *it, effPath, "tree_step_scale_up_us", false);
            take(dev.efficiency.tree_step_network_us, *it, effPath, "tree_step_network_us", false);
            take(dev.efficiency.tree_bandwidth_fraction, *it, effPath, "tree_bandwidth_fraction", false);
            for (const auto* f :
                 {&dev.efficiency.gemm, &dev.efficiency.attention, &dev.efficiency.attention_flash2,
                  &dev.efficiency.memory, &dev.efficiency.network, &dev.efficiency.nic,
                  &dev.efficiency.tree_bandwidth_fraction})
                if (f->present() && f->value > 1.0)
                    reader.error(effPath, "efficiencies are fractions of peak and must not exceed 1, got " +
                                              formatNumber(f->value));
        }
    }

    // Id, name, vendor, kind, release and aliases.
    void readIdentity(Device& dev, const Json& d, const std::string& path) {
        dev.id = reader.text(d, path, "id").value_or("");
        dev.name = reader.text(d, path, "name").value_or("");
        dev.vendor = reader.text(d, path, "vendor").value_or("");
        dev.released = reader.text(d, path, "released", false).value_or("");
        const auto kind = reader.text(d, path, "kind").value_or("");
        if (kind == "gpu")
            dev.kind = DeviceKind::Gpu;
        else if (kind == "cpu")
            dev.kind = DeviceKind::Cpu;
        else if (kind == "accelerator")
            dev.kind = DeviceKind::Accelerator;
        else if (!kind.empty())
            reader.error(JsonReader::join(path, "kind"),
                         "expected gpu, cpu or accelerator, got \"" + kind + "\"");
        dev.aliases = strings(d, path);
    }

    // The optional list of strings `key` ("aliases": other names of an entry).
    std::vector<std::string> strings(const Json& d, const std::string& path, const char* key = "aliases") {
        std::vector<std::string> out;
        if (auto it = d.find(key); it != d.end()) {
            if (!it->is_array())
                reader.error(JsonReader::join(path, key), "expected an array of strings");
            else
                for (const auto& a : *it)
                    if (a.is_string())
                        out.push_back(a.get<std::string>());
                    else
                        reader.error(JsonReader::join(path, key), "expected an array of strings");
        }
        return out;
    }

    // The scale-up fabric (required but for CPUs) and the prices.
    void readFabricAndPrice(Device& dev, const Json& d, const std::string& path) {
        if (auto it = d.find("scale_up"); it != d.end()) {
            const std::string p = JsonReader::join(path, "scale_up");
            if (reader.expectObject(*it, p)) {
                reader.rejectUnknownKeys(*it, p, {"fabric", "bandwidth_GBps", "domain_size", "latency_us"});
                ScaleUpFabric f;
                f.fabric = reader.text(*it, p, "fabric").value_or("");
                take(f.bandwidth_GBps, *it, p, "bandwidth_GBps", true);
                take(f.domain_size, *it, p, "domain_size", true);
                take(f.latency_us, *it, p, "latency_us", true);
                dev.scale_up = f;
            }
        } else if (dev.kind != DeviceKind::Cpu) {
            reader.error(JsonReader::join(path, "scale_up"),
                         "missing required field (optional only for CPUs)");
        }
        readPrice(dev, d, path);
    }

    // {"bandwidth_GBps", "max_systems", "hop_latency_us"}: the device trains by weight streaming.
    void readWeightStreaming(Device& dev, const Json& d, const std::string& path) {
        const auto it = d.find("weight_streaming");
        if (it == d.end())
            return;
        const std::string p = JsonReader::join(path, "weight_streaming");
        if (!reader.expectObject(*it, p))
            return;
        reader.rejectUnknownKeys(*it, p, {"bandwidth_GBps", "max_systems", "hop_latency_us"});
        WeightStreaming streaming;
        take(streaming.bandwidth_GBps, *it, p, "bandwidth_GBps", true);
        take(streaming.max_systems, *it, p, "max_systems", true);
        take(streaming.hop_latency_us, *it, p, "hop_latency_us", true);
        dev.weight_streaming = streaming;
    }

    // {"exchange_TBps", "sync_us", ...}: the device computes in bulk-synchronous supersteps (models/bsp.h).
    void readBulkSynchronous(Device& dev, const Json& d, const std::string& path) {
        const auto it = d.find("bulk_synchronous");
        if (it == d.end())
            return;
        const std::string p = JsonReader::join(path, "bulk_synchronous");
        if (!reader.expectObject(*it, p))
            return;
        reader.rejectUnknownKeys(*it, p,
                                 {"exchange_TBps", "sync_us", "supersteps_per_layer", "code_GB",
                                  "streaming_memory_GB", "streaming_GBps"});
        BulkSynchronous bsp;
        take(bsp.exchange_TBps, *it, p, "exchange_TBps", true);
        take(bsp.sync_us, *it, p, "sync_us", true);
        take(bsp.supersteps_per_layer, *it, p, "supersteps_per_layer", true);
        take(bsp.code_GB, *it, p, "code_GB", true);
        take(bsp.streaming_memory_GB, *it, p, "streaming_memory_GB", true);
        take(bsp.streaming_GBps, *it, p, "streaming_GBps", true);
        if (dev.weight_streaming)
            reader.error(p, "a device either streams its weights or holds them (weight_streaming), not both");
        dev.bulk_synchronous = bsp;
    }

    // The purchase and rent prices, each a sourced number or the reason there is none.
    void readPrice(Device& dev, const Json& d, const std::string& path) {
        const std::string p = JsonReader::join(path, "price");
        const auto it = d.find("price");
        if (it == d.end()) {
            reader.error(p, "missing: give buy_usd or no_buy_price, and rent_usd_per_hour or no_rent_price");
            return;
        }
        if (!reader.expectObject(*it, p))
            return;
        reader.rejectUnknownKeys(*it, p, {"buy_usd", "rent_usd_per_hour", "no_buy_price", "no_rent_price"});
        take(dev.buy_usd, *it, p, "buy_usd", false);
        take(dev.rent_usd_per_hour, *it, p, "rent_usd_per_hour", false);
        dev.no_buy_price = reader.text(*it, p, "no_buy_price", false).value_or("");
        dev.no_rent_price = reader.text(*it, p, "no_rent_price", false).value_or("");
        const auto check = [&](bool priced, const std::string& reason, const std::string& price,
                               const std::string& noPrice) {
            if (priced && !reason.empty())
                reader.error(JsonReader::join(p, noPrice.c_str()),
                             "a device with " + price + " needs no reason for lacking one");
            if (!priced && reason.empty())
                reader.error(JsonReader::join(p, price.c_str()),
                             "missing: give " + price + " or " + noPrice + ", the reason there is none");
        };
        check(dev.buy_usd.present(), dev.no_buy_price, "buy_usd", "no_buy_price");
        check(dev.rent_usd_per_hour.present(), dev.no_rent_price, "rent_usd_per_hour", "no_rent_price");
    }

    std::optional<Device> device(const Json& d, const std::string& path) {
        if (!reader.expectObject(d, path))
            return std::nullopt;
        reader.rejectUnknownKeys(d, path,
                                 {"id",
                                  "aliases",
                                  "name",
                                  "vendor",
                                  "kind",
                                  "released",
                                  "peak_tflops",
                                  "memory_GB",
                                  "memory_bandwidth_TBps",
                                  "tdp_W",
                                  "idle_W",
                                  "scale_up",
                                  "nic_Gbps",
                                  "price",
                                  "efficiency",
                                  "compute_units",
                                  "host_link_GBps",
                                  "cores",
                                  "data_rates",
                                  "host",
                                  "lead_time_weeks",
                                  "min_power_limit_W",
                                  "memory_bound_W",
                                  "clock_power_exponent",
                                  "weight_streaming",
                                  "bulk_synchronous"});
        Device dev;
        device_path = path;
        announced.clear();
        readIdentity(dev, d, path);
        perPrecision(dev.peak_tflops, d, path, "peak_tflops", true);
        take(dev.memory_GB, d, path, "memory_GB", true);
        take(dev.memory_bandwidth_TBps, d, path, "memory_bandwidth_TBps", true);
        take(dev.tdp_W, d, path, "tdp_W", true);
        take(dev.idle_W, d, path, "idle_W", true);
        take(dev.nic_Gbps, d, path, "nic_Gbps", true);
        take(dev.compute_units, d, path, "compute_units", false);
        take(dev.host_link_GBps, d, path, "host_link_GBps", false);
        take(dev.lead_time_weeks, d, path, "lead_time_weeks", false);
        take(dev.min_power_limit_W, d, path, "min_power_limit_W", false);
        take(dev.memory_bound_W, d, path, "memory_bound_W", false);
        take(dev.clock_power_exponent, d, path, "clock_power_exponent", false);
        if (dev.compute_units.present() &&
            (dev.compute_units.value < 1.0 || dev.compute_units.value != std::floor(dev.compute_units.value)))
            reader.error(JsonReader::join(JsonReader::join(path, "compute_units"), "value"),
                         "expected a whole number of streaming multiprocessors, got " +
                             formatNumber(dev.compute_units.value));
        readFabricAndPrice(dev, d, path);
        readDataPipeline(dev, d, path);
        readEfficiency(dev, d, path);
        readWeightStreaming(dev, d, path);
        readBulkSynchronous(dev, d, path);
        device_path.clear();
        dev.announced_figures = std::move(announced);
        announced.clear();
        return dev;
    }
};

// A device's entry of an "accuracy" block, to attach once every device is loaded.
struct AccuracyEntry {
    std::string path, device;
    DeviceAccuracy accuracy;
};

// {"fidelity", "as_of", "command", "devices": {ID: {"runs", "too_fast", "median_error_pct",
// "p90_abs_error_pct", "worst_error_pct", "worst_run"}}}, as `choreo-sim accuracy` writes it.
void readAccuracy(JsonReader& reader, const Json& block, const std::string& fileName,
                  std::vector<AccuracyEntry>& out) {
    if (!reader.expectObject(block, "accuracy"))
        return;
    reader.rejectUnknownKeys(block, "accuracy", {"fidelity", "as_of", "command", "devices"});
    const auto fidelity = reader.text(block, "accuracy", "fidelity");
    const auto asOf = reader.text(block, "accuracy", "as_of");
    reader.text(block, "accuracy", "command");
    const auto devices = block.find("devices");
    if (devices == block.end() || !reader.expectObject(*devices, "accuracy.devices"))
        return;
    for (const auto& item : devices->items()) {
        const Json& entry = item.value();
        const std::string p = "accuracy.devices." + item.key();
        if (!reader.expectObject(entry, p))
            continue;
        reader.rejectUnknownKeys(
            entry, p,
            {"runs", "too_fast", "median_error_pct", "p90_abs_error_pct", "worst_error_pct", "worst_run"});
        DeviceAccuracy acc;
        acc.runs = static_cast<int>(reader.integer(entry, p, "runs").value_or(0));
        acc.too_fast = static_cast<int>(reader.integer(entry, p, "too_fast", 0).value_or(0));
        acc.median_error_pct = reader.signedNumber(entry, p, "median_error_pct").value_or(0);
        acc.p90_abs_error_pct = reader.number(entry, p, "p90_abs_error_pct", false).value_or(0);
        acc.worst_error_pct = reader.signedNumber(entry, p, "worst_error_pct").value_or(0);
        acc.worst_run = reader.text(entry, p, "worst_run").value_or("");
        acc.fidelity = fidelity.value_or("");
        acc.as_of = asOf.value_or("");
        if (acc.too_fast > acc.runs) {
            std::string message = std::to_string(acc.too_fast);
            message += " is more than the " + std::to_string(acc.runs) + " runs";
            reader.error(JsonReader::join(p, "too_fast"), message);
        }
        std::string where = fileName;
        where += ": " + p;
        out.push_back({where, item.key(), acc});
    }
}

} // namespace

namespace {

// The catalog folder's .json files in name order; empty (and an error) when there are none.
std::vector<std::filesystem::path> catalogFiles(const std::filesystem::path& directory, Diagnostics& errors) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    if (!std::filesystem::is_directory(directory, ec)) {
        errors.push_back({"catalog", "folder not found: " + directory.string()});
        return files;
    }
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (files.empty())
        errors.push_back({"catalog", "no .json files in " + directory.string()});
    return files;
}

// Reads the catalog's files into one catalog, remembering what is checked across files at the end: the
// sources cited, the accuracy entries, and every id defined.
class CatalogLoader {
public:
    explicit CatalogLoader(Catalog& catalog)
        : catalog_(catalog) {}

    void readFile(const Json& doc, const std::string& name, JsonReader& reader) {
        if (!reader.expectObject(doc, ""))
            return;
        reader.rejectUnknownKeys(doc, "",
                                 {"format", "sources", "devices", "accuracy", "storage", "serving_engines",
                                  "training_frameworks", "failure_profiles", "providers"});
        auto format = reader.text(doc, "", "format");
        if (format && *format != "choreo-catalog/1")
            reader.error("format", "expected \"choreo-catalog/1\", got \"" + *format + "\"");
        if (auto it = doc.find("sources"); it != doc.end() && reader.expectObject(*it, "sources"))
            readSources(*it, reader);
        if (auto it = doc.find("accuracy"); it != doc.end())
            readAccuracy(reader, *it, name, accuracies_);
        DeviceParser parser{reader, citations_, {}, {}};
        forEachEntry(doc, "storage", reader, [&](const Json& entry, const std::string& p) {
            if (auto tier = parser.storage(entry, p)) {
                define("storage:" + tier->id, p, "storage tier \"" + tier->id + "\" is defined twice",
                       reader);
                catalog_.addStorage(std::move(*tier));
            }
        });
        forEachEntry(doc, "serving_engines", reader, [&](const Json& entry, const std::string& p) {
            if (auto engine = parser.engine(entry, p)) {
                define("engine:" + engine->id, p, "serving engine \"" + engine->id + "\" is defined twice",
                       reader);
                catalog_.addEngine(std::move(*engine));
            }
        });
        forEachEntry(doc, "training_frameworks", reader, [&](const Json& entry, const std::string& p) {
            if (auto profile = readFrameworkProfile(reader, entry, p, citations_)) {
                define("framework:" + profile->id, p,
                       "framework profile \"" + profile->id + "\" is defined twice", reader);
                catalog_.addFrameworkProfile(std::move(*profile));
            }
        });
        forEachEntry(doc, "failure_profiles", reader, [&](const Json& entry, const std::string& p) {
            if (auto profile = parser.failureProfile(entry, p)) {
                define("failures:" + profile->id, p,
                       "failure profile \"" + profile->id + "\" is defined twice", reader);
                catalog_.addFailureProfile(std::move(*profile));
            }
        });
        forEachEntry(doc, "providers", reader, [&](const Json& entry, const std::string& p) {
            if (auto provider = parser.provider(entry, p)) {
                define("provider:" + provider->id, p, "provider \"" + provider->id + "\" is defined twice",
                       reader);
                catalog_.addProvider(std::move(*provider));
            }
        });
        forEachEntry(doc, "devices", reader, [&](const Json& entry, const std::string& p) {
            auto dev = parser.device(entry, p);
            if (!dev)
                return;
            define(dev->id, p, "id or alias \"" + dev->id + "\" is defined twice", reader);
            for (const auto& alias : dev->aliases)
                define(alias, p, "id or alias \"" + alias + "\" is defined twice", reader);
            catalog_.addDevice(std::move(*dev));
        });
    }

    // Citations of unknown sources, host CPUs that are not catalog CPUs, accuracy of unknown devices.
    void checkAcrossFiles(Diagnostics& errors) {
        for (const auto& [path, key] : citations_)
            if (!catalog_.source(key))
                errors.push_back({path, "source \"" + key + "\" is not in any catalog file's sources"});
        for (const auto& device : catalog_.devices())
            if (device.host) {
                const Device* cpu = catalog_.find(device.host->cpu);
                if (!cpu || cpu->kind != DeviceKind::Cpu)
                    errors.push_back(
                        {device.id + ".host.cpu", "\"" + device.host->cpu + "\" is not a catalog CPU"});
            }
        checkFrameworkProfiles(catalog_, errors);
        checkFailureProfiles(catalog_, errors);
        checkOffers(errors);
        for (auto& entry : accuracies_) {
            auto* device = catalog_.findMutable(entry.device);
            if (!device)
                errors.push_back({entry.path, "unknown device (known: " + catalog_.idList() + ")"});
            else if (device->accuracy)
                errors.push_back({entry.path, "the device's accuracy is given twice"});
            else
                device->accuracy = std::move(entry.accuracy);
        }
    }

private:
    // Each offer names a catalog device by its id, once per provider.
    void checkOffers(Diagnostics& errors) const {
        for (const auto& provider : catalog_.providers())
            for (std::size_t i = 0; i < provider.offers.size(); ++i) {
                const auto& offer = provider.offers[i];
                const std::string path = provider.id + ".offers[" + std::to_string(i) + "].device";
                const Device* device = catalog_.find(offer.device);
                if (!device || device->id != offer.device)
                    errors.push_back({path, "\"" + offer.device + "\" is not a catalog device id" +
                                                (device ? " (it is " + device->id + "'s alias)" : "")});
                else if (provider.offer(offer.device) != &offer)
                    errors.push_back({path, provider.id + " offers " + offer.device + " twice"});
            }
    }

    void readSources(const Json& sources, JsonReader& reader) {
        for (const auto& [key, value] : sources.items()) {
            const std::string p = "sources." + key;
            if (!reader.expectObject(value, p))
                continue;
            reader.rejectUnknownKeys(value, p, {"title", "url", "as_of"});
            catalog_.addSource({key, reader.text(value, p, "title").value_or(""),
                                reader.text(value, p, "url").value_or(""),
                                reader.text(value, p, "as_of").value_or("")});
        }
    }
    // Calls `read` with each entry of the array `key`, when the document has one.
    template <typename Read>
    static void forEachEntry(const Json& doc, const char* key, JsonReader& reader, Read read) {
        auto it = doc.find(key);
        if (it == doc.end())
            return;
        if (!it->is_array()) {
            reader.error(key, "expected an array, got " + JsonReader::typeName(*it));
            return;
        }
        for (std::size_t i = 0; i < it->size(); ++i)
            read((*it)[i], JsonReader::index(key, i));
    }
    void define(const std::string& id, const std::string& path, const std::string& twice,
                JsonReader& reader) {
        if (!ids_.insert(id).second)
            reader.error(path, twice);
    }

    Catalog& catalog_;
    std::vector<std::pair<std::string, std::string>> citations_;
    std::vector<AccuracyEntry> accuracies_;
    std::set<std::string> ids_;
};

} // namespace

std::optional<Catalog> Catalog::load(const std::filesystem::path& directory, Diagnostics& errors) {
    const auto files = catalogFiles(directory, errors);
    if (files.empty())
        return std::nullopt;
    Catalog catalog;
    CatalogLoader loader(catalog);
    for (const auto& file : files) {
        const std::string name = file.filename().string();
        std::ifstream in(file);
        std::stringstream buffer;
        buffer << in.rdbuf();
        Json doc;
        try {
            doc = Json::parse(buffer.str());
        } catch (const Json::exception& e) { // parse_error, or out_of_range for a number too large
            errors.push_back({name, "malformed JSON: " + jsonErrorText(e)});
            continue;
        }
        Diagnostics local;
        JsonReader reader(local);
        loader.readFile(doc, name, reader);
        for (auto& d : local)
            errors.push_back({name + ": " + d.path, d.message});
    }
    loader.checkAcrossFiles(errors);
    if (!errors.empty())
        return std::nullopt;
    return catalog;
}

bool ServingEngine::answersTo(const std::string& key) const {
    auto lower = [](std::string text) {
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return text;
    };
    const std::string wanted = lower(key);
    if (lower(id) == wanted)
        return true;
    return std::any_of(aliases.begin(), aliases.end(), [&](const auto& a) { return lower(a) == wanted; });
}

const ServingEngine* Catalog::engine(const std::string& id) const {
    for (const auto& e : engines_)
        if (e.answersTo(id))
            return &e;
    return nullptr;
}

namespace {

// The element of `items` whose string member `key` is `id`, or nullptr.
template <typename T>
const T* findByKey(const std::vector<T>& items, std::string T::*key, const std::string& id) {
    for (const auto& item : items)
        if (item.*key == id)
            return &item;
    return nullptr;
}

// The string members `key` of `items`, comma-separated, for messages.
template <typename T>
std::string keyList(const std::vector<T>& items, std::string T::*key) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + item.*key;
    return out;
}

} // namespace

const RentOffer* Provider::offer(const std::string& deviceId) const {
    return findByKey(offers, &RentOffer::device, deviceId);
}

std::string Provider::deviceList() const {
    return keyList(offers, &RentOffer::device);
}

const Provider* Catalog::provider(const std::string& id) const {
    return findByKey(providers_, &Provider::id, id);
}

std::string Catalog::providerList() const {
    return keyList(providers_, &Provider::id);
}

const StorageTier* Catalog::storage(const std::string& id) const {
    return findByKey(storage_, &StorageTier::id, id);
}

const StorageTier* Catalog::storage(const std::string& id, const std::string& path,
                                    Diagnostics& errors) const {
    if (const StorageTier* tier = storage(id))
        return tier;
    std::string known;
    for (const auto& tier : storage_)
        known += (known.empty() ? "" : ", ") + tier.id;
    errors.push_back({path, "unknown storage tier \"" + id + "\" (known: " + known + ")"});
    return nullptr;
}

std::string describeAccuracy(const DeviceAccuracy& a) {
    auto signedError = [](double pct) {
        char text[48];
        std::snprintf(text, sizeof text, "%.1f %%%s", std::fabs(pct),
                      pct < 0.0 ? " too fast" : (pct > 0.0 ? " too slow" : ""));
        return std::string(text);
    };
    char text[512];
    std::snprintf(
        text, sizeof text,
        "median %s on %d published run%s (%d of them too fast), 90 %% within %.1f %%, the worst %s (%s); "
        "%s fidelity, %s",
        signedError(a.median_error_pct).c_str(), a.runs, a.runs == 1 ? "" : "s", a.too_fast,
        a.p90_abs_error_pct, signedError(a.worst_error_pct).c_str(), a.worst_run.c_str(), a.fidelity.c_str(),
        a.as_of.c_str());
    return text;
}

std::string accuracyHeadline(const std::string& sentence) {
    const auto end = sentence.rfind("median ", 0) == 0 ? sentence.find(" on ") : std::string::npos;
    return end == std::string::npos ? sentence : sentence.substr(0, end);
}

Device* Catalog::findMutable(const std::string& id) {
    return const_cast<Device*>(std::as_const(*this).find(id)); // the same lookup; this catalog is not const
}

bool Device::answersTo(const std::string& key) const {
    return id == key || std::find(aliases.begin(), aliases.end(), key) != aliases.end();
}

const Device* Catalog::find(const std::string& id) const {
    const auto it =
        std::find_if(devices_.begin(), devices_.end(), [&](const Device& d) { return d.answersTo(id); });
    return it == devices_.end() ? nullptr : &*it;
}

const Source* Catalog::source(const std::string& key) const {
    auto it = sources_.find(key);
    return it == sources_.end() ? nullptr : &it->second;
}

std::string Catalog::idList() const {
    return keyList(devices_, &Device::id);
}

std::filesystem::path locateAssets(const std::filesystem::path& executable) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* env = std::getenv("CHOREO_ASSETS"); env && *env)
        return fs::path(env);
    const fs::path dir = fs::weakly_canonical(executable, ec).parent_path();
    for (const fs::path& candidate :
         {dir / "assets", dir.parent_path() / "assets", dir.parent_path() / "share" / "choreo" / "assets"})
        if (fs::is_directory(candidate / "catalog", ec))
            return candidate;
#ifdef CHOREO_SOURCE_ASSETS_DIR
    return fs::path(CHOREO_SOURCE_ASSETS_DIR);
#else
    return dir / "assets";
#endif
}

} // namespace choreo::models
