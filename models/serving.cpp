#include "models/serving.h"

#include "models/jsonreader.h"
#include "models/resolved.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace choreo::models {

namespace {

constexpr double kActivationBytes = 2.0; // activations between operations stay 16-bit
constexpr double kLogitBytes = 4.0;      // fp32 logits for sampling

// Bytes of one stored weight: 4-bit types carry their scales (NVFP4: an 8-bit scale per 16 values; int4 AWQ
// and GPTQ: a 16-bit scale per group of 128).
double weightBytes(Precision p) {
    switch (p) {
    case Precision::Fp4:
        return 0.5 + 1.0 / 16.0;
    case Precision::Int4:
        return 0.5 + 2.0 / 128.0;
    default:
        return storageBytes(p);
    }
}

// The GEMMs' precision for weights of `weights`: 8- and 4-bit float and int8 weights run quantised GEMMs
// (W8A8, NVFP4); int4 weights are dequantised into 16-bit GEMMs (W4A16, as AWQ and GPTQ kernels do).
Precision computePrecisionFor(Precision weights) {
    switch (weights) {
    case Precision::Fp8:
    case Precision::Int8:
    case Precision::Fp4:
        return weights;
    case Precision::Fp16:
        return Precision::Fp16;
    default:
        return Precision::Bf16;
    }
}

Precision defaultKvCache(Precision weights) {
    switch (weights) {
    case Precision::Fp8:
    case Precision::Fp4:
        return Precision::Fp8; // TensorRT-LLM's fp8 and NVFP4 checkpoints quantise the cache to fp8
    case Precision::Int8:
        return Precision::Int8;
    case Precision::Fp16:
        return Precision::Fp16;
    default:
        return Precision::Bf16;
    }
}

// The HBM bandwidth a device's kernels reach.
double achievedMemoryBps(const Device& d) {
    return d.memory_bandwidth_TBps.value * 1e12 * d.efficiency.memory.value;
}

// The per-operation roofline of one device: each operation takes the longer of its arithmetic at the
// achieved fraction of peak and its bytes at the achieved memory bandwidth.
struct Roofline {
    const Device& device;
    Precision compute;
    double bandwidth_Bps = 0;
    IterationCost& cost;
    double scale = 1; // operations of one pipeline stage repeat pp times a round

    // One operation's arithmetic and memory times.
    [[nodiscard]] std::pair<double, double> seconds(double flops, double bytes, double peak,
                                                    double fraction) const {
        return {fraction > 0.0 && peak > 0.0 ? flops / (peak * fraction) : 0.0, bytes / bandwidth_Bps};
    }
    // `count` operations of `flops` and `bytes` each.
    void add(double flops, double bytes, double peak, double fraction, double count = 1.0) {
        const auto [computeS, memoryS] = seconds(flops, bytes, peak, fraction);
        if (computeS > memoryS)
            cost.compute_bound_s += computeS * scale * count;
        else
            cost.memory_bound_s += memoryS * scale * count;
    }
    // A matrix multiply of `tokens` rows through a k x n weight (per device), in the GEMM precision.
    void matmul(double tokens, double k, double n, double bytesPerWeight, double count = 1.0) {
        if (tokens <= 0.0 || k <= 0.0 || n <= 0.0)
            return;
        const double flops = 2.0 * tokens * k * n;
        const double peak = device.peakFlops(compute).value_or(0.0);
        const double fraction = device.efficiency.gemmFraction(compute, flops);
        const double bytes = k * n * bytesPerWeight + tokens * (k + n) * kActivationBytes;
        add(flops, bytes, peak, fraction, count);
    }
    void memoryOnly(double bytes) { cost.memory_bound_s += bytes / bandwidth_Bps * scale; }
};

// Values cached per token and layer on one tensor rank: K and V of its KV heads, or MLA's one latent.
double kvValuesPerTokenAndLayer(const ModelShape& m, std::int64_t tp) {
    if (m.kv_latent > 0)
        return static_cast<double>(m.kv_latent); // one latent, held whole by every tensor rank
    const double kvHeads = static_cast<double>(m.kv_heads);
    const double headsPerDevice =
        std::max(1.0, std::ceil(kvHeads / static_cast<double>(tp))); // replicated when fewer than tp
    return 2.0 * headsPerDevice * m.headDim();
}

// Decode attention's operations per query head and cached token. K and V per head: QK^T and AV, 2 x 2 x the
// head width. MLA with its up-projections absorbed (DeepSeek-V2, arXiv:2405.04434, section 2.1.2): the
// query meets the whole latent (d_c + d_h^R) and the weights sum its compressed part (d_c = latent minus
// the 64-wide rotary part, DeepSeek-V3's d_h^R).
constexpr double kLatentRotaryWidth = 64;
double decodeFlopsPerHeadAndToken(const ModelShape& m) {
    if (m.kv_latent > 0) {
        const auto latent = static_cast<double>(m.kv_latent);
        return 2.0 * latent + 2.0 * std::max(0.0, latent - kLatentRotaryWidth);
    }
    return 4.0 * m.headDim();
}

// Expected number of distinct experts, of `experts`, that `tokens` tokens routing to `topK` each touch
// (independent, balanced routing).
double touchedExperts(double experts, double topK, double tokens) {
    if (experts <= 0.0)
        return 0.0;
    return experts * (1.0 - std::pow(1.0 - std::min(1.0, topK / experts), tokens));
}

// One pipeline stage's layers for one micro-batch of `tokens` tokens on one device.
void addLayers(const ResolvedServing& s, const ServeReplicas& r, const BatchShape& b, double share,
               Roofline& roof) {
    const ModelShape& m = s.model;
    const double tp = static_cast<double>(r.parallel.tp);
    const double pp = static_cast<double>(r.parallel.pp);
    const double tokens = static_cast<double>(b.tokens()) * share;
    const double layers = static_cast<double>(m.layers) / pp;
    const double moeLayers = static_cast<double>(m.moeLayers()) / pp;
    const double denseLayers = layers - moeLayers;
    const double wb = weightBytes(s.weights);
    const double hidden = static_cast<double>(m.hidden);
    const double q = m.queryWidth(), kv = m.kvWidth();
    // Attention projections: Q, K, V in one GEMM, then the output projection.
    roof.matmul(tokens, hidden, (q + 2.0 * kv) / tp, wb, layers);
    roof.matmul(tokens, q / tp, hidden, wb, layers);
    const double gate = m.ffn_gated ? 2.0 : 1.0;
    roof.matmul(tokens, hidden, gate * static_cast<double>(m.ffn_hidden) / tp, wb, denseLayers);
    roof.matmul(tokens, static_cast<double>(m.ffn_hidden) / tp, hidden, wb, denseLayers);
    if (m.moe && moeLayers > 0.0) {
        const MoeShape& moe = *m.moe;
        const double expertFfn = static_cast<double>(moe.expert_ffn_hidden);
        const IterationCost routed =
            routedExpertsCost(roof.device, roof.compute, m, tokens, r.parallel, s.weights);
        roof.cost.compute_bound_s += routed.compute_bound_s * roof.scale * moeLayers;
        roof.cost.memory_bound_s += routed.memory_bound_s * roof.scale * moeLayers;
        const double experts = static_cast<double>(moe.experts);
        const double shared = static_cast<double>(moe.shared_experts) * expertFfn;
        roof.matmul(tokens, hidden, gate * shared / tp, wb, moeLayers);
        roof.matmul(tokens, shared / tp, hidden, wb, moeLayers);
        roof.matmul(tokens, hidden, experts, kActivationBytes, moeLayers); // the router, 16-bit
    }
    // Attention itself: decoding tokens read their sequences' K and V; prefill chunks attend causally.
    const double kvPerLayer = kvBytesPerTokenPerDevice(s, r.parallel) / static_cast<double>(m.layers);
    const double headsPerDevice = static_cast<double>(m.heads) / tp;
    const double hd = m.headDim();
    const double peak16 = roof.device.peakFlops(Precision::Bf16).value_or(0.0);
    const double decodeContext = b.decode_context_tokens * share;
    const double decodeFlops = decodeContext * headsPerDevice * decodeFlopsPerHeadAndToken(m);
    roof.add(decodeFlops, decodeContext * kvPerLayer, peak16,
             roof.device.efficiency.attentionFraction(decodeFlops), layers);
    const double prefillFlops = 4.0 * b.prefill_attention_pairs * share * headsPerDevice * hd;
    if (prefillFlops > 0.0)
        roof.add(prefillFlops, 0.0, peak16, roof.device.efficiency.attentionFraction(prefillFlops), layers);
    // The new tokens' K and V written, and the element-wise work (norms, residuals, rotary, activation).
    roof.memoryOnly(tokens * kvPerLayer * layers);
    const double ffnLocal =
        static_cast<double>(m.moe ? m.moe->expert_ffn_hidden * m.moe->top_k : m.ffn_hidden) / tp;
    roof.memoryOnly(tokens * (8.0 * hidden + 3.0 * ffnLocal) * kActivationBytes * layers);
}

// Latency of one small tensor-parallel all-reduce: the engine's own kernel, or, on a PCIe-only group larger
// than the engine runs that kernel on, the collective library's ring of 2 (tp - 1) steps, as training's
// collectives cost it (PlatformSpec::stepLatency): the device's base, and per step the longer of the
// library's step and the fabric's own latency.
double allReduceLatencyS(const ResolvedServing& s, const ServeReplicas& r, double tp) {
    const ServingEngine& engine = *s.engine;
    const double customLimit = engine.custom_allreduce_pcie_max_gpus.value;
    const bool pcieOnly = r.device->scale_up && r.device->scale_up->fabric == "pcie";
    if (!pcieOnly || customLimit <= 0.0 || tp <= customLimit)
        return engine.allreduce_latency_us.value * 1e-6;
    const DeviceEfficiency& e = r.device->efficiency;
    const double step = std::max(e.ring_step_scale_up_us.value * 1e-6, r.scale_up_latency_s);
    return e.collective_base_us.value * 1e-6 + 2.0 * (tp - 1.0) * step;
}

// Tensor- and expert-parallel collectives of one stage's layers, and the transfers between pipeline stages.
void addCommunication(const ResolvedServing& s, const ServeReplicas& r, const BatchShape& b, double share,
                      IterationCost& cost) {
    const ModelShape& m = s.model;
    const double tp = static_cast<double>(r.parallel.tp), ep = static_cast<double>(r.parallel.ep);
    const double pp = static_cast<double>(r.parallel.pp);
    const double tokens = static_cast<double>(b.tokens()) * share;
    const double layers = static_cast<double>(m.layers) / pp;
    const double moeLayers = static_cast<double>(m.moeLayers()) / pp;
    const double linkBps = r.scale_up_Bps * r.device->efficiency.network.value;
    const double latency = allReduceLatencyS(s, r, tp);
    const double message = tokens * static_cast<double>(m.hidden) * kActivationBytes;
    double stage = 0.0;
    if (tp > 1.0 && linkBps > 0.0) {
        const double allReduce = latency + 2.0 * (tp - 1.0) / tp * message / linkBps;
        // One after attention and one after the feed-forward; expert-parallel layers exchange tokens instead.
        const double allReduces = 2.0 * layers - (ep > 1.0 ? moeLayers : 0.0);
        stage += allReduces * allReduce;
    }
    if (ep > 1.0 && linkBps > 0.0 && m.moe) {
        const double routed = message * static_cast<double>(m.moe->top_k) / ep;
        const double allToAll = r.scale_up_latency_s + routed * (ep - 1.0) / ep / linkBps;
        stage += 2.0 * moeLayers * allToAll; // dispatch and combine
    }
    cost.communication_s += stage * pp;
    if (pp > 1.0 && linkBps > 0.0)
        cost.communication_s += (pp - 1.0) * (r.scale_up_latency_s + message / linkBps);
}

} // namespace

IterationCost routedExpertsCost(const Device& device, Precision compute, const ModelShape& m, double tokens,
                                const ServeParallel& parallel, Precision weights) {
    IterationCost cost;
    if (!m.moe || tokens <= 0.0)
        return cost;
    const MoeShape& moe = *m.moe;
    const double tp = static_cast<double>(parallel.tp), ep = static_cast<double>(parallel.ep);
    const double hidden = static_cast<double>(m.hidden);
    const double expertFfn = static_cast<double>(moe.expert_ffn_hidden);
    const double expertParams = ((m.ffn_gated ? 2.0 : 1.0) + 1.0) * hidden * expertFfn;
    const double experts = static_cast<double>(moe.experts), topK = static_cast<double>(moe.top_k);
    // Each device holds experts / ep experts, each split tp / ep ways; it reads the ones its tokens touch.
    const double touched = touchedExperts(experts, topK, tokens) / ep;
    const double flops = 2.0 * tokens * topK * expertParams / tp;
    const double bytes = touched * expertParams / (tp / ep) * weightBytes(weights) +
                         tokens * topK * (hidden + expertFfn) * kActivationBytes / tp;
    const double fraction = kGroupedGemmShareOfDense *
                            device.efficiency.gemmFraction(compute, touched > 0.0 ? flops / touched : 0.0);
    const Roofline roof{device, compute, achievedMemoryBps(device), cost};
    const auto [computeS, memoryS] =
        roof.seconds(flops, bytes, device.peakFlops(compute).value_or(0.0), fraction);
    // Streaming the experts' weights and multiplying by them overlap only in part: near the ridge the
    // layer takes the Euclidean sum of the two times, not the longer.
    (computeS > memoryS ? cost.compute_bound_s : cost.memory_bound_s) = std::hypot(computeS, memoryS);
    cost.total_s = cost.compute_bound_s + cost.memory_bound_s;
    return cost;
}

double IterationCost::powerFraction() const {
    if (!(total_s > 0.0))
        return 0.0;
    return (compute_bound_s * kComputeBoundPowerFraction + memory_bound_s * kMemoryBoundPowerFraction +
            (communication_s + overhead_s) * kWaitingPowerFraction) /
           total_s;
}

double kvBytesPerTokenPerDevice(const ResolvedServing& serving, const ServeParallel& parallel) {
    const ModelShape& m = serving.model;
    const double layersPerDevice =
        std::ceil(static_cast<double>(m.layers) / static_cast<double>(parallel.pp));
    return layersPerDevice * kvValuesPerTokenAndLayer(m, parallel.tp) * storageBytes(serving.kv_cache);
}

std::int64_t kvTokenCapacity(const ResolvedServing& serving, const ServeReplicas& replicas) {
    return replicas.kv_blocks * serving.kv_block_tokens;
}

IterationCost iterationCost(const ResolvedServing& s, const ServeReplicas& r, const BatchShape& b) {
    IterationCost cost;
    if (b.tokens() <= 0)
        return cost;
    const Device& d = *r.device;
    const double pp = static_cast<double>(r.parallel.pp);
    const double share = 1.0 / pp; // each stage works on one of pp micro-batches at a time
    Roofline roof{d, s.compute, achievedMemoryBps(d), cost, pp};
    addLayers(s, r, b, share, roof);
    // The output layer on the last stage, for the sequences that sample a token, in 16 bits.
    Roofline head{d, Precision::Bf16, roof.bandwidth_Bps, cost, pp};
    head.matmul(static_cast<double>(b.logits) * share, static_cast<double>(s.model.hidden),
                static_cast<double>(s.model.vocab) / static_cast<double>(r.parallel.tp), kActivationBytes);
    head.memoryOnly(static_cast<double>(b.logits) * share * static_cast<double>(s.model.vocab) /
                    static_cast<double>(r.parallel.tp) * kLogitBytes);
    addCommunication(s, r, b, share, cost);
    cost.overhead_s = s.engine->iteration_overhead_us.value * 1e-6 +
                      s.engine->layer_overhead_us.value * 1e-6 * static_cast<double>(s.model.layers);
    cost.total_s = cost.compute_bound_s + cost.memory_bound_s + cost.communication_s + cost.overhead_s;
    return cost;
}

std::string serveStagePath(const ServeStage& stage) {
    return "workload.stages[" + std::to_string(stage.stage_index) + "]";
}

namespace {

// The model's layout checks for one kind of replica; `where` is the path of its parallel object.
void checkServeLayout(const ModelShape& m, const ServeParallel& p, const Pool& pool, const std::string& where,
                      Diagnostics& errors) {
    if (m.heads % p.tp != 0)
        errors.push_back({where + ".tp", std::to_string(p.tp) + " does not divide the model's " +
                                             std::to_string(m.heads) + " attention heads"});
    if (m.kv_heads > 0 && m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
        errors.push_back({where + ".tp", std::to_string(p.tp) + " and the model's " +
                                             std::to_string(m.kv_heads) +
                                             " KV heads: neither divides the other"});
    if (p.pp > m.layers)
        errors.push_back({where + ".pp", std::to_string(p.pp) + " pipeline stages for " +
                                             std::to_string(m.layers) + " layers"});
    const std::int64_t perNode = std::max<std::int64_t>(1, pool.devices_per_node);
    if (p.tp > perNode || perNode % p.tp != 0)
        errors.push_back({where + ".tp", std::to_string(p.tp) +
                                             " must divide devices_per_node=" + std::to_string(perNode) +
                                             " (tensor parallelism stays inside a node)"});
    if (p.ep > 1) {
        if (!m.moe)
            errors.push_back({where + ".ep", "expert parallelism needs a Mixture-of-Experts model"});
        else if (m.moe->experts % p.ep != 0)
            errors.push_back({where + ".ep", std::to_string(p.ep) + " does not divide the " +
                                                 std::to_string(m.moe->experts) + " experts"});
        if (p.tp % p.ep != 0)
            errors.push_back({where + ".ep", std::to_string(p.ep) +
                                                 " must divide tp=" + std::to_string(p.tp) +
                                                 " (the experts are split over the replica's tensor ranks)"});
    }
}

// Weights one device of the replica holds: the layers split over tp x pp, the embedding and output layers
// (kept 16-bit) over tp, both on one device without pipeline parallelism.
double weightsPerDevice(const ResolvedServing& s, const ServeParallel& p) {
    const ParameterCount& c = s.params;
    const double body = c.total() - c.embedding - c.output_embedding;
    const double edges =
        p.pp > 1 ? std::max(c.embedding, c.output_embedding) : c.embedding + c.output_embedding;
    return body * weightBytes(s.weights) / static_cast<double>(p.devices()) +
           edges * kActivationBytes / static_cast<double>(p.tp);
}

// The activations of the largest iteration the engine allows, and its logits.
double activationsPerDevice(const ResolvedServing& s, const ServeParallel& p) {
    const ModelShape& m = s.model;
    const double tp = static_cast<double>(p.tp);
    const double ffn = static_cast<double>(m.moe ? m.moe->expert_ffn_hidden * m.moe->top_k : m.ffn_hidden) *
                       (m.ffn_gated ? 2 : 1);
    const double tokens = static_cast<double>(s.max_tokens_per_iteration);
    return tokens * (4.0 * static_cast<double>(m.hidden) + ffn / tp) * kActivationBytes +
           static_cast<double>(s.max_batch) * static_cast<double>(m.vocab) / tp * kLogitBytes;
}

// The replicas of one kind on pool `poolIndex`: count, memory, and the KV cache left over.
std::optional<ServeReplicas> sizeReplicas(const ResolvedServing& s, const std::vector<ResolvedPool>& pools,
                                          std::size_t poolIndex, const ServeParallel& parallel,
                                          std::optional<std::int64_t> replicas, const Network& network,
                                          const std::string& where, Diagnostics& errors) {
    const std::size_t before = errors.size();
    const ResolvedPool& rp = pools[poolIndex];
    ServeReplicas r;
    r.pool = poolIndex;
    r.device = rp.device;
    r.parallel = parallel;
    // The decode model reads weights and KV cache from a GPU's DRAM; these devices keep neither there.
    if (rp.device->weight_streaming || rp.device->bulk_synchronous) {
        errors.push_back(
            {where + ".pool",
             "serving is not modelled on " + rp.device->id + ": it " +
                 (rp.device->weight_streaming ? "streams its weights from MemoryX and keeps no KV cache "
                                                "in DRAM"
                                              : "keeps its model in on-chip SRAM, with no DRAM for a KV "
                                                "cache") +
                 ", and the decode model reads both from a GPU's memory; serve "
                 "on a pool of GPUs or accelerators with DRAM"});
        return std::nullopt;
    }
    checkServeLayout(s.model, parallel, rp.pool, where + ".parallel", errors);
    const std::int64_t perReplica = parallel.devices();
    if (replicas) {
        r.replicas = *replicas;
        if (*replicas > rp.pool.count / perReplica)
            errors.push_back({where + ".replicas",
                              std::to_string(*replicas) + " replicas of tp*pp=" + std::to_string(perReplica) +
                                  " need " + std::to_string(*replicas * perReplica) + " devices; \"" +
                                  rp.pool.name + "\" has " + std::to_string(rp.pool.count)});
    } else {
        r.replicas = rp.pool.count / perReplica;
        if (rp.pool.count % perReplica != 0 || r.replicas == 0)
            errors.push_back({where + ".parallel",
                              "tp*pp=" + std::to_string(perReplica) + " does not divide \"" + rp.pool.name +
                                  "\"'s " + std::to_string(rp.pool.count) + " devices; set replicas"});
    }
    const Device& d = *rp.device;
    if (d.kind == DeviceKind::Cpu)
        errors.push_back({where + ".pool", "\"" + rp.pool.name + "\" holds " + d.id +
                                               ", a CPU; serving runs on accelerator pools"});
    if (!d.peakFlops(s.compute))
        errors.push_back({serveStagePath(s.stage) + ".weights",
                          toString(s.weights) + " weights run " + toString(s.compute) + " GEMMs, which " +
                              d.id + " does not support (catalog peak_tflops)"});
    if (errors.size() != before)
        return std::nullopt;
    const LinkRates rates = linkRates(network, d);
    r.scale_up_Bps = rates.scale_up_Bps;
    r.scale_up_latency_s = rates.scale_up_latency_s;
    r.link_Bps = rates.nic_Bps * static_cast<double>(perReplica) * d.efficiency.nicFraction();
    r.weights_GB_per_device = weightsPerDevice(s, parallel) / 1e9;
    r.activations_GB_per_device = activationsPerDevice(s, parallel) / 1e9;
    r.reserved_GB_per_device = s.engine->reserved_GB.value;
    const double used = r.weights_GB_per_device + r.activations_GB_per_device + r.reserved_GB_per_device;
    const double memory = d.memory_GB.value;
    r.kv_GB_per_device =
        s.engine->fraction_of_free ? (memory - used) * s.memory_fraction : memory * s.memory_fraction - used;
    const double blockBytes = kvBytesPerTokenPerDevice(s, parallel) * static_cast<double>(s.kv_block_tokens);
    r.kv_blocks = r.kv_GB_per_device > 0.0
                      ? static_cast<std::int64_t>(std::floor(r.kv_GB_per_device * 1e9 / blockBytes))
                      : 0;
    if (r.kv_blocks <= 0) {
        errors.push_back(
            {where + ".parallel",
             "no room for the KV cache on " + d.id + ": weights " + formatNumber(r.weights_GB_per_device) +
                 " GB + activations " + formatNumber(r.activations_GB_per_device) + " GB + engine " +
                 formatNumber(r.reserved_GB_per_device) + " GB per device, of " + formatNumber(memory) +
                 " GB at memory_fraction " + formatNumber(s.memory_fraction) +
                 " (more tensor or pipeline parallelism, or fewer weight bits)"});
        return std::nullopt;
    }
    return r;
}

// The longest request the stream can send: its input and output upper bounds (a lognormal without a bound:
// its mean), for the up-front check that one request fits in a replica's cache.
double longestRequest(const RequestStream& q) {
    auto upper = [](const TokenLengths& l) {
        if (l.shape != LengthShape::Fixed && l.max > 0)
            return static_cast<double>(l.max);
        return l.mean;
    };
    return upper(q.input) + upper(q.output);
}

// The engine and its defaults, and the precisions.
bool chooseEngine(ResolvedServing& out, const Catalog& catalog, Diagnostics& errors) {
    const ServeStage& st = out.stage;
    out.engine = catalog.engine(st.engine);
    if (!out.engine) {
        std::string known;
        for (const auto& e : catalog.engines())
            known += (known.empty() ? "" : ", ") + e.id;
        errors.push_back(
            {out.path + ".engine", "unknown serving engine \"" + st.engine + "\" (known: " + known + ")"});
        return false;
    }
    const ServingEngine& e = *out.engine;
    out.max_batch = st.max_batch.value_or(static_cast<std::int64_t>(e.max_batch.value));
    out.max_tokens_per_iteration =
        st.max_tokens_per_iteration.value_or(static_cast<std::int64_t>(e.max_tokens_per_iteration.value));
    out.chunked_prefill = st.chunked_prefill.value_or(e.chunked_prefill.value > 0.0);
    out.reserve_full_output = e.reserve_full_output.value > 0.0;
    out.mixed_batches = out.chunked_prefill || e.mixed_batches.value > 0.0;
    out.decode_steps = static_cast<std::int64_t>(e.decode_steps.value);
    out.kv_block_tokens = st.kv_block_tokens.value_or(static_cast<std::int64_t>(e.kv_block_tokens.value));
    out.memory_fraction = st.memory_fraction.value_or(e.memory_fraction.value);
    out.weights = st.weights;
    out.kv_cache = st.kv_cache.value_or(defaultKvCache(st.weights));
    out.compute = computePrecisionFor(st.weights);
    if (out.max_tokens_per_iteration < out.max_batch)
        errors.push_back({out.path + ".max_tokens_per_iteration",
                          std::to_string(out.max_tokens_per_iteration) +
                              " tokens an iteration cannot decode max_batch=" +
                              std::to_string(out.max_batch) + " sequences at once"});
    if (!out.chunked_prefill && out.stage.requests.arrival != Arrival::Trace) {
        const TokenLengths& in = out.stage.requests.input;
        const double longest =
            in.shape != LengthShape::Fixed && in.max > 0 ? static_cast<double>(in.max) : in.mean;
        if (longest > static_cast<double>(out.max_tokens_per_iteration))
            errors.push_back({out.path + ".max_tokens_per_iteration",
                              "prompts of up to " + formatNumber(longest) + " tokens do not fit in " +
                                  std::to_string(out.max_tokens_per_iteration) +
                                  " tokens an iteration without chunked prefill"});
    }
    return true;
}

// The serve stage's pool: named, else the default; an accelerator pool, not the one that trains.
std::optional<std::size_t> servePool(const Scenario& s, const std::vector<ResolvedPool>& pools,
                                     std::optional<std::size_t> defaultPool, const std::string& path,
                                     Diagnostics& errors) {
    if (!s.workload.serve->pool) {
        if (!defaultPool)
            errors.push_back({path + ".pool", "required: the pool that serves (the training pool trains)"});
        return defaultPool;
    }
    auto index = findPoolNamed(pools, *s.workload.serve->pool, path + ".pool", errors);
    if (index && s.workload.trains() && s.trainingPool() == &s.cluster.pools[*index]) {
        errors.push_back({path + ".pool", "\"" + pools[*index].pool.name +
                                              "\" trains; serving runs on a pool of its own beside it"});
        return std::nullopt;
    }
    return index;
}

} // namespace

std::optional<ResolvedServing> resolveServing(const Scenario& s, const std::vector<ResolvedPool>& pools,
                                              std::optional<std::size_t> defaultPool, const Catalog& catalog,
                                              Diagnostics& errors) {
    const std::size_t before = errors.size();
    ResolvedServing out;
    out.stage = *s.workload.serve;
    out.path = serveStagePath(out.stage);
    out.model = s.workload.model;
    out.params = countParameters(out.model);
    if (!chooseEngine(out, catalog, errors))
        return std::nullopt;
    const auto pool = servePool(s, pools, defaultPool, out.path, errors);
    if (!pool || errors.size() != before)
        return std::nullopt;
    out.kv_bytes_per_token = static_cast<double>(out.model.layers) * kvValuesPerTokenAndLayer(out.model, 1) *
                             storageBytes(out.kv_cache);
    auto serve = sizeReplicas(out, pools, *pool, out.stage.parallel, out.stage.replicas, s.cluster.network,
                              out.path, errors);
    if (!serve)
        return std::nullopt;
    out.serve = *serve;
    if (const auto& p = out.stage.prefill) {
        const std::string where = out.path + ".prefill";
        auto index = findPoolNamed(pools, p->pool, where + ".pool", errors);
        if (index && *index == *pool)
            errors.push_back({where + ".pool", "prefill and decode replicas need pools of their own"});
        if (!index || errors.size() != before)
            return std::nullopt;
        out.prefill =
            sizeReplicas(out, pools, *index, p->parallel, p->replicas, s.cluster.network, where, errors);
        if (!out.prefill)
            return std::nullopt;
    }
    const double longest = longestRequest(out.stage.requests);
    for (const ServeReplicas* r : {&out.serve, out.prefill ? &*out.prefill : nullptr})
        if (r && static_cast<double>(kvTokenCapacity(out, *r)) < longest)
            errors.push_back({out.path + ".requests", "one request of up to " + formatNumber(longest) +
                                                          " tokens does not fit in a replica's KV cache of " +
                                                          std::to_string(kvTokenCapacity(out, *r)) +
                                                          " tokens on " + r->device->id});
    if (errors.size() != before)
        return std::nullopt;
    return out;
}

bool applyServingTrace(ResolvedServing& serving, const std::filesystem::path& scenarioDirectory,
                       Diagnostics& errors) {
    const RequestStream& q = serving.stage.requests;
    if (q.arrival != Arrival::Trace)
        return true;
    std::filesystem::path file = q.trace;
    if (file.is_relative())
        file = scenarioDirectory / file;
    Diagnostics problems;
    auto rows = readTrace(file, problems);
    for (auto& p : problems)
        errors.push_back({serving.path + ".requests.trace", p.text()});
    if (!rows)
        return false;
    std::int64_t longest = 0;
    for (const auto& row : *rows)
        longest = std::max(longest, row.input_tokens + row.output_tokens);
    for (const ServeReplicas* r : {&serving.serve, serving.prefill ? &*serving.prefill : nullptr})
        if (r && kvTokenCapacity(serving, *r) < longest) {
            errors.push_back(
                {serving.path + ".requests.trace", "a request of " + std::to_string(longest) +
                                                       " tokens does not fit in a replica's KV cache of " +
                                                       std::to_string(kvTokenCapacity(serving, *r)) +
                                                       " tokens on " + r->device->id});
            return false;
        }
    serving.trace = std::move(*rows);
    return true;
}

} // namespace choreo::models
