#include "models/memory.h"

#include "models/jsonreader.h"
#include "models/transformer.h"

#include <algorithm>

namespace choreo::models {

namespace {
constexpr double kGB = 1e9;
// CUDA context, allocator fragmentation, NCCL and gradient-bucket buffers: a fixed allowance
// (CHOREO-DEFAULT).
constexpr double kRuntimeBuffersGB = 3.0;
} // namespace

TrainingStateBytes trainingStateBytes(const Workload& workload) {
    TrainingStateBytes b;
    b.gradients = activationBytes(workload.gradientPrecision());
    if (workload.master_weights == MasterWeights::Remainders)
        b.optimizer = 10.0; // the bf16 weight's 16-bit remainder, Adam m and v
    return b;
}

std::string MemoryBreakdown::describe() const {
    return "weights " + formatNumber(weights_GB) + " GB, gradients " + formatNumber(gradients_GB) +
           " GB, optimizer " + formatNumber(optimizer_GB) + " GB, activations " +
           formatNumber(activations_GB) + " GB, buffers " + formatNumber(buffers_GB) + " GB" +
           (off_chip_GB > 0.0 ? "; off-chip " + formatNumber(off_chip_GB) + " GB" : std::string());
}

// The FFN's intermediates a layer keeps, for `sbf` elements of its width (the routed and shared experts' in
// a model with routed experts): the first matrix's output (gated: gate and up, 16-bit) and the second's
// input (16-bit, or its quantised copy). Selective recomputation keeps none of a recomputed MLP's or MoE
// layer's, none of the shared experts' when they are recomputed, and drops the routed experts' activation
// output (the second matrix's 16-bit input) when that is recomputed (Workload::RecomputeModules).
double ffnActivationBytes(const Workload& w, double sbf) {
    const auto& m = w.model;
    const double gemmInput = quantisedInputBytes(w.precision);
    const double perElement = (m.ffn_gated ? 4.0 : 2.0) + gemmInput;
    if (w.recompute != Recompute::Selective)
        return perElement * sbf;
    const RecomputeModules& modules = w.recompute_modules;
    if (!m.moe)
        return modules.mlp ? 0.0 : perElement * sbf;
    if (modules.moe)
        return 0.0;
    const double topK = static_cast<double>(m.moe->top_k);
    const double shared = static_cast<double>(m.moe->shared_experts);
    const double routedShare = topK / (topK + shared);
    const double routed = (perElement - (modules.moe_act && !quantisedGemms(w.precision) ? gemmInput : 0.0)) *
                          routedShare * sbf;
    return routed + (modules.shared_experts ? 0.0 : perElement * (1.0 - routedShare) * sbf);
}

double layerActivationBytes(const Workload& w) {
    const auto& m = w.model;
    // Context parallelism splits the sequence: each device keeps the activations of seq_len / cp tokens.
    const double sbh = static_cast<double>(w.micro_batch) * static_cast<double>(m.seq_len) /
                       static_cast<double>(w.parallel.cp) * static_cast<double>(m.hidden);
    // A model with routed experts keeps the intermediates of the top_k + shared experts of each token (and
    // the permuted copies of its routed tokens) in its MoE layers, most of its layers; counted for all.
    const double ffnWidth = m.moe ? static_cast<double>(m.moe->top_k + m.moe->shared_experts) *
                                        static_cast<double>(m.moe->expert_ffn_hidden)
                                  : static_cast<double>(m.ffn_hidden);
    const double sbf = sbh / static_cast<double>(m.hidden) * ffnWidth;
    // Q and the attention output are heads x head width wide, K and V kv_heads x head width: as shares of
    // the hidden size (1 and the GQA share unless the model sets head_dim).
    const double qRatio = m.queryWidth() / static_cast<double>(m.hidden);
    const double kvRatio = m.kvWidth() / static_cast<double>(m.hidden);
    const double t = static_cast<double>(w.parallel.tp);
    // Recompute::SelectiveOps (torchtitan's op-level policy) is charged what Megatron's selective keeps, an
    // upper bound: it keeps fewer tensors (the norms' outputs and the FFN's activation are recomputed).
    if (w.recompute == Recompute::Full) // only the layer input is kept
        return 2.0 * sbh / (w.parallel.sequence_parallel ? t : 1.0);
    // fp8 and fp4 training (Transformer Engine) keep the quantised copy of a GEMM's input for its weight
    // gradient instead of the 16-bit one: 1 byte an element in fp8, 0.5625 in NVFP4.
    const double gemmInput = quantisedInputBytes(w.precision);
    // Replicated across tensor ranks unless sequence parallel: the two norms' inputs (4sbh), the dropout
    // masks (2sbh, 1 byte each, none without dropout) and the inputs of the QKV and first FFN matrices
    // (2 x 2sbh in 16-bit).
    double replicated = (4.0 + (m.dropout ? 2.0 : 0.0) + 2.0 * gemmInput) * sbh;
    const bool selective = w.recompute == Recompute::Selective;
    const RecomputeModules& modules = w.recompute_modules;
    // Selective recomputation of the norms drops their outputs, the QKV and first FFN inputs, where the
    // GEMMs keep those 16-bit inputs; quantised GEMMs keep copies of their own (Workload::RecomputeModules).
    if (selective && modules.layernorm && !quantisedGemms(w.precision))
        replicated -= 2.0 * gemmInput * sbh;
    // Split across tensor ranks: Q, K, V (GQA shrinks K and V), attention output and softmax statistics
    // (and, quantised, the output projection's own copy of its input), feed-forward intermediates (the
    // first matrix's output, gated: gate and up, and the second matrix's input).
    double split = 2.0 * sbh * (qRatio + 2.0 * kvRatio) + 2.0 * sbh * qRatio +
                   (quantisedGemms(w.precision) ? gemmInput * sbh * qRatio : 0.0) +
                   ffnActivationBytes(w, sbf);
    // Routed tokens: the etp tensor ranks of an expert share their tokens (not split by them); the MoE
    // layer recomputed keeps only its input.
    if (m.moe && !(selective && modules.moe))
        split += 2.0 * sbh * static_cast<double>(m.moe->top_k) * static_cast<double>(w.parallel.expertTp());
    // Unfused attention keeps the softmax output, its dropout mask and the dropped-out scores: 5 a s^2 b
    // bytes (Korthikanti et al.), unless selective recomputation recomputes them.
    if (w.attention == AttentionKernel::Unfused && !(selective && modules.core_attn) &&
        w.recompute != Recompute::SelectiveOps)
        split += 5.0 * static_cast<double>(m.heads) * sbh / static_cast<double>(m.hidden) *
                 static_cast<double>(m.seq_len);
    return (w.parallel.sequence_parallel ? replicated / t : replicated) + split / t;
}

MemoryBreakdown memoryForStage(const Workload& w, std::int64_t stage, double bytesPerLogit) {
    const auto bytes = trainingStateBytes(w);
    // ZeRO shards the routed experts' states over the expert data-parallel group, the rest over the
    // data-parallel group (Megatron-Core keeps an optimizer instance of each).
    const double params = parametersPerDevice(w, stage);
    const double shard = shardedParameters(w, params, expertParametersPerDevice(w, stage));
    const int zero = w.parallel.zero;
    auto held = [&](double perParam, bool sharded) { return (sharded ? shard : params) * perParam / kGB; };
    MemoryBreakdown m;
    m.stage = stage;
    m.weights_GB = held(bytes.weights, zero >= 3);
    m.gradients_GB = held(bytes.gradients, zero >= 2);
    // ZeRO-Offload keeps the optimizer states in the CPUs' memory.
    m.optimizer_GB = w.offloaded(OffloadTarget::Optimizer) ? 0.0 : held(bytes.optimizer, zero >= 1);

    const auto& p = w.parallel;
    const std::int64_t micro = std::max<std::int64_t>(1, w.microBatchesPerStep());
    std::int64_t deviceLayers = 0;
    for (std::int64_t c = stage; c < p.pp * p.vp; c += p.pp)
        deviceLayers += layersInChunk(w, c);
    const double layersPerChunk = static_cast<double>(deviceLayers) / static_cast<double>(p.vp);
    // Chunks whose activations a device holds at its peak: 1F1B keeps (pp - s) micro-batches in flight;
    // Megatron's interleaved schedule warms up with 2(pp - s - 1) + (vp - 1) pp chunk forwards, plus one.
    const std::int64_t chunks = p.vp == 1
                                    ? std::min(p.pp - stage, micro)
                                    : std::min(micro * p.vp, 2 * (p.pp - stage - 1) + (p.vp - 1) * p.pp + 1);
    double activations = layersPerChunk * static_cast<double>(chunks) * layerActivationBytes(w);
    // Activation offloading: the offloaded layers' activations wait in host memory; one layer's more is on
    // the device while its copy runs (Transformer Engine's handler before 2.10, see Workload). The last
    // forward copy ends with the last layer, before the logits exist, and the first reload starts at the last
    // layer's backward, after the logits' gradient is gone: that layer and the logits are never there
    // together.
    double inFlight = 0.0;
    if (w.activation_offload_layers > 0 && deviceLayers > 0) {
        const auto offloaded = static_cast<double>(w.activation_offload_layers);
        activations *= (static_cast<double>(deviceLayers) - offloaded) / static_cast<double>(deviceLayers);
        inFlight = layerActivationBytes(w);
    }
    if (w.recompute == Recompute::Full) { // one layer's full activations live while it is recomputed
        Workload noRecompute = w;
        noRecompute.recompute = Recompute::None;
        activations += layerActivationBytes(noRecompute);
    }
    // The cross-entropy's logits on the last stage, `bytesPerLogit` each: 6 at the peak of Megatron-Core's
    // vocabulary- parallel cross-entropy (fused or not) holds them: it keeps the fp32 softmax (4) for the
    // backward, which computes the fp32 gradient in place and casts it to a bf16 one (2) while the softmax
    // still lives; in the forward the bf16 logits (2) and their fp32 copy (4) live together.
    const double logits = stage == p.pp - 1
                              ? bytesPerLogit * static_cast<double>(w.micro_batch) *
                                    static_cast<double>(w.model.seq_len) / static_cast<double>(p.cp) *
                                    static_cast<double>(w.model.vocab) / static_cast<double>(p.tp)
                              : 0.0;
    activations += std::max(logits, inFlight);
    m.activations_GB = activations / kGB;
    m.buffers_GB = kRuntimeBuffersGB;
    if (zero >= 3 && w.zero3_engine == Zero3Engine::DeepSpeed2021) {
        // DeepSpeed's hooks gather module by module and free each module after it runs: at most a module and
        // the next one prefetched, and the largest module's gradients before their reduce-scatter.
        const auto modules = deepSpeedModuleParameters(w);
        double pair = 0.0, largest = 0.0;
        for (std::size_t k = 0; k < modules.size(); ++k) {
            pair = std::max(pair, modules[k] + modules[(k + 1) % modules.size()]);
            largest = std::max(largest, modules[k]);
        }
        m.buffers_GB += (pair * bytes.weights + largest * bytes.gradients) / kGB;
    } else if (zero >= 3) { // two layers' parameters gathered (current and prefetched), one layer's gradients
        const auto counts = countParameters(w.model);
        const double layer = (counts.attention_per_layer + counts.ffn_per_layer) / static_cast<double>(p.tp);
        m.buffers_GB += layer * (2.0 * bytes.weights + bytes.gradients) / kGB;
    }
    return m;
}

MemoryBreakdown peakMemory(const Workload& w) {
    return worstStage(w, [&w](std::int64_t stage) { return memoryForStage(w, stage); });
}

} // namespace choreo::models
