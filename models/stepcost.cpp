#include "models/stepcost.h"

#include "models/bsp.h"
#include "models/memory.h"
#include "models/transformer.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace choreo::models {

double Roofline::time(double flops, double bytes) const {
    const double compute = peak_flops > 0 ? flops / (peak_flops * compute_eff) : 0.0;
    const double memory = bandwidth_Bps > 0 ? bytes / (bandwidth_Bps * memory_eff) : 0.0;
    return std::max(compute, memory) + overhead_s;
}

namespace {

Roofline rooflineFor(const Device& d, Precision precision, double computeEff) {
    Roofline r;
    r.peak_flops = d.peakFlops(precision).value_or(d.peakFlops(Precision::Bf16).value_or(0.0));
    r.compute_eff = computeEff;
    r.bandwidth_Bps = d.memory_bandwidth_TBps.value * 1e12;
    r.memory_eff = d.efficiency.memory.value;
    r.overhead_s = d.efficiency.kernel_overhead_us.value * 1e-6;
    return r;
}

double elementBytes(Precision p) {
    return quantisedGemms(p) || p == Precision::Int4 ? storageBytes(p) : activationBytes(p);
}

} // namespace

double gemmWaveUtilization(double units, double m, double n) {
    if (units <= 0.0 || m <= 0.0 || n <= 0.0)
        return 1.0;
    struct Tile {
        double rows, cols;
    };
    static constexpr Tile tiles[] = {{256.0, 128.0}, {128.0, 256.0}, {128.0, 128.0}};
    double best = 0.0;
    for (const Tile& tile : tiles) {
        const double count = std::ceil(m / tile.rows) * std::ceil(n / tile.cols);
        const double waves = std::ceil(count / units);
        best = std::max(best, m * n / (waves * units * tile.rows * tile.cols));
    }
    return best;
}

double gemmTime(const Device& device, Precision precision, double m, double n, double k) {
    const double flops = 2.0 * m * n * k;
    const double units = device.compute_units.present() ? device.compute_units.value : 0.0;
    const Roofline r =
        rooflineFor(device, precision,
                    device.efficiency.gemmFraction(precision, flops) * gemmWaveUtilization(units, m, n));
    const double bytes = (m * k + k * n + m * n) * elementBytes(precision);
    return r.time(flops, bytes);
}

std::vector<std::int64_t> offloadWindows(std::int64_t offloaded, std::int64_t layers) {
    std::vector<std::int64_t> windows;
    if (offloaded <= 0 || offloaded >= layers)
        return windows;
    std::int64_t previousEnd = 0, extra = 0;
    for (std::int64_t k = 0; k < offloaded; ++k) {
        std::int64_t end = layers / offloaded * (k + 1) - 1;
        if (k < layers % offloaded)
            extra = k + 1;
        end += extra;
        windows.push_back(end - previousEnd);
        previousEnd = end;
    }
    return windows;
}

double pairedSeconds(double forward_attention_s, double forward_mlp_s, double backward_attention_s,
                     double backward_mlp_s, double forward_all_to_all_s, double backward_all_to_all_s) {
    const double fHalf = forward_all_to_all_s / 2.0, bHalf = backward_all_to_all_s / 2.0;
    return std::max(forward_attention_s, bHalf) + std::max(backward_mlp_s, fHalf) +
           std::max(forward_mlp_s, bHalf) + std::max(backward_attention_s, fHalf);
}

double offloadWaitSeconds(const std::vector<std::int64_t>& windows, double copy_s, double layer_s) {
    double wait = 0.0;
    for (const std::int64_t window : windows)
        wait += std::max(0.0, copy_s - static_cast<double>(window) * layer_s);
    return wait;
}

namespace {

// The probability that a token's k experts, drawn evenly without replacement from `experts`, miss all of
// `held` of them: C(experts - held, k) / C(experts, k).
double missesAll(double experts, double held, std::int64_t k) {
    double p = 1.0;
    for (std::int64_t i = 0; i < k; ++i) {
        const auto drawn = static_cast<double>(i);
        p *= std::max(0.0, experts - held - drawn) / (experts - drawn);
    }
    return p;
}

} // namespace

AllToAllScale expertDispatchScale(const Workload& workload, std::int64_t devicesPerNode) {
    AllToAllScale scale;
    const auto& moe = workload.model.moe;
    const std::int64_t ep = workload.parallel.ep;
    if (workload.ep_dispatcher != EpDispatcher::DeepEp || !moe || ep <= 1 || moe->top_k <= 0)
        return scale;
    const auto experts = static_cast<double>(moe->experts);
    const std::int64_t k = moe->top_k;
    const auto n = static_cast<double>(ep);
    const double r = static_cast<double>(std::clamp<std::int64_t>(devicesPerNode, 1, ep));
    const double perDevice = experts / n;
    const double pDevice = 1.0 - missesAll(experts, perDevice, k);
    const double pNode = 1.0 - missesAll(experts, perDevice * r, k);
    const double pairTokens = static_cast<double>(k) / n; // tokens per peer, every token-expert pair sent
    scale.same_node = (n / r) * pDevice / pairTokens;
    if (n > r)
        scale.other_node = (n / r - 1.0) * pNode / ((n - r) * pairTokens);
    return scale;
}

double gradientReduceBytes(const Workload& workload) {
    return activationBytes(workload.gradientPrecision());
}

namespace {

// What stageCost's steps share about one model chunk on one device for one micro-batch.
struct ChunkShape {
    const Device& device;
    const Workload& workload;
    const ModelShape& model;
    std::int64_t index = 0; // the chunk, 0 .. pp*vp-1
    Precision precision = Precision::Bf16;
    // Attention and element-wise work stay in 16-bit in fp8 and fp4 training.
    Precision attention_precision = Precision::Bf16;
    double tp = 1.0;
    double cp = 1.0;
    // Tokens each device works on: context parallelism splits the sequence.
    double tokens = 0.0;
    double hidden = 0.0;
    double ffn_hidden = 0.0;
    // All query heads together, and K (or V): hidden and its GQA share unless the model sets head_dim.
    double query_width = 0.0;
    double kv_width = 0.0;
    double act_bytes = 0.0; // bytes per element in the attention precision
    double layers = 0.0;
    bool first = false;
    bool last = false;
    Roofline memory_kernel{}; // memory-bound kernels
    // Offload stages: the routed experts on another pool, the optimizer on CPUs (nullptr: on the device).
    const ResolvedOffload* experts_offload = nullptr;
    const ResolvedOffload* optimizer_offload = nullptr;
    const ResolvedOffload* embeddings_offload = nullptr; // the embedding table on a CPU pool
};

ChunkShape chunkShape(const ResolvedScenario& rs, std::int64_t chunk) {
    const Workload& workload = rs.workload();
    const ModelShape& model = workload.model;
    ChunkShape shape{rs.device(), workload, model};
    shape.index = chunk;
    shape.precision = workload.precision;
    shape.attention_precision = quantisedGemms(shape.precision) ? Precision::Bf16 : shape.precision;
    shape.tp = static_cast<double>(workload.parallel.tp);
    shape.cp = static_cast<double>(workload.parallel.cp);
    shape.tokens = static_cast<double>(workload.micro_batch) * static_cast<double>(model.seq_len) / shape.cp;
    shape.hidden = static_cast<double>(model.hidden);
    shape.ffn_hidden = static_cast<double>(model.ffn_hidden);
    shape.query_width = model.queryWidth();
    shape.kv_width = model.kvWidth();
    shape.act_bytes = activationBytes(shape.attention_precision);
    const std::int64_t chunks = workload.parallel.pp * workload.parallel.vp;
    shape.layers = static_cast<double>(layersInChunk(workload, chunk));
    shape.first = chunk == 0;
    shape.last = chunk == chunks - 1;
    shape.memory_kernel = rooflineFor(shape.device, shape.attention_precision, 1.0);
    shape.experts_offload = rs.offloaded(OffloadTarget::Experts);
    shape.optimizer_offload = rs.offloaded(OffloadTarget::Optimizer);
    shape.embeddings_offload = rs.offloaded(OffloadTarget::Embeddings);
    return shape;
}

// The routed experts of the chunk's MoE layers, per layer averaged over the chunk's layers.
struct MoeCost {
    double layers = 0.0; // MoE layers in the chunk
    double share = 0.0;  // of the chunk's layers
    double ffn_s = 0.0;  // router and experts, forward
    double experts_s = 0.0;
    double shared_s = 0.0;         // the shared experts' GEMMs, within experts_s
    double activation_bytes = 0.0; // the two below and the permutation's
    double routed_activation_bytes = 0.0;
    double shared_activation_bytes = 0.0;
    // Offloaded experts: one MoE layer's wait for the expert pool, forward and backward (ExpertWave), and
    // one dispatch's bytes and link.
    double remote_forward_s = 0.0;
    double remote_backward_s = 0.0;
    double remote_send_bytes = 0.0;
    double remote_link_Bps = 0.0;
};

MoeCost moeCost(const ChunkShape& shape) {
    const Device& dev = shape.device;
    const Workload& workload = shape.workload;
    const ModelShape& model = shape.model;
    const Precision prec = shape.precision;
    const double tp = shape.tp, tokens = shape.tokens, hidden = shape.hidden, act = shape.act_bytes;
    // Layers with routed experts (balanced load): each device's tokens go to top_k experts; the ep
    // devices of an expert-parallel group send each expert ep * tokens * top_k / experts tokens, and a
    // device runs its experts / ep experts as one GEMM each; shared experts see every token; the router
    // scores every token against every expert. The etp devices that split an expert's matrices pool their
    // tokens: tokens * etp / tp of them (the whole tensor group's when etp = tp; with etp below tp, the
    // share sequence parallelism gave the device's etp ranks). Per-layer figures below are averages over
    // the chunk's dense and MoE layers, which keeps every `layers * x` sum exact.
    MoeCost moe;
    moe.layers = static_cast<double>(moeLayersInChunk(workload, shape.index));
    moe.share = shape.layers > 0 ? moe.layers / shape.layers : 0.0;
    if (model.moe && moe.layers > 0) {
        const MoeShape& experts = *model.moe;
        const double expertFfn = static_cast<double>(experts.expert_ffn_hidden);
        const double ep = static_cast<double>(workload.parallel.ep);
        const double expertTp = static_cast<double>(workload.parallel.expertTp());
        const double localExperts = static_cast<double>(experts.experts) / ep;
        const double routed =
            tokens * expertTp / tp * static_cast<double>(experts.top_k); // token-expert pairs per device
        const double perExpert = routed / localExperts;
        const double upMatrices = model.ffn_gated ? 2.0 : 1.0;
        // Offloaded, the routed experts run on their pool: the device waits for the dispatch, their GEMMs
        // there and the combine, and keeps none of their activations.
        const double routedHere = shape.experts_offload ? 0.0 : routed;
        if (shape.experts_offload) {
            const ExpertWave wave = expertWave(*shape.experts_offload, workload);
            moe.remote_forward_s = wave.forward_s();
            moe.remote_backward_s = wave.backward_s();
            moe.remote_send_bytes = wave.send_bytes;
            moe.remote_link_Bps = shape.experts_offload->link_Bps;
        } else {
            moe.experts_s =
                localExperts * (gemmTime(dev, prec, perExpert, upMatrices * expertFfn / expertTp, hidden) +
                                gemmTime(dev, prec, perExpert, hidden, expertFfn / expertTp));
        }
        const double shared = static_cast<double>(experts.shared_experts);
        if (shared > 0)
            moe.shared_s = gemmTime(dev, prec, tokens, upMatrices * shared * expertFfn / tp, hidden) +
                           gemmTime(dev, prec, tokens, hidden, shared * expertFfn / tp);
        moe.experts_s += moe.shared_s;
        moe.ffn_s = gemmTime(dev, shape.attention_precision, tokens, static_cast<double>(experts.experts),
                             hidden) +
                    moe.experts_s; // + router
        // Expert activations, and the permutation of tokens to and from expert order (read + write each).
        const double activationPasses = model.ffn_gated ? 3.0 : 2.0;
        moe.routed_activation_bytes = activationPasses * routedHere * expertFfn / expertTp * act;
        moe.shared_activation_bytes = activationPasses * shared * tokens * expertFfn / tp * act;
        moe.activation_bytes =
            moe.routed_activation_bytes + moe.shared_activation_bytes + 4.0 * routed * hidden * act;
    }
    return moe;
}

struct AttentionTimes {
    double forward_s = 0.0;
    double backward_s = 0.0;
};

AttentionTimes attentionTimes(const ChunkShape& shape) {
    const Device& dev = shape.device;
    const Workload& workload = shape.workload;
    const Precision attnPrec = shape.attention_precision;
    const double tp = shape.tp, cp = shape.cp, tokens = shape.tokens, act = shape.act_bytes;
    const double queryWidth = shape.query_width, kvWidth = shape.kv_width;
    // Fused causal attention: half of the 4*tokens*seq*q FLOPs are computed (local queries against the
    // whole sequence's keys under context parallelism); backward does 2.5x forward. One call per layer,
    // or under context parallelism one per ring step (Transformer Engine's ring attention: the local
    // queries against one peer's keys and values, load-balanced so that every step does 1/cp of the
    // work), and the efficiency curve is a function of one call's FLOPs.
    const double attnFlops = 0.5 * 4.0 * tokens * static_cast<double>(shape.model.seq_len) * queryWidth / tp;
    const double attnCallFlops = attnFlops / cp;
    const Roofline attn = rooflineFor(
        dev, attnPrec,
        dev.efficiency.attentionFraction(attnCallFlops, workload.attention == AttentionKernel::Flash2));
    const Roofline& mem = shape.memory_kernel;
    const double attnBytes = (2.0 * queryWidth + 2.0 * kvWidth) / tp * tokens * act;
    AttentionTimes times;
    times.forward_s = attn.time(attnFlops, attnBytes) + (cp - 1.0) * attn.overhead_s;
    times.backward_s = attn.time(2.5 * attnFlops, 2.5 * attnBytes) + (cp - 1.0) * attn.overhead_s;
    if (workload.attention == AttentionKernel::Unfused) {
        // Scores Q K^T and output P V as batched GEMMs over the whole s x s (masking does not skip work),
        // with the scores (heads/t x tokens x seq) written, softmaxed, dropped out and read back.
        const double seq = static_cast<double>(shape.model.seq_len);
        const double scores = tokens * seq * static_cast<double>(shape.model.heads) / tp;
        const double bmmFlops = 2.0 * tokens * seq * queryWidth / tp;
        const Roofline bmm = rooflineFor(dev, attnPrec, dev.efficiency.gemmFraction(attnPrec, bmmFlops));
        const double qk = bmm.time(bmmFlops, (tokens * queryWidth / tp + seq * kvWidth / tp + scores) * act);
        const double pv = bmm.time(bmmFlops, (scores + seq * kvWidth / tp + tokens * queryWidth / tp) * act);
        const double softmax = mem.time(0.0, 2.0 * scores * act);
        const double dropout = mem.time(0.0, scores * (2.0 * act + 1.0));
        times.forward_s = qk + softmax + dropout + pv;
        // Backward: two GEMMs for each, the softmax gradient (reads P and dP, writes dS), dropout's.
        times.backward_s = 2.0 * qk + 2.0 * pv + mem.time(0.0, 3.0 * scores * act) + dropout;
    }
    return times;
}

// The forward's memory-bound kernels of one layer.
double memoryBoundForward(const ChunkShape& shape, const MoeCost& moe) {
    const Workload& workload = shape.workload;
    const Precision prec = shape.precision;
    const double tp = shape.tp, tokens = shape.tokens, hidden = shape.hidden, act = shape.act_bytes;
    const double ffnHidden = shape.ffn_hidden, queryWidth = shape.query_width;
    // Memory-bound kernels: 2 norms and 2 residual adds (10 passes over tokens x h, split by tensor
    // rank only with sequence parallelism), rotary embedding on Q and K, the FFN activation.
    const double replicated = 10.0 * tokens * hidden * act / (workload.parallel.sequence_parallel ? tp : 1.0);
    const double rotary = 2.0 * tokens * (queryWidth + shape.kv_width) / tp * act;
    const double activation = (shape.model.ffn_gated ? 3.0 : 2.0) * tokens * ffnHidden / tp * act;
    // fp8 GEMMs take fp8 inputs: each of the four GEMM inputs is cast (read 16-bit, write 8-bit) in its own
    // kernel; backward casts the output gradients and transposes, about twice as much (below, 2 x memFwd).
    // Under current scaling every cast first reads its input once more for the amax, and launches an amax
    // and a scale kernel of its own (Fp8Recipe). fp4 training is Transformer Engine's NVFP4 recipe
    // (NVFP4BlockScaling, the one Megatron-Bridge's nvfp4 runs use): 4-bit values with an 8-bit scale per
    // 16 (0.5625 bytes an element) under a per-tensor scale from the tensor's amax, so every cast also reads
    // its input twice and launches the amax and scale kernels; the Hadamard transform of the weight-gradient
    // inputs and stochastic rounding happen inside the cast kernels.
    const bool fp8 = prec == Precision::Fp8;
    const bool fp4 = prec == Precision::Fp4;
    const bool amaxPass = (fp8 && workload.fp8_recipe == Fp8Recipe::Current) || fp4;
    const double castBytes = quantisedGemms(prec)
                                 ? tokens * (2.0 * hidden + queryWidth / tp + ffnHidden / tp) *
                                       (act + quantisedInputBytes(prec) + (amaxPass ? act : 0.0))
                                 : 0.0;
    const double elementwiseKernels = 7.0 + (quantisedGemms(prec) ? 4.0 : 0.0) + (amaxPass ? 8.0 : 0.0);
    const Roofline& mem = shape.memory_kernel;
    return mem.time(0.0, replicated + rotary + (1.0 - moe.share) * activation +
                             moe.share * moe.activation_bytes + castBytes) +
           (elementwiseKernels - 1.0 + (moe.share > 0 ? 3.0 * moe.share : 0.0)) * mem.overhead_s;
}

// What selective recomputation runs again in one layer's backward (Workload::RecomputeModules), by kind.
struct SelectiveRecompute {
    double gemm_s = 0.0;
    double attention_s = 0.0;
    double memory_s = 0.0;
    [[nodiscard]] double total() const { return gemm_s + attention_s + memory_s; }
};

// One layer of the chunk (the average of its dense and MoE layers) on one tensor rank, seconds.
struct LayerCost {
    // GEMMs, forward.
    double qkv_s = 0.0;
    double projection_s = 0.0;
    double up_s = 0.0;
    double down_s = 0.0;
    MoeCost moe;
    double gemm_forward_s = 0.0;
    AttentionTimes attention;
    double memory_forward_s = 0.0;
    double forward_s = 0.0;
    double backward_s = 0.0; // without recomputation
    double recompute_s = 0.0;
    double selective_ops_gemm_s = 0.0; // the GEMMs that Recompute::SelectiveOps runs again
    SelectiveRecompute selective;      // what Recompute::Selective runs again
};

// The modules selective recomputation runs again (Workload::RecomputeModules), per layer as the chunk's
// average: the attention core's forward; the two norms (each reads its input and writes its output); the
// dense layers' MLP (GEMMs and activation); the MoE layer's router, experts, activations and permutations
// (its all-to-alls are counted with the expert traffic), or apart its routed experts' activation function
// and its shared experts.
SelectiveRecompute selectiveRecompute(const ChunkShape& shape, const LayerCost& layer) {
    SelectiveRecompute again;
    const Workload& workload = shape.workload;
    if (workload.recompute != Recompute::Selective)
        return again;
    const RecomputeModules& modules = workload.recompute_modules;
    const MoeCost& moe = layer.moe;
    const Roofline& mem = shape.memory_kernel;
    const double tp = shape.tp, tokens = shape.tokens, act = shape.act_bytes;
    if (modules.core_attn)
        again.attention_s = layer.attention.forward_s;
    if (modules.layernorm) {
        const double normTokens = tokens / (workload.parallel.sequence_parallel ? tp : 1.0);
        again.memory_s += mem.time(0.0, 4.0 * normTokens * shape.hidden * act) + mem.overhead_s;
    }
    const double denseShare = 1.0 - moe.share;
    if (modules.mlp && denseShare > 0.0) {
        const double passes = shape.model.ffn_gated ? 3.0 : 2.0;
        again.gemm_s += denseShare * (layer.up_s + layer.down_s);
        again.memory_s += denseShare * mem.time(0.0, passes * tokens * shape.ffn_hidden / tp * act);
    }
    if (moe.share <= 0.0)
        return again;
    if (modules.moe) {
        again.gemm_s += moe.share * (moe.ffn_s + moe.remote_forward_s);
        again.memory_s += moe.share * mem.time(0.0, moe.activation_bytes);
        return again;
    }
    if (modules.moe_act)
        again.memory_s += moe.share * mem.time(0.0, moe.routed_activation_bytes);
    if (modules.shared_experts) {
        again.gemm_s += moe.share * moe.shared_s;
        again.memory_s += moe.share * mem.time(0.0, moe.shared_activation_bytes);
    }
    return again;
}

LayerCost layerCost(const ChunkShape& shape) {
    const Device& dev = shape.device;
    const Workload& workload = shape.workload;
    const Precision prec = shape.precision;
    const double tp = shape.tp, tokens = shape.tokens, hidden = shape.hidden, ffnHidden = shape.ffn_hidden;
    const double queryWidth = shape.query_width, kvWidth = shape.kv_width;
    LayerCost layer;
    // GEMMs of one layer, forward, one tensor rank.
    layer.qkv_s = gemmTime(dev, prec, tokens, (queryWidth + 2.0 * kvWidth) / tp, hidden);
    layer.projection_s = gemmTime(dev, prec, tokens, hidden, queryWidth / tp);
    layer.up_s = gemmTime(dev, prec, tokens, (shape.model.ffn_gated ? 2.0 : 1.0) * ffnHidden / tp, hidden);
    layer.down_s = gemmTime(dev, prec, tokens, hidden, ffnHidden / tp);
    layer.moe = moeCost(shape);
    const MoeCost& moe = layer.moe;
    layer.gemm_forward_s = layer.qkv_s + layer.projection_s +
                           (1.0 - moe.share) * (layer.up_s + layer.down_s) + moe.share * moe.ffn_s;
    layer.attention = attentionTimes(shape);
    layer.memory_forward_s = memoryBoundForward(shape, moe);

    layer.forward_s = layer.gemm_forward_s + layer.attention.forward_s + layer.memory_forward_s +
                      moe.share * moe.remote_forward_s;
    layer.backward_s = 2.0 * layer.gemm_forward_s + layer.attention.backward_s +
                       2.0 * layer.memory_forward_s + moe.share * moe.remote_backward_s;
    // torchtitan's op-level policy recomputes the second, fourth and sixth matmul of a dense layer (K, the
    // output projection, the FFN's up or, ungated, down projection), the routed experts' grouped GEMMs
    // (not in its list of saved ops), and every element-wise kernel; attention's output is kept.
    layer.selective_ops_gemm_s =
        workload.recompute != Recompute::SelectiveOps
            ? 0.0
            : gemmTime(dev, prec, tokens, kvWidth / tp, hidden) + layer.projection_s +
                  (1.0 - moe.share) * (shape.model.ffn_gated
                                           ? gemmTime(dev, prec, tokens, ffnHidden / tp, hidden)
                                           : layer.down_s) +
                  moe.share * moe.ffn_s;
    if (workload.recompute == Recompute::Full)
        layer.recompute_s = layer.forward_s;
    else if (workload.recompute == Recompute::Selective) {
        layer.selective = selectiveRecompute(shape, layer);
        layer.recompute_s = layer.selective.total();
    } else if (workload.recompute == Recompute::SelectiveOps) // offloaded experts recomputed on their pool
        layer.recompute_s =
            layer.selective_ops_gemm_s + layer.memory_forward_s + moe.share * moe.remote_forward_s;
    return layer;
}

// The chunk's layers: compute times and their split for reports.
void addLayerCompute(StageCost& cost, const ChunkShape& shape, const LayerCost& layer) {
    const Workload& workload = shape.workload;
    const double layers = shape.layers;
    const MoeCost& moe = layer.moe;
    cost.forward_s = layers * layer.forward_s;
    // The MoE layers' expert MLPs (routed and shared experts' GEMMs, their activations and the permutation):
    // what the combined 1F1B schedule runs beside the other micro-batch's dispatch (Workload::Overlap).
    cost.moe_mlp_forward_s =
        moe.layers * (moe.experts_s + shape.memory_kernel.time(0.0, moe.activation_bytes));
    cost.moe_mlp_backward_s = 2.0 * cost.moe_mlp_forward_s;
    cost.backward_s = layers * (layer.backward_s + layer.recompute_s);
    cost.recompute_s = layers * layer.recompute_s;
    // Offloaded experts: the wait for their pool, forward, backward and a recomputed forward.
    const bool expertsRecomputed =
        workload.recompute == Recompute::Full || workload.recompute == Recompute::SelectiveOps;
    cost.offload_wait_s =
        moe.layers * (moe.remote_forward_s * (expertsRecomputed ? 2.0 : 1.0) + moe.remote_backward_s);
    if (moe.remote_send_bytes > 0.0) { // a dispatch and a combine per MoE layer and pass
        cost.offload_send_bytes = moe.remote_send_bytes;
        cost.offload_link_Bps = moe.remote_link_Bps;
        cost.offload_transfers_forward = 2.0 * moe.layers;
        cost.offload_transfers_backward = 2.0 * moe.layers * (expertsRecomputed ? 2.0 : 1.0);
    }
    cost.gemm_s = layers * 3.0 * layer.gemm_forward_s;
    cost.attention_s = layers * (layer.attention.forward_s + layer.attention.backward_s);
    cost.memory_bound_s = layers * 3.0 * layer.memory_forward_s;
    if (workload.recompute == Recompute::Full) {
        cost.gemm_s += layers * layer.gemm_forward_s;
        cost.attention_s += layers * layer.attention.forward_s;
        cost.memory_bound_s += layers * layer.memory_forward_s;
    } else if (workload.recompute == Recompute::Selective) {
        cost.gemm_s += layers * layer.selective.gemm_s;
        cost.attention_s += layers * layer.selective.attention_s;
        cost.memory_bound_s += layers * layer.selective.memory_s;
    } else if (workload.recompute == Recompute::SelectiveOps) {
        cost.gemm_s += layers * layer.selective_ops_gemm_s;
        cost.memory_bound_s += layers * layer.memory_forward_s;
    }
}

// A bulk-synchronous device (models/bsp.h): each layer's forward, recomputed forward and backward (twice
// the forward's exchange: the input and weight gradients) add their exchange and syncs.
void addSupersteps(StageCost& cost, const ChunkShape& shape) {
    const ModelShape& m = shape.model;
    const double tp = shape.tp;
    // The activations a token's GEMMs read (the QKV and FFN-up inputs, hidden wide and replicated over tensor
    // ranks; the output projection's, query wide; the down projection's, ffn wide) and write (Q, K and V; the
    // output and down projections', hidden wide; the up (and gate) outputs), elements on one tensor rank.
    const double exchangedPerToken =
        4.0 * shape.hidden + (shape.query_width + 2.0 * shape.kv_width) / tp + shape.query_width / tp +
        (m.ffn_gated ? 2.0 : 1.0) * shape.ffn_hidden / tp + shape.ffn_hidden / tp;
    const SuperstepCost forward =
        layerSupersteps(shape.device, shape.tokens * exchangedPerToken * shape.act_bytes);
    const double recomputedForwards = shape.workload.recompute == Recompute::Full ? 1.0 : 0.0;
    cost.forward_s += shape.layers * forward.total();
    cost.backward_s += shape.layers * (2.0 + recomputedForwards) * forward.total();
    cost.recompute_s += shape.layers * recomputedForwards * forward.total();
    // Reported with the memory-bound work: neither GEMM nor attention arithmetic.
    cost.memory_bound_s += shape.layers * (3.0 + recomputedForwards) * forward.total();
}

// Activation offloading (pp 1, no recomputation: one chunk of every layer): each offloaded layer's
// activations go to the host over the host link during the forward and come back during the backward;
// the computation waits where a copy outlasts its window's layers (offloadWindows).
void addActivationOffload(StageCost& cost, const ChunkShape& shape, const LayerCost& layer) {
    const Workload& workload = shape.workload;
    const Device& dev = shape.device;
    if (workload.activation_offload_layers > 0 && dev.host_link_GBps.value > 0.0) {
        const double copy = layerActivationBytes(workload) / (dev.host_link_GBps.value * 1e9);
        const auto windows =
            offloadWindows(workload.activation_offload_layers, static_cast<std::int64_t>(shape.layers));
        const double forwardWait = offloadWaitSeconds(windows, copy, layer.forward_s);
        const double backwardWait = offloadWaitSeconds(windows, copy, layer.backward_s + layer.recompute_s);
        cost.forward_s += forwardWait;
        cost.backward_s += backwardWait;
        cost.offload_wait_s += forwardWait + backwardWait;
    }
}

// The first chunk's embedding and the last chunk's output layer and loss.
void addEmbeddingAndOutput(StageCost& cost, const ChunkShape& shape) {
    const double tp = shape.tp, tokens = shape.tokens, hidden = shape.hidden, act = shape.act_bytes;
    const Roofline& mem = shape.memory_kernel;
    if (shape.first && !shape.embeddings_offload) { // embedding gather (offloaded: the pool gathers)
        const double bytes = 2.0 * tokens * hidden * act;
        cost.forward_s += mem.time(0.0, bytes);
        cost.backward_s += mem.time(0.0, 2.0 * bytes);
        cost.memory_bound_s += mem.time(0.0, 3.0 * bytes);
    }
    if (shape.last) { // final norm, logits GEMM (vocabulary split over tensor ranks), fp32 cross-entropy
        const double vocab = static_cast<double>(shape.model.vocab);
        const double logits = gemmTime(shape.device, shape.attention_precision, tokens, vocab / tp, hidden);
        // Vocabulary-parallel cross-entropy as Megatron-LM's unfused code runs it, in fp32, in place, bytes
        // per logit: forward casts the bf16 logits (2 read + 4 written), takes the max (4), subtracts it (8),
        // exponentiates (8), sums (4) and divides by the sum (8), six kernels; backward scales the softmax
        // by the loss gradient (8) and casts it back to bf16 (6), two kernels.
        const double logitCount = tokens * vocab / tp;
        const double xentFwd = mem.time(0.0, 38.0 * logitCount) + 5.0 * mem.overhead_s;
        const double xentBwd = mem.time(0.0, 14.0 * logitCount) + mem.overhead_s;
        cost.forward_s += logits + xentFwd;
        cost.backward_s += 2.0 * logits + xentBwd;
        cost.gemm_s += 3.0 * logits;
        cost.memory_bound_s += xentFwd + xentBwd;
    }
}

// The first chunk's rows from an embedding table on a CPU pool: a micro-batch's rows are fetched while the
// micro-batch before it computes, and its gradients sent while the next one does; the chunk waits where
// either outlasts a micro-batch's forward and backward (the link carries each direction on its own).
void addEmbeddingFetch(StageCost& cost, const ChunkShape& shape) {
    if (!shape.first || !shape.embeddings_offload)
        return;
    const EmbeddingTraffic traffic = embeddingTraffic(*shape.embeddings_offload, shape.workload);
    const double window = cost.forward_s + cost.backward_s;
    const double fetchWait = std::max(0.0, traffic.fetch_s() - window);
    const double sendWait = std::max(0.0, traffic.transfer_s - window);
    cost.forward_s += fetchWait;
    cost.backward_s += sendWait;
    cost.embedding_wait_s = fetchWait + sendWait;
    cost.offload_wait_s += cost.embedding_wait_s;
}

// The optimizer, and gradient accumulation where it runs in kernels of its own.
void addOptimizerAndAccumulation(StageCost& cost, const ChunkShape& shape, double params,
                                 double expertParams) {
    const Workload& workload = shape.workload;
    const Roofline& mem = shape.memory_kernel;
    // Optimizer: Adam reads and writes fp32 master, m and v, reads the gradient, writes the weights. With
    // master-weight remainders it reads and writes the 2-byte remainders and reads the bf16 weights too.
    // Under ZeRO a device updates its shard: of the routed experts' parameters over the expert
    // data-parallel group, of the rest over the data-parallel group.
    const double updated =
        workload.parallel.zero >= 1 ? shardedParameters(workload, params, expertParams) : params;
    const double stateBytes = workload.master_weights == MasterWeights::Remainders ? 16.0 + 4.0 + 2.0 : 24.0;
    if (shape.optimizer_offload)
        cost.optimizer_s = optimizerOffloadTimes(*shape.optimizer_offload, workload, updated).total();
    else if (shape.device.bulk_synchronous) // the state lives in streaming memory (models/bsp.h)
        cost.optimizer_s = streamedOptimizerSeconds(shape.device, workload, updated);
    else
        cost.optimizer_s = mem.time(0.0, updated * (stateBytes + gradientReduceBytes(workload) + 2.0)) +
                           4.0 * mem.overhead_s;
    // The expert pool updates the routed experts meanwhile; the step waits for the later of the two (charged
    // to each device's first chunk).
    if (shape.optimizer_offload && shape.optimizer_offload->pool) {
        cost.optimizer_down_bytes = updated * gradientReduceBytes(workload);
        cost.optimizer_up_bytes = updated * activationBytes(workload.sixteenBitPrecision());
        cost.optimizer_link_Bps = shape.optimizer_offload->link_Bps;
    }
    if (shape.experts_offload && shape.index < workload.parallel.pp) {
        const double expertPool = expertPoolOptimizerSeconds(*shape.experts_offload, workload);
        if (expertPool > cost.optimizer_s) // the expert pool's update sets the end: no transfer to move
            cost.optimizer_down_bytes = cost.optimizer_up_bytes = cost.optimizer_link_Bps = 0.0;
        cost.optimizer_s = std::max(cost.optimizer_s, expertPool);
    }
    // The embedding table's pool gets the last gradients and updates the table meanwhile too.
    if (shape.first && shape.embeddings_offload) {
        const double tail = embeddingTraffic(*shape.embeddings_offload, workload).tail_s();
        cost.embedding_tail_s = std::max(0.0, tail - cost.optimizer_s);
        cost.optimizer_s += cost.embedding_tail_s;
    }

    // Gradient accumulation in kernels of its own: every backward's weight-gradient GEMMs write their output
    // in the training precision, then one add per parameter tensor (six a layer: QKV, projection, the
    // two FFN matrices, two norms; the embedding; the final norm and the output layer) reads it with the
    // gradient buffer and writes the buffer back. Fused accumulation does this inside the GEMM.
    if (workload.gradient_accumulation == GradientAccumulation::Separate) {
        const double tensors = 6.0 * shape.layers + (shape.first ? 1.0 : 0.0) + (shape.last ? 2.0 : 0.0);
        const double accumulate =
            mem.time(0.0, params * (shape.act_bytes + 2.0 * gradientReduceBytes(workload))) +
            std::max(0.0, tensors - 1.0) * mem.overhead_s;
        cost.backward_s += accumulate;
        cost.memory_bound_s += accumulate;
    }
}

// Tensor-, context-, expert- and pipeline-parallel traffic.
void addModelParallelTraffic(StageCost& cost, const ChunkShape& shape, const MoeCost& moe) {
    const Workload& workload = shape.workload;
    const ModelShape& model = shape.model;
    const double tp = shape.tp, tokens = shape.tokens, hidden = shape.hidden, act = shape.act_bytes;
    const double layers = shape.layers;
    if (workload.parallel.tp > 1) {
        // Two tensor collectives a layer, the attention's and the FFN's. An MoE layer with whole experts
        // (etp 1) and no shared expert has no FFN collective: each tensor rank routes its own share of the
        // sequence to the experts (Megatron-Core requires sequence parallelism there). Between 1 and tp,
        // its collective over the etp ranks is charged as one over the tensor group.
        cost.tp_bytes = tokens * hidden * act;
        const bool wholeExperts =
            model.moe && workload.parallel.expertTp() == 1 && model.moe->shared_experts == 0;
        const int perChunk = 2 * static_cast<int>(layers) - (wholeExperts ? static_cast<int>(moe.layers) : 0);
        cost.tp_collectives_forward = perChunk + (shape.last ? 1 : 0);
        cost.tp_collectives_backward =
            perChunk + (shape.last ? 1 : 0) + (workload.recompute == Recompute::Full ? perChunk : 0);
    }
    if (workload.parallel.cp > 1) {
        // Ring attention: cp-1 steps per layer, each passing the local K and V (forward), K, V and their
        // gradients (backward).
        const double kv = tokens * 2.0 * shape.kv_width / tp * act;
        const int steps = static_cast<int>(layers) * static_cast<int>(workload.parallel.cp - 1);
        cost.cp_steps_forward = steps;
        cost.cp_bytes_forward = static_cast<double>(steps) * kv;
        cost.cp_steps_backward = steps * (workload.recompute == Recompute::Full ? 2 : 1);
        cost.cp_bytes_backward =
            static_cast<double>(steps) * kv * (workload.recompute == Recompute::Full ? 3.0 : 2.0);
    }
    if (model.moe && moe.layers > 0 && workload.parallel.ep > 1) {
        // Expert parallelism: per MoE layer a dispatch and a combine all-to-all of the routed tokens in
        // forward, two more in backward (and again for a recomputed forward: the whole layer's, or the MoE
        // layer's under selective recomputation). Each device's tokens are split over tensor ranks by
        // sequence parallelism.
        cost.ep_bytes = tokens * static_cast<double>(model.moe->top_k) * hidden * act /
                        (workload.parallel.sequence_parallel ? tp : 1.0);
        const int perLayer = 2;
        cost.ep_collectives_forward = perLayer * static_cast<int>(moe.layers);
        const bool recomputed =
            workload.recompute == Recompute::Full ||
            (workload.recompute == Recompute::Selective && workload.recompute_modules.moe);
        cost.ep_collectives_backward = perLayer * static_cast<int>(moe.layers) * (recomputed ? 2 : 1);
    }
    cost.layers = static_cast<int>(layers);
    cost.pp_bytes = tokens * hidden * act / tp;
}

// Gradients (and under ZeRO-1/2 the parameters gathered back) over the data-parallel group.
void addDataParallelBytes(StageCost& cost, const ChunkShape& shape, double params, double expertParams) {
    const Workload& workload = shape.workload;
    // Gradients (and under ZeRO-1/2 the parameters gathered back) travel in one collective over the dp * cp
    // data-parallel devices. The routed experts' belong to their own group, the tp * cp * dp / (etp * ep)
    // devices that hold the same experts: they are charged as their share of a ring over that group,
    // (e - 1) / e of their bytes against the data-parallel ring's (n - 1) / n, nothing when every expert
    // has one copy (e = 1, as DeepSeek-V3 with ep 64 over 64 devices).
    const double n = static_cast<double>(workload.parallel.dataParallelGroup());
    const double e = static_cast<double>(workload.parallel.expertDataParallelGroup());
    const double expertShare = n > 1.0 ? ((e - 1.0) / e) / ((n - 1.0) / n) : 1.0;
    const double synced = params - expertParams + expertParams * expertShare;
    cost.grad_bytes = synced * gradientReduceBytes(workload);
    cost.param_bytes = workload.parallel.zero == 1 || workload.parallel.zero == 2
                           ? synced * activationBytes(shape.precision)
                           : 0.0;
}

// ZeRO-3: the parameters each layer gathers and the gradients it reduce-scatters, and the steps of its
// forward and backward (StageCost::zero3_forward_steps).
void addZero3Steps(StageCost& cost, const ChunkShape& shape, const LayerCost& layer) {
    const Workload& workload = shape.workload;
    const ModelShape& model = shape.model;
    const auto counts = countParameters(model);
    const double layerParams =
        (counts.attention_per_layer + counts.ffn_per_layer) / shape.tp + counts.norms_per_layer;
    const double paramBytes = activationBytes(shape.precision), gradBytes = gradientReduceBytes(workload);
    cost.zero3_layer_param_bytes = layerParams * paramBytes;
    cost.zero3_layer_grad_bytes = layerParams * gradBytes;
    if (workload.zero3_engine == Zero3Engine::DeepSpeed2021) {
        // Modules as DeepSpeed's hooks see them.
        const double gate = model.ffn_gated ? 2.0 : 1.0;
        const std::array<double, 4> moduleParams = deepSpeedModuleParameters(workload);
        const MoeCost& moe = layer.moe;
        const double attnFwd = layer.attention.forward_s, attnBwd = layer.attention.backward_s;
        const double memFwd = layer.memory_forward_s;
        const double qkv = layer.qkv_s, proj = layer.projection_s;
        const double ffnFwd = (1.0 - moe.share) * (layer.up_s + layer.down_s) + moe.share * moe.ffn_s;
        const double upFwd = ffnFwd * gate / (gate + 1.0), downFwd = ffnFwd / (gate + 1.0);
        const std::array<double, 4> fwd = {qkv + attnFwd + 0.5 * memFwd, proj, upFwd + 0.5 * memFwd, downFwd};
        const std::array<double, 4> bwd = {2.0 * qkv + attnBwd + memFwd, 2.0 * proj, 2.0 * upFwd + memFwd,
                                           2.0 * downFwd};
        const double fwdSum = fwd[0] + fwd[1] + fwd[2] + fwd[3];
        const double bwdSum = bwd[0] + bwd[1] + bwd[2] + bwd[3];
        auto share = [](double part, double sum) { return sum > 0.0 ? part / sum : 0.25; };
        // The recomputed forward's share of the layer's backward time.
        const double recomputed = cost.backward_s > 0.0 ? cost.recompute_s / cost.backward_s : 0.0;
        const bool full = workload.recompute == Recompute::Full && recomputed > 0.0;
        for (std::size_t k = 0; k < 4; ++k)
            cost.zero3_forward_steps.push_back({share(fwd[k], fwdSum), moduleParams[k] * paramBytes, 0.0});
        if (full)
            for (std::size_t k = 0; k < 4; ++k)
                cost.zero3_backward_steps.push_back(
                    {recomputed * share(fwd[k], fwdSum), moduleParams[k] * paramBytes, 0.0});
        for (std::size_t k = 4; k-- > 0;) {
            const bool cached = full && k == 3; // used last by the recomputed forward
            cost.zero3_backward_steps.push_back({(full ? 1.0 - recomputed : 1.0) * share(bwd[k], bwdSum),
                                                 cached ? 0.0 : moduleParams[k] * paramBytes,
                                                 moduleParams[k] * gradBytes});
        }
    } else {
        cost.zero3_forward_steps = {{1.0, cost.zero3_layer_param_bytes, 0.0}};
        cost.zero3_backward_steps = {{1.0, cost.zero3_layer_param_bytes, cost.zero3_layer_grad_bytes}};
    }
}

} // namespace

StageCost stageCost(const ResolvedScenario& rs, std::int64_t chunk) {
    const ChunkShape shape = chunkShape(rs, chunk);
    const LayerCost layer = layerCost(shape);
    StageCost cost;
    addLayerCompute(cost, shape, layer);
    addActivationOffload(cost, shape, layer);
    addEmbeddingAndOutput(cost, shape);
    addEmbeddingFetch(cost, shape);
    const double params = parametersPerChunk(shape.workload, chunk);
    const double expertParams = expertParametersPerChunk(shape.workload, chunk);
    addOptimizerAndAccumulation(cost, shape, params, expertParams);
    if (shape.device.bulk_synchronous)
        addSupersteps(cost, shape);
    addModelParallelTraffic(cost, shape, layer.moe);
    addDataParallelBytes(cost, shape, params, expertParams);
    if (shape.workload.parallel.zero >= 3)
        addZero3Steps(cost, shape, layer);
    return cost;
}

} // namespace choreo::models
