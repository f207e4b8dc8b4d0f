#include "models/offload.h"

#include "models/jsonreader.h"
#include "models/memory.h"
#include "models/resolved.h"
#include "models/stepcost.h"
#include "models/transformer.h"

#include <algorithm>

namespace choreo::models {

namespace {

// One host-link copy's fixed cost: the launch and DMA set-up of a pinned copy (CHOREO-DEFAULT, assumed:
// a few microseconds, as a kernel launch).
constexpr double kHostCopyLatencyS = 5e-6;
// Switch hops between two pools under one fat tree: leaf, spine, leaf.
constexpr double kInterPoolHops = 3.0;
// Adam's arithmetic per parameter (moments, bias correction, square root, division, weight decay):
// about 10 FLOP, at fp32.
constexpr double kAdamFlopsPerParameter = 10.0;
// Runtime, communication buffers and workspace on an expert-pool device (as memory.cpp's allowance).
constexpr double kExpertPoolBuffersGB = 3.0;

double trainingDevices(const std::vector<ResolvedPool>& pools, std::size_t trainingPool) {
    return static_cast<double>(pools[trainingPool].pool.count);
}

// Bytes per parameter the optimizer step reads and writes: fp32 master (or its 16-bit remainders and the
// 16-bit weights), Adam's m and v, the gradient, and the new 16-bit weights.
double adamTrafficBytes(const Workload& w) {
    const double state = w.master_weights == MasterWeights::Remainders ? 16.0 + 4.0 + 2.0 : 24.0;
    return state + gradientReduceBytes(w) + activationBytes(w.sixteenBitPrecision());
}

double routedExpertParameters(const Workload& w) {
    return static_cast<double>(w.model.moeLayers()) * countParameters(w.model).experts_per_layer;
}

// The achieved memory bandwidth of `count` devices together.
double achievedMemoryBps(const Device& device, double count) {
    return device.memory_bandwidth_TBps.value * 1e12 * device.efficiency.memory.value * count;
}

// Adam over `params` parameters on `cpus` CPUs: their memory traffic at the achieved bandwidth, or the
// arithmetic if that is slower.
double adamSecondsOnCpus(const Device& cpu, double cpus, double params, const Workload& w) {
    const double memoryBps = achievedMemoryBps(cpu, cpus);
    const double flops = cpu.peakFlops(Precision::Fp32).value_or(0.0) * cpu.efficiency.gemm.value * cpus;
    return std::max(params * adamTrafficBytes(w) / memoryBps,
                    flops > 0.0 ? params * kAdamFlopsPerParameter / flops : 0.0);
}

// The devices of the first pipeline stage: the ones that look tokens up in the embedding table.
double firstStageDevices(const Workload& w) {
    return static_cast<double>(w.parallel.tp * w.parallel.dp * w.parallel.cp);
}

double embeddingParameters(const Workload& w) {
    return countParameters(w.model).embedding;
}

// The parameters the optimizer updates on one device of pipeline stage `stage`: its shard under ZeRO.
double updatedParameters(const Workload& w, std::int64_t stage) {
    const double params = parametersPerDevice(w, stage);
    return w.parallel.zero >= 1 ? shardedParameters(w, params, expertParametersPerDevice(w, stage)) : params;
}

// The link from a training device to another pool over the network: its share of the narrower side, its
// own NIC past its leaf's uplinks (which all its leaf's devices are taken to share) or the other pool's
// NICs. `talking` is how many training devices share the other pool's NICs (all of them unless given).
void overNetwork(const Scenario& s, const std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                 ResolvedOffload& out, double talking = 0.0) {
    const ResolvedPool& training = pools[trainingPool];
    const ResolvedPool& other = pools[*out.pool];
    const LinkRates rates = linkRates(s.cluster.network, *training.device);
    const double trainingBps =
        rates.nic_Bps * training.device->efficiency.nicFraction() * training.off_leaf_share;
    out.pool_nic_Bps = static_cast<double>(other.pool.count) * other.device->nic_Gbps.value * 1e9 / 8.0 *
                       other.device->efficiency.nicFraction();
    out.link_Bps = std::min(
        trainingBps, out.pool_nic_Bps / (talking > 0.0 ? talking : trainingDevices(pools, trainingPool)));
    out.link_latency_s = kInterPoolHops * rates.switch_latency_s;
    out.link = "scale-out network";
}

// Places `out` on the pool its stage names (of CPUs when `cpus`), reached over the network: its device, how
// many, and the link (`talking` as overNetwork's). False with an error naming `path` when that pool cannot
// be.
bool onNamedPool(const Scenario& s, const std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                 const std::string& path, bool cpus, const std::string& needs, ResolvedOffload& out,
                 Diagnostics& errors, double talking = 0.0) {
    out.pool = findStagePool(pools, *out.stage.pool, trainingPool, cpus, path, needs, errors);
    if (!out.pool)
        return false;
    const ResolvedPool& rp = pools[*out.pool];
    out.device = rp.device;
    out.devices = static_cast<double>(rp.pool.count);
    overNetwork(s, pools, trainingPool, out, talking);
    return true;
}

bool placeExperts(const Scenario& s, const std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                  ResolvedOffload& out, Diagnostics& errors) {
    const Workload& w = s.workload;
    const std::string path = offloadStagePath(out.stage);
    const std::size_t before = errors.size();
    if (!w.model.moe || w.model.moeLayers() <= 0)
        errors.push_back({path + ".target", "workload.model has no routed experts to offload"});
    if (w.parallel.ep != 1)
        errors.push_back(
            {"workload.parallel.ep", "must be 1 when the experts are offloaded (their pool holds "
                                     "them all), got " +
                                         std::to_string(w.parallel.ep)});
    if (w.overlap.ep_comm)
        errors.push_back({"workload.overlap.ep_comm",
                          "the combined 1F1B schedule overlaps expert-parallel all-to-alls inside the "
                          "training pool; offloaded experts have none"});
    if (!out.stage.pool) {
        errors.push_back({path + ".pool", "missing: name the accelerator pool that runs the experts"});
        return false;
    }
    if (!onNamedPool(s, pools, trainingPool, path + ".pool", false,
                     "experts run on a pool of other accelerators", out, errors))
        return false;
    const ResolvedPool& rp = pools[*out.pool];
    if (!rp.device->peakFlops(w.precision))
        errors.push_back({path + ".pool", rp.device->id + " has no " + toString(w.precision) +
                                              " rate in the catalog, so it cannot run the experts"});
    if (errors.size() != before)
        return false;
    // Every routed expert's weights, gradients and optimizer states live on the expert pool.
    const auto bytes = trainingStateBytes(w);
    const double perDeviceGB =
        routedExpertParameters(w) / out.devices * (bytes.weights + bytes.gradients + bytes.optimizer) / 1e9 +
        kExpertPoolBuffersGB;
    if (perDeviceGB > rp.device->memory_GB.value) {
        errors.push_back({path + ".pool", "the routed experts need " + formatNumber(perDeviceGB) +
                                              " GB on each " + rp.device->id + " of \"" + rp.pool.name +
                                              "\", which has " + formatNumber(rp.device->memory_GB.value) +
                                              " GB; add devices to the pool"});
        return false;
    }
    return true;
}

bool placeOptimizer(const Scenario& s, const std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                    const Catalog& catalog, ResolvedOffload& out, Diagnostics& errors) {
    const std::string path = offloadStagePath(out.stage) + ".pool";
    const ResolvedPool& training = pools[trainingPool];
    if (out.stage.pool)
        return onNamedPool(s, pools, trainingPool, path, true, "the optimizer is offloaded to a pool of CPUs",
                           out, errors);
    const Device& dev = *training.device;
    if (!dev.host || !dev.host_link_GBps.present() || dev.host_link_GBps.value <= 0.0) {
        errors.push_back({path, "the catalog does not give " + dev.id +
                                    "'s host CPUs and host link; add a pool of CPUs and name it here"});
        return false;
    }
    out.device = catalog.find(dev.host->cpu);
    out.devices = trainingDevices(pools, trainingPool) * dev.host->cpus_per_device.value;
    out.link_Bps = dev.host_link_GBps.value * 1e9;
    out.link_latency_s = kHostCopyLatencyS;
    out.link = "host link";
    return out.device != nullptr;
}

bool placeEmbeddings(const Scenario& s, const std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                     ResolvedOffload& out, Diagnostics& errors) {
    const Workload& w = s.workload;
    const std::string path = offloadStagePath(out.stage);
    if (w.model.tied_embeddings) {
        errors.push_back({path + ".target", "workload.model.tied_embeddings is on: the output layer uses the "
                                            "embedding table on the training devices; untie them to offload "
                                            "the table"});
        return false;
    }
    if (!out.stage.pool) {
        errors.push_back({path + ".pool", "missing: name the pool of CPUs that holds the embedding table"});
        return false;
    }
    if (!onNamedPool(s, pools, trainingPool, path + ".pool", true,
                     "embedding tables are held by a pool of CPUs", out, errors, firstStageDevices(w)))
        return false;
    const ResolvedPool& rp = pools[*out.pool];
    // The table with its gradients and Adam states, once over the pool.
    const auto bytes = trainingStateBytes(w);
    const double perCpuGB =
        embeddingParameters(w) * (bytes.weights + bytes.gradients + bytes.optimizer) / out.devices / 1e9;
    if (perCpuGB <= rp.device->memory_GB.value)
        return true;
    errors.push_back(
        {path + ".pool", "the embedding table and its optimizer states need " + formatNumber(perCpuGB) +
                             " GB on each " + rp.device->id + " of \"" + rp.pool.name + "\", which has " +
                             formatNumber(rp.device->memory_GB.value) + " GB; add CPUs to the pool"});
    return false;
}

// The optimizer's states and fp32 gradients of the most loaded training device, in the CPUs' memory.
bool optimizerFits(const Workload& w, const ResolvedOffload& out, double training, Diagnostics& errors) {
    const auto bytes = trainingStateBytes(w);
    double updated = 0.0;
    for (std::int64_t stage = 0; stage < w.parallel.pp; ++stage)
        updated = std::max(updated, updatedParameters(w, stage));
    const double perCpuGB = updated * (bytes.optimizer + bytes.gradients) * training / out.devices / 1e9;
    if (perCpuGB <= out.device->memory_GB.value)
        return true;
    errors.push_back({offloadStagePath(out.stage), "the optimizer states need " + formatNumber(perCpuGB) +
                                                       " GB on each " + out.device->id + ", which has " +
                                                       formatNumber(out.device->memory_GB.value) + " GB"});
    return false;
}

} // namespace

std::string offloadStagePath(const OffloadStage& stage) {
    return "workload.stages[" + std::to_string(stage.stage_index) + "]";
}

ExpertWave expertWave(const ResolvedOffload& experts, const Workload& w) {
    ExpertWave wave;
    if (!w.model.moe || experts.devices <= 0.0)
        return wave;
    const MoeShape& moe = *w.model.moe;
    const double tp = static_cast<double>(w.parallel.tp);
    const double tokens = static_cast<double>(w.micro_batch) * static_cast<double>(w.model.seq_len) /
                          static_cast<double>(w.parallel.cp);
    const double topK = static_cast<double>(moe.top_k), hidden = static_cast<double>(w.model.hidden);
    // The tensor ranks split the tokens they send (each its sequence-parallel share).
    wave.send_bytes = tokens * topK * hidden * activationBytes(w.sixteenBitPrecision()) / tp;
    wave.transfer_s = wave.send_bytes / experts.link_Bps + experts.link_latency_s;
    // The expert pool serves every training device's tokens of this layer at once, each expert as one GEMM
    // on the devices that hold it (several experts a device, or an expert's matrices split over several).
    const double expertCount = static_cast<double>(moe.experts);
    const double pairs = experts.training_devices * tokens * topK / tp;
    const double split = std::max(1.0, experts.devices / expertCount);
    const double local = expertCount * split / experts.devices;
    const double perExpert = pairs / expertCount;
    const double ffn = static_cast<double>(moe.expert_ffn_hidden) / split;
    const double up = w.model.ffn_gated ? 2.0 : 1.0;
    wave.compute_s = local * (gemmTime(*experts.device, w.precision, perExpert, up * ffn, hidden) +
                              gemmTime(*experts.device, w.precision, perExpert, hidden, ffn));
    return wave;
}

OptimizerOffloadTimes optimizerOffloadTimes(const ResolvedOffload& optimizer, const Workload& w,
                                            double updatedParams) {
    OptimizerOffloadTimes t;
    t.gradients_s = updatedParams * gradientReduceBytes(w) / optimizer.link_Bps + optimizer.link_latency_s;
    t.weights_s = updatedParams * activationBytes(w.sixteenBitPrecision()) / optimizer.link_Bps +
                  optimizer.link_latency_s;
    // The CPUs serving one training device: devices / training devices of them (half a Grace per B200).
    const double cpus = optimizer.devices / std::max(1.0, optimizer.training_devices);
    t.update_s = adamSecondsOnCpus(*optimizer.device, cpus, updatedParams, w);
    return t;
}

EmbeddingTraffic embeddingTraffic(const ResolvedOffload& embeddings, const Workload& w) {
    EmbeddingTraffic t;
    if (embeddings.devices <= 0.0 || embeddings.link_Bps <= 0.0)
        return t;
    const double act = activationBytes(w.sixteenBitPrecision());
    const double hidden = static_cast<double>(w.model.hidden);
    const double rows = static_cast<double>(w.micro_batch) * static_cast<double>(w.model.seq_len) /
                        static_cast<double>(w.parallel.cp * w.parallel.tp);
    t.first_stage_devices = firstStageDevices(w);
    t.rows_bytes = rows * hidden * act;
    t.transfer_s = t.rows_bytes / embeddings.link_Bps + embeddings.link_latency_s;
    // Per row the pool reads the table's and writes the send buffer's (2 x 2 B), then reads the gradient
    // (2 B) and adds it into the fp32 gradient (4 B read, 4 B written).
    const Device& cpu = *embeddings.device;
    t.pool_work_s = t.first_stage_devices * rows * hidden * (3.0 * act + 8.0) /
                    achievedMemoryBps(cpu, embeddings.devices);
    t.update_s = adamSecondsOnCpus(cpu, embeddings.devices, embeddingParameters(w), w);
    return t;
}

double expertPoolOptimizerSeconds(const ResolvedOffload& experts, const Workload& w) {
    const Device& dev = *experts.device;
    const double perDevice = routedExpertParameters(w) / experts.devices;
    return perDevice * adamTrafficBytes(w) / achievedMemoryBps(dev, 1.0);
}

OffloadLoad offloadLoad(const ResolvedOffload& offload, const Workload& w) {
    OffloadLoad load;
    load.target = toString(offload.stage.target);
    load.pool = offload.pool_name;
    load.link = offload.link;
    load.link_GBps = offload.link_Bps / 1e9;
    const auto& p = w.parallel;
    if (offload.stage.target == OffloadTarget::Experts) {
        // Per MoE layer a dispatch and a combine in the forward, two in the backward, and two more for a
        // recomputed forward; each carries every token of the step top_k times.
        const bool full = w.recompute == Recompute::Full;
        const double passes = full ? 6.0 : 4.0;
        const double moeLayers = static_cast<double>(w.model.moeLayers());
        const double tokens = static_cast<double>(w.global_batch) * static_cast<double>(w.model.seq_len);
        load.bytes_per_step = passes * moeLayers * tokens * static_cast<double>(w.model.moe->top_k) *
                              static_cast<double>(w.model.hidden) * activationBytes(w.sixteenBitPrecision());
        const ExpertWave wave = expertWave(offload, w);
        const double waves =
            static_cast<double>(w.microBatchesPerStep()) * moeLayers / static_cast<double>(p.pp);
        load.busy_s = (full ? 4.0 : 3.0) * wave.compute_s * waves + expertPoolOptimizerSeconds(offload, w);
        return load;
    }
    if (offload.stage.target == OffloadTarget::Embeddings) {
        // Every token's row comes in and its gradient goes back: global tokens x hidden x 2 B each way.
        const EmbeddingTraffic t = embeddingTraffic(offload, w);
        const double microBatches = static_cast<double>(w.microBatchesPerStep());
        load.bytes_per_step = 2.0 * static_cast<double>(w.global_batch) *
                              static_cast<double>(w.model.seq_len) * static_cast<double>(w.model.hidden) *
                              activationBytes(w.sixteenBitPrecision());
        load.busy_s = microBatches * t.pool_work_s + t.update_s;
        return load;
    }
    // Every training device sends its parameters' gradients and gets their 16-bit weights back.
    const double perParameter = gradientReduceBytes(w) + activationBytes(w.sixteenBitPrecision());
    const double stageDevices = static_cast<double>(p.tp * p.dp * p.cp);
    for (std::int64_t stage = 0; stage < p.pp; ++stage) {
        const double updated = updatedParameters(w, stage);
        load.bytes_per_step += stageDevices * updated * perParameter;
        load.busy_s = std::max(load.busy_s, optimizerOffloadTimes(offload, w, updated).update_s);
    }
    return load;
}

std::vector<ResolvedOffload> resolveOffloads(const Scenario& s, const std::vector<ResolvedPool>& pools,
                                             std::size_t trainingPool, const Catalog& catalog,
                                             Diagnostics& errors) {
    std::vector<ResolvedOffload> resolved;
    bool ok = true;
    for (const OffloadStage& stage : s.workload.offload) {
        ResolvedOffload out;
        out.stage = stage;
        out.training_devices = trainingDevices(pools, trainingPool);
        bool placed = false;
        if (stage.target == OffloadTarget::Experts)
            placed = placeExperts(s, pools, trainingPool, out, errors);
        else if (stage.target == OffloadTarget::Embeddings)
            placed = placeEmbeddings(s, pools, trainingPool, out, errors);
        else
            placed = placeOptimizer(s, pools, trainingPool, catalog, out, errors) &&
                     optimizerFits(s.workload, out, out.training_devices, errors);
        ok = ok && placed;
        if (out.pool)
            out.pool_name = pools[*out.pool].pool.name;
        else
            out.pool_name = pools[trainingPool].pool.name + " host CPUs";
        resolved.push_back(std::move(out));
    }
    if (!ok)
        resolved.clear();
    return resolved;
}

} // namespace choreo::models
