#include "models/stepcost.h"

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
    switch (p) {
    case Precision::Fp8:
        return 1.0;
    case Precision::Fp4:
        return 0.5;
    default:
        return activationBytes(p);
    }
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

double gradientReduceBytes(const Workload& workload) {
    return activationBytes(workload.gradientPrecision());
}

StageCost stageCost(const ResolvedScenario& rs, std::int64_t chunk) {
    const Device& dev = rs.device();
    const Workload& w = rs.workload();
    const ModelShape& m = w.model;
    const Precision prec = w.precision;
    // Attention and element-wise work stay in 16-bit in fp8 and fp4 training.
    const Precision attnPrec = quantisedGemms(prec) ? Precision::Bf16 : prec;
    const double t = static_cast<double>(w.parallel.tp);
    const double cp = static_cast<double>(w.parallel.cp);
    // Tokens each device works on: context parallelism splits the sequence.
    const double tokens = static_cast<double>(w.micro_batch) * static_cast<double>(m.seq_len) / cp;
    const double h = static_cast<double>(m.hidden);
    const double f = static_cast<double>(m.ffn_hidden);
    // All query heads together, and K (or V): hidden and its GQA share unless the model sets head_dim.
    const double q = m.queryWidth();
    const double kvWidth = m.kvWidth();
    const double act = activationBytes(attnPrec);
    const std::int64_t chunks = w.parallel.pp * w.parallel.vp;
    const auto layers = static_cast<double>(layersInChunk(w, chunk));
    const bool first = chunk == 0;
    const bool last = chunk == chunks - 1;

    // GEMMs of one layer, forward, one tensor rank.
    const double qkv = gemmTime(dev, prec, tokens, (q + 2.0 * kvWidth) / t, h);
    const double proj = gemmTime(dev, prec, tokens, h, q / t);
    const double up = gemmTime(dev, prec, tokens, (m.ffn_gated ? 2.0 : 1.0) * f / t, h);
    const double down = gemmTime(dev, prec, tokens, h, f / t);
    // Layers with routed experts (balanced load): each device's tokens go to top_k experts; the ep
    // devices of an expert-parallel group send each expert ep * tokens * top_k / experts tokens, and a
    // device runs its experts / ep experts as one GEMM each; shared experts see every token; the router
    // scores every token against every expert. The etp devices that split an expert's matrices pool their
    // tokens: tokens * etp / tp of them (the whole tensor group's when etp = tp; with etp below tp, the
    // share sequence parallelism gave the device's etp ranks). Per-layer figures below are averages over
    // the chunk's dense and MoE layers, which keeps every `layers * x` sum exact.
    const auto moeLayers = static_cast<double>(moeLayersInChunk(w, chunk));
    const double moeShare = layers > 0 ? moeLayers / layers : 0.0;
    double moeFfn = 0.0, moeExperts = 0.0, moeActivationBytes = 0.0;
    if (m.moe && moeLayers > 0) {
        const auto& e = *m.moe;
        const double ef = static_cast<double>(e.expert_ffn_hidden);
        const double ep = static_cast<double>(w.parallel.ep);
        const double et = static_cast<double>(w.parallel.expertTp());
        const double local = static_cast<double>(e.experts) / ep;
        const double routed = tokens * et / t * static_cast<double>(e.top_k); // token-expert pairs per device
        const double perExpert = routed / local;
        const double gate = m.ffn_gated ? 2.0 : 1.0;
        moeExperts = local * (gemmTime(dev, prec, perExpert, gate * ef / et, h) +
                              gemmTime(dev, prec, perExpert, h, ef / et));
        const double shared = static_cast<double>(e.shared_experts);
        if (shared > 0)
            moeExperts += gemmTime(dev, prec, tokens, gate * shared * ef / t, h) +
                          gemmTime(dev, prec, tokens, h, shared * ef / t);
        moeFfn = gemmTime(dev, attnPrec, tokens, static_cast<double>(e.experts), h) + moeExperts; // + router
        // Expert activations, and the permutation of tokens to and from expert order (read + write each).
        moeActivationBytes = (m.ffn_gated ? 3.0 : 2.0) * (routed * ef / et + shared * tokens * ef / t) * act +
                             4.0 * routed * h * act;
    }
    const double gemmFwd = qkv + proj + (1.0 - moeShare) * (up + down) + moeShare * moeFfn;

    // Fused causal attention: half of the 4*tokens*seq*q FLOPs are computed (local queries against the
    // whole sequence's keys under context parallelism); backward does 2.5x forward. One call per layer,
    // or under context parallelism one per ring step (Transformer Engine's ring attention: the local
    // queries against one peer's keys and values, load-balanced so that every step does 1/cp of the
    // work), and the efficiency curve is a function of one call's FLOPs.
    const double attnFlops = 0.5 * 4.0 * tokens * static_cast<double>(m.seq_len) * q / t;
    const double attnCallFlops = attnFlops / cp;
    const Roofline attn =
        rooflineFor(dev, attnPrec,
                    dev.efficiency.attentionFraction(attnCallFlops, w.attention == AttentionKernel::Flash2));
    const Roofline mem = rooflineFor(dev, attnPrec, 1.0);
    const double attnBytes = (2.0 * q + 2.0 * kvWidth) / t * tokens * act;
    double attnFwd = attn.time(attnFlops, attnBytes) + (cp - 1.0) * attn.overhead_s;
    double attnBwd = attn.time(2.5 * attnFlops, 2.5 * attnBytes) + (cp - 1.0) * attn.overhead_s;
    if (w.attention == AttentionKernel::Unfused) {
        // Scores Q K^T and output P V as batched GEMMs over the whole s x s (masking does not skip work),
        // with the scores (heads/t x tokens x seq) written, softmaxed, dropped out and read back.
        const double seq = static_cast<double>(m.seq_len);
        const double scores = tokens * seq * static_cast<double>(m.heads) / t;
        const double bmmFlops = 2.0 * tokens * seq * q / t;
        const Roofline bmm = rooflineFor(dev, attnPrec, dev.efficiency.gemmFraction(attnPrec, bmmFlops));
        const double qk = bmm.time(bmmFlops, (tokens * q / t + seq * kvWidth / t + scores) * act);
        const double pv = bmm.time(bmmFlops, (scores + seq * kvWidth / t + tokens * q / t) * act);
        const double softmax = mem.time(0.0, 2.0 * scores * act);
        const double dropout = mem.time(0.0, scores * (2.0 * act + 1.0));
        attnFwd = qk + softmax + dropout + pv;
        // Backward: two GEMMs for each, the softmax gradient (reads P and dP, writes dS), dropout's.
        attnBwd = 2.0 * qk + 2.0 * pv + mem.time(0.0, 3.0 * scores * act) + dropout;
    }

    // Memory-bound kernels: 2 norms and 2 residual adds (10 passes over tokens x h, split by tensor
    // rank only with sequence parallelism), rotary embedding on Q and K, the FFN activation.
    const double replicated = 10.0 * tokens * h * act / (w.parallel.sequence_parallel ? t : 1.0);
    const double rotary = 2.0 * tokens * (q + kvWidth) / t * act;
    const double activation = (m.ffn_gated ? 3.0 : 2.0) * tokens * f / t * act;
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
    const bool amaxPass = (fp8 && w.fp8_recipe == Fp8Recipe::Current) || fp4;
    const double castBytes =
        quantisedGemms(prec)
            ? tokens * (2.0 * h + q / t + f / t) * (act + quantisedInputBytes(prec) + (amaxPass ? act : 0.0))
            : 0.0;
    const double elementwiseKernels = 7.0 + (quantisedGemms(prec) ? 4.0 : 0.0) + (amaxPass ? 8.0 : 0.0);
    const double memFwd = mem.time(0.0, replicated + rotary + (1.0 - moeShare) * activation +
                                            moeShare * moeActivationBytes + castBytes) +
                          (elementwiseKernels - 1.0 + (moeShare > 0 ? 3.0 * moeShare : 0.0)) * mem.overhead_s;

    const double layerFwd = gemmFwd + attnFwd + memFwd;
    const double layerBwd = 2.0 * gemmFwd + attnBwd + 2.0 * memFwd;
    double recompute = 0.0;
    // torchtitan's op-level policy recomputes the second, fourth and sixth matmul of a dense layer (K, the
    // output projection, the FFN's up or, ungated, down projection), the routed experts' grouped GEMMs
    // (not in its list of saved ops), and every element-wise kernel; attention's output is kept.
    const double everySecondMatmul =
        w.recompute != Recompute::SelectiveOps
            ? 0.0
            : gemmTime(dev, prec, tokens, kvWidth / t, h) + proj +
                  (1.0 - moeShare) * (m.ffn_gated ? gemmTime(dev, prec, tokens, f / t, h) : down) +
                  moeShare * moeFfn;
    if (w.recompute == Recompute::Full)
        recompute = layerFwd;
    else if (w.recompute == Recompute::Selective)
        recompute = attnFwd;
    else if (w.recompute == Recompute::SelectiveOps)
        recompute = everySecondMatmul + memFwd;

    StageCost c;
    c.forward_s = layers * layerFwd;
    // The MoE layers' expert MLPs (routed and shared experts' GEMMs, their activations and the permutation):
    // what the combined 1F1B schedule runs beside the other micro-batch's dispatch (Workload::Overlap).
    c.moe_mlp_forward_s = moeLayers * (moeExperts + mem.time(0.0, moeActivationBytes));
    c.moe_mlp_backward_s = 2.0 * c.moe_mlp_forward_s;
    c.backward_s = layers * (layerBwd + recompute);
    c.recompute_s = layers * recompute;
    c.gemm_s = layers * 3.0 * gemmFwd;
    c.attention_s = layers * (attnFwd + attnBwd);
    c.memory_bound_s = layers * 3.0 * memFwd;
    if (w.recompute == Recompute::Full) {
        c.gemm_s += layers * gemmFwd;
        c.attention_s += layers * attnFwd;
        c.memory_bound_s += layers * memFwd;
    } else if (w.recompute == Recompute::Selective) {
        c.attention_s += layers * attnFwd;
    } else if (w.recompute == Recompute::SelectiveOps) {
        c.gemm_s += layers * everySecondMatmul;
        c.memory_bound_s += layers * memFwd;
    }

    // Activation offloading (pp 1, no recomputation: one chunk of every layer): each offloaded layer's
    // activations go to the host over the host link during the forward and come back during the backward;
    // the computation waits where a copy outlasts its window's layers (offloadWindows).
    if (w.activation_offload_layers > 0 && dev.host_link_GBps.value > 0.0) {
        const double copy = layerActivationBytes(w) / (dev.host_link_GBps.value * 1e9);
        const auto windows = offloadWindows(w.activation_offload_layers, static_cast<std::int64_t>(layers));
        const double forwardWait = offloadWaitSeconds(windows, copy, layerFwd);
        const double backwardWait = offloadWaitSeconds(windows, copy, layerBwd + recompute);
        c.forward_s += forwardWait;
        c.backward_s += backwardWait;
        c.offload_wait_s = forwardWait + backwardWait;
    }

    if (first) { // embedding gather
        const double bytes = 2.0 * tokens * h * act;
        c.forward_s += mem.time(0.0, bytes);
        c.backward_s += mem.time(0.0, 2.0 * bytes);
        c.memory_bound_s += mem.time(0.0, 3.0 * bytes);
    }
    if (last) { // final norm, logits GEMM (vocabulary split over tensor ranks), fp32 cross-entropy
        const double V = static_cast<double>(m.vocab);
        const double logits = gemmTime(dev, attnPrec, tokens, V / t, h);
        // Vocabulary-parallel cross-entropy as Megatron-LM's unfused code runs it, in fp32, in place, bytes
        // per logit: forward casts the bf16 logits (2 read + 4 written), takes the max (4), subtracts it (8),
        // exponentiates (8), sums (4) and divides by the sum (8), six kernels; backward scales the softmax
        // by the loss gradient (8) and casts it back to bf16 (6), two kernels.
        const double logitCount = tokens * V / t;
        const double xentFwd = mem.time(0.0, 38.0 * logitCount) + 5.0 * mem.overhead_s;
        const double xentBwd = mem.time(0.0, 14.0 * logitCount) + mem.overhead_s;
        c.forward_s += logits + xentFwd;
        c.backward_s += 2.0 * logits + xentBwd;
        c.gemm_s += 3.0 * logits;
        c.memory_bound_s += xentFwd + xentBwd;
    }

    // Optimizer: Adam reads and writes fp32 master, m and v, reads the gradient, writes the weights. With
    // master-weight remainders it reads and writes the 2-byte remainders and reads the bf16 weights too.
    // Under ZeRO a device updates its shard: of the routed experts' parameters over the expert
    // data-parallel group, of the rest over the data-parallel group.
    const double params = parametersPerChunk(w, chunk);
    const double expertParams = expertParametersPerChunk(w, chunk);
    const double updated = w.parallel.zero >= 1 ? shardedParameters(w, params, expertParams) : params;
    const double stateBytes = w.master_weights == MasterWeights::Remainders ? 16.0 + 4.0 + 2.0 : 24.0;
    c.optimizer_s =
        mem.time(0.0, updated * (stateBytes + gradientReduceBytes(w) + 2.0)) + 4.0 * mem.overhead_s;

    // Gradient accumulation in kernels of its own: every backward's weight-gradient GEMMs write their output
    // in the training precision, then one add per parameter tensor (six a layer: QKV, projection, the
    // two FFN matrices, two norms; the embedding; the final norm and the output layer) reads it with the
    // gradient buffer and writes the buffer back. Fused accumulation does this inside the GEMM.
    if (w.gradient_accumulation == GradientAccumulation::Separate) {
        const double tensors = 6.0 * layers + (first ? 1.0 : 0.0) + (last ? 2.0 : 0.0);
        const double accumulate = mem.time(0.0, params * (act + 2.0 * gradientReduceBytes(w))) +
                                  std::max(0.0, tensors - 1.0) * mem.overhead_s;
        c.backward_s += accumulate;
        c.memory_bound_s += accumulate;
    }

    if (w.parallel.tp > 1) {
        // Two tensor collectives a layer, the attention's and the FFN's. An MoE layer with whole experts
        // (etp 1) and no shared expert has no FFN collective: each tensor rank routes its own share of the
        // sequence to the experts (Megatron-Core requires sequence parallelism there). Between 1 and tp,
        // its collective over the etp ranks is charged as one over the tensor group.
        c.tp_bytes = tokens * h * act;
        const bool wholeExperts = m.moe && w.parallel.expertTp() == 1 && m.moe->shared_experts == 0;
        const int perChunk = 2 * static_cast<int>(layers) - (wholeExperts ? static_cast<int>(moeLayers) : 0);
        c.tp_collectives_forward = perChunk + (last ? 1 : 0);
        c.tp_collectives_backward =
            perChunk + (last ? 1 : 0) + (w.recompute == Recompute::Full ? perChunk : 0);
    }
    if (w.parallel.cp > 1) {
        // Ring attention: cp-1 steps per layer, each passing the local K and V (forward), K, V and their
        // gradients (backward).
        const double kv = tokens * 2.0 * kvWidth / t * act;
        const int steps = static_cast<int>(layers) * static_cast<int>(w.parallel.cp - 1);
        c.cp_steps_forward = steps;
        c.cp_bytes_forward = static_cast<double>(steps) * kv;
        c.cp_steps_backward = steps * (w.recompute == Recompute::Full ? 2 : 1);
        c.cp_bytes_backward = static_cast<double>(steps) * kv * (w.recompute == Recompute::Full ? 3.0 : 2.0);
    }
    if (m.moe && moeLayers > 0 && w.parallel.ep > 1) {
        // Expert parallelism: per MoE layer a dispatch and a combine all-to-all of the routed tokens in
        // forward, two more in backward (and again for a recomputed forward). Each device's tokens are
        // split over tensor ranks by sequence parallelism.
        c.ep_bytes =
            tokens * static_cast<double>(m.moe->top_k) * h * act / (w.parallel.sequence_parallel ? t : 1.0);
        const int perLayer = 2;
        c.ep_collectives_forward = perLayer * static_cast<int>(moeLayers);
        c.ep_collectives_backward =
            perLayer * static_cast<int>(moeLayers) * (w.recompute == Recompute::Full ? 2 : 1);
    }
    c.layers = static_cast<int>(layers);
    c.pp_bytes = tokens * h * act / t;
    // Gradients (and under ZeRO-1/2 the parameters gathered back) travel in one collective over the dp * cp
    // data-parallel devices. The routed experts' belong to their own group, the tp * cp * dp / (etp * ep)
    // devices that hold the same experts: they are charged as their share of a ring over that group,
    // (e - 1) / e of their bytes against the data-parallel ring's (n - 1) / n, nothing when every expert
    // has one copy (e = 1, as DeepSeek-V3 with ep 64 over 64 devices).
    const double n = static_cast<double>(w.parallel.dataParallelGroup());
    const double e = static_cast<double>(w.parallel.expertDataParallelGroup());
    const double expertShare = n > 1.0 ? ((e - 1.0) / e) / ((n - 1.0) / n) : 1.0;
    const double synced = params - expertParams + expertParams * expertShare;
    c.grad_bytes = synced * gradientReduceBytes(w);
    c.param_bytes = w.parallel.zero == 1 || w.parallel.zero == 2 ? synced * activationBytes(prec) : 0.0;
    if (w.parallel.zero >= 3) {
        const auto counts = countParameters(m);
        const double layerParams =
            (counts.attention_per_layer + counts.ffn_per_layer) / t + counts.norms_per_layer;
        const double paramBytes = activationBytes(prec), gradBytes = gradientReduceBytes(w);
        c.zero3_layer_param_bytes = layerParams * paramBytes;
        c.zero3_layer_grad_bytes = layerParams * gradBytes;
        if (w.zero3_engine == Zero3Engine::DeepSpeed2021) {
            // Modules as DeepSpeed's hooks see them.
            const double gate = m.ffn_gated ? 2.0 : 1.0;
            const std::array<double, 4> moduleParams = deepSpeedModuleParameters(w);
            const double ffnFwd = (1.0 - moeShare) * (up + down) + moeShare * moeFfn;
            const double upFwd = ffnFwd * gate / (gate + 1.0), downFwd = ffnFwd / (gate + 1.0);
            const std::array<double, 4> fwd = {qkv + attnFwd + 0.5 * memFwd, proj, upFwd + 0.5 * memFwd,
                                               downFwd};
            const std::array<double, 4> bwd = {2.0 * qkv + attnBwd + memFwd, 2.0 * proj, 2.0 * upFwd + memFwd,
                                               2.0 * downFwd};
            const double fwdSum = fwd[0] + fwd[1] + fwd[2] + fwd[3];
            const double bwdSum = bwd[0] + bwd[1] + bwd[2] + bwd[3];
            auto share = [](double part, double sum) { return sum > 0.0 ? part / sum : 0.25; };
            // The recomputed forward's share of the layer's backward time.
            const double recomputed = c.backward_s > 0.0 ? c.recompute_s / c.backward_s : 0.0;
            const bool full = w.recompute == Recompute::Full && recomputed > 0.0;
            for (std::size_t k = 0; k < 4; ++k)
                c.zero3_forward_steps.push_back({share(fwd[k], fwdSum), moduleParams[k] * paramBytes, 0.0});
            if (full)
                for (std::size_t k = 0; k < 4; ++k)
                    c.zero3_backward_steps.push_back(
                        {recomputed * share(fwd[k], fwdSum), moduleParams[k] * paramBytes, 0.0});
            for (std::size_t k = 4; k-- > 0;) {
                const bool cached = full && k == 3; // used last by the recomputed forward
                c.zero3_backward_steps.push_back({(full ? 1.0 - recomputed : 1.0) * share(bwd[k], bwdSum),
                                                  cached ? 0.0 : moduleParams[k] * paramBytes,
                                                  moduleParams[k] * gradBytes});
            }
        } else {
            c.zero3_forward_steps = {{1.0, c.zero3_layer_param_bytes, 0.0}};
            c.zero3_backward_steps = {{1.0, c.zero3_layer_param_bytes, c.zero3_layer_grad_bytes}};
        }
    }
    return c;
}

} // namespace choreo::models
