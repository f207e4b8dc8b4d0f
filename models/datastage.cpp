#include "models/datastage.h"

#include "models/jsonreader.h"
#include "models/resolved.h"

#include <algorithm>

namespace choreo::models {

namespace {

// The per-core rate of the stage's modality on `cpu` and what it counts, or an absent Sourced.
std::pair<const Sourced*, const char*> itemRate(const Device& cpu, Modality modality) {
    switch (modality) {
    case Modality::Image:
        return {&cpu.data_rates.images_per_s, "images_per_s"};
    case Modality::Video:
        return {&cpu.data_rates.video_frames_per_s, "video_frames_per_s"};
    case Modality::Audio:
        return {&cpu.data_rates.audio_seconds_per_s, "audio_seconds_per_s"};
    case Modality::Text:
        break;
    }
    return {nullptr, ""};
}

// Which CPUs run the stage: its pool, or the training nodes' hosts. Fills cpu, cpus, nodes and pool.
bool placeStage(const std::vector<ResolvedPool>& pools, std::size_t trainingPool, const Catalog& catalog,
                ResolvedDataStage& out, Diagnostics& errors) {
    const std::string path = dataStagePath(out.stage) + ".pool";
    if (out.stage.pool) {
        out.pool = findStagePool(pools, *out.stage.pool, trainingPool, true, path,
                                 "the data stage runs on a pool of CPUs", errors);
        if (!out.pool)
            return false;
        const ResolvedPool& rp = pools[*out.pool];
        out.cpu = rp.device;
        out.cpus = static_cast<double>(rp.pool.count);
        out.nodes = static_cast<double>(rp.pool.count) / static_cast<double>(rp.pool.devices_per_node);
        return true;
    }
    const ResolvedPool& training = pools[trainingPool];
    if (!training.device->host) {
        errors.push_back({path, "the catalog does not say which CPUs sit beside " + training.device->id +
                                    "; add a pool of CPUs and name it here"});
        return false;
    }
    out.cpu = catalog.find(training.device->host->cpu);
    out.cpus = static_cast<double>(training.pool.count) * training.device->host->cpus_per_device.value;
    out.nodes =
        static_cast<double>(training.pool.count) / static_cast<double>(training.pool.devices_per_node);
    return out.cpu != nullptr;
}

// Per-sample work and bytes: core-seconds of preprocessing, stored and delivered bytes.
bool sizeSamples(const Scenario& s, ResolvedDataStage& out, Diagnostics& errors) {
    const DataStage& d = out.stage;
    const std::string path = dataStagePath(d);
    const Device& cpu = *out.cpu;
    const bool text = d.modality == Modality::Text;
    out.text_tokens_per_sample =
        static_cast<double>(d.text_tokens_per_sample.value_or(text ? s.workload.model.seq_len : 0));
    const std::size_t before = errors.size();
    if (!cpu.cores.present() || cpu.cores.value <= 0.0)
        errors.push_back({path + ".pool", "the catalog has no core count for " + cpu.id});
    if (out.text_tokens_per_sample > 0.0) {
        if (!cpu.data_rates.text_tokens_per_s.present())
            errors.push_back({path + ".modality",
                              "the catalog has no tokenisation rate (text_tokens_per_s) for " + cpu.id});
        else
            out.core_seconds_per_sample +=
                out.text_tokens_per_sample / cpu.data_rates.text_tokens_per_s.value;
    }
    const double pixels = 3.0 * static_cast<double>(d.image_px) * static_cast<double>(d.image_px);
    out.delivered_bytes_per_sample = out.text_tokens_per_sample * kTokenIdBytes;
    if (!text) {
        const auto [rate, name] = itemRate(cpu, d.modality);
        if (!rate->present())
            errors.push_back({path + ".modality", "the catalog has no " + toString(d.modality) + " rate (" +
                                                      name + ") for " + cpu.id});
        else
            out.core_seconds_per_sample += d.items_per_sample / rate->value;
        out.delivered_bytes_per_sample +=
            d.items_per_sample * (d.modality == Modality::Audio ? kAudioFeatureBytesPerSecond : pixels);
    }
    if (d.stored_bytes_per_sample)
        out.stored_bytes_per_sample = *d.stored_bytes_per_sample;
    else if (text)
        out.stored_bytes_per_sample = out.text_tokens_per_sample * kTextBytesPerToken;
    else if (d.modality == Modality::Image)
        out.stored_bytes_per_sample =
            d.items_per_sample * kImageNetJpegBytes + out.text_tokens_per_sample * kTextBytesPerToken;
    else
        errors.push_back({path + ".stored_bytes_per_sample",
                          "needed for " + toString(d.modality) + " (no typical size to assume)"});
    return errors.size() == before;
}

} // namespace

double DataStageTimes::stage_s() const {
    return std::max({read_s, preprocess_s, deliver_s, span_s});
}

std::string DataStageTimes::limit() const {
    if (preprocess_s >= read_s && preprocess_s >= deliver_s)
        return loader_bound ? "data loaders" : "preprocessing";
    return read_s >= deliver_s ? "storage reads" : "delivery";
}

std::string dataStagePath(const DataStage& stage) {
    return "workload.stages[" + std::to_string(stage.stage_index) + "]";
}

double storageReadBps(const ResolvedDataStage& data) {
    const double tierBps = data.storage->bandwidthBps(data.nodes);
    return data.pool_nic_Bps > 0.0 ? std::min(tierBps, data.pool_nic_Bps) : tierBps;
}

double cpuBusySeconds(const ResolvedDataStage& data, double samples) {
    return samples * data.core_seconds_per_sample / (data.cpus * data.cpu->cores.value);
}

DataStageTimes dataStageTimes(const ResolvedDataStage& data, std::int64_t global_batch) {
    const auto samples = static_cast<double>(global_batch);
    DataStageTimes t;
    const double readBps = storageReadBps(data);
    // The batch's reads are issued together ahead of need: bandwidth-bound, but never sooner than one
    // request.
    t.read_s =
        std::max(samples * data.stored_bytes_per_sample / readBps, data.storage->latency_ms.value / 1e3);
    t.preprocess_s = cpuBusySeconds(data, samples);
    if (data.stage.loader_samples_per_s && data.loaders > 0.0) {
        const double handedOver_s = samples / (data.loaders * *data.stage.loader_samples_per_s);
        t.loader_bound = handedOver_s > t.preprocess_s;
        t.preprocess_s = std::max(t.preprocess_s, handedOver_s);
    }
    t.samples = samples;
    t.delivered_bytes = samples * data.delivered_bytes_per_sample;
    if (data.delivery_Bps > 0.0)
        t.deliver_s = t.delivered_bytes / data.delivery_Bps;
    return t;
}

std::optional<ResolvedDataStage> resolveDataStage(const Scenario& s, const std::vector<ResolvedPool>& pools,
                                                  std::size_t trainingPool, const Catalog& catalog,
                                                  Diagnostics& errors) {
    ResolvedDataStage out;
    out.stage = *s.workload.data;
    const std::string path = dataStagePath(out.stage);
    out.storage = catalog.storage(out.stage.storage, path + ".storage", errors);
    if (!placeStage(pools, trainingPool, catalog, out, errors) || !sizeSamples(s, out, errors) ||
        !out.storage)
        return std::nullopt;
    out.loaders = static_cast<double>(pools[trainingPool].pool.count);
    if (out.pool) {
        // Prepared batches cross the network: the CPU pool's NICs and the training pool's, whichever carry
        // less, at their achieved fraction of line rate. The CPU pool sits on the spine, so behind
        // oversubscribed leaves the batches share the leaves' uplinks.
        const ResolvedPool& cpus = pools[*out.pool];
        const ResolvedPool& training = pools[trainingPool];
        const double cpuBps = static_cast<double>(cpus.pool.count) * cpus.device->nic_Gbps.value * 1e9 / 8.0 *
                              cpus.device->efficiency.nicFraction();
        const double trainingBps = static_cast<double>(training.pool.count) *
                                   linkRates(s.cluster.network, *training.device).nic_Bps *
                                   training.device->efficiency.nicFraction() * training.off_leaf_share;
        out.delivery_Bps = std::min(cpuBps, trainingBps);
        out.pool_nic_Bps = cpuBps;
    }
    // The prefetch queue holds prepared batches in the CPUs' memory.
    const double queueBytesPerCpu = static_cast<double>(out.stage.prefetch_batches) *
                                    static_cast<double>(s.workload.global_batch) *
                                    out.delivered_bytes_per_sample / out.cpus;
    if (queueBytesPerCpu > out.cpu->memory_GB.value * 1e9) {
        errors.push_back({path + ".prefetch_batches",
                          std::to_string(out.stage.prefetch_batches) + " prepared batches need " +
                              formatNumber(queueBytesPerCpu / 1e9) + " GB on each " + out.cpu->id +
                              ", which has " + formatNumber(out.cpu->memory_GB.value) + " GB"});
        return std::nullopt;
    }
    return out;
}

} // namespace choreo::models
