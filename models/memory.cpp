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

TrainingStateBytes trainingStateBytes(Precision precision) {
    TrainingStateBytes b;
    if (precision == Precision::Fp16)
        b.gradients = 2.0;
    return b;
}

std::string MemoryBreakdown::describe() const {
    return "weights " + formatNumber(weights_GB) + " GB, gradients " + formatNumber(gradients_GB) +
           " GB, optimizer " + formatNumber(optimizer_GB) + " GB, activations " +
           formatNumber(activations_GB) + " GB, buffers " + formatNumber(buffers_GB) + " GB";
}

double layerActivationBytes(const Workload& w) {
    const auto& m = w.model;
    const double sbh =
        static_cast<double>(w.micro_batch) * static_cast<double>(m.seq_len) * static_cast<double>(m.hidden);
    const double sbf = sbh / static_cast<double>(m.hidden) * static_cast<double>(m.ffn_hidden);
    const double kvRatio = static_cast<double>(m.kv_heads) / static_cast<double>(m.heads);
    const double t = static_cast<double>(w.parallel.tp);
    if (w.recompute == Recompute::Full) // only the layer input is kept
        return 2.0 * sbh / (w.parallel.sequence_parallel ? t : 1.0);
    // Replicated across tensor ranks unless sequence parallel: the two norms' inputs (4sbh), the dropout
    // masks (2sbh) and the inputs of the QKV and first FFN matrices (4sbh).
    const double replicated = 10.0 * sbh;
    // Split across tensor ranks: Q, K, V (GQA shrinks K and V), attention output and softmax statistics,
    // feed-forward intermediates (gated: gate, up and their product).
    const double split = 2.0 * sbh * (1.0 + 2.0 * kvRatio) + 2.0 * sbh + (m.ffn_gated ? 6.0 : 4.0) * sbf;
    return (w.parallel.sequence_parallel ? replicated / t : replicated) + split / t;
}

MemoryBreakdown memoryForStage(const Workload& w, std::int64_t stage) {
    const auto bytes = trainingStateBytes(w.precision);
    const double params = parametersPerDevice(w, stage);
    const double dp = static_cast<double>(w.parallel.dp);
    MemoryBreakdown m;
    m.stage = stage;
    m.weights_GB = params * bytes.weights / kGB;
    m.gradients_GB = params * bytes.gradients / kGB;
    m.optimizer_GB = params * bytes.optimizer / kGB / (w.parallel.zero >= 1 ? dp : 1.0);

    const double layersPerStage = static_cast<double>(w.model.layers) / static_cast<double>(w.parallel.pp);
    // 1F1B: stage s holds the activations of up to (pp - s) micro-batches in flight.
    const double inFlight = static_cast<double>(
        std::min<std::int64_t>(w.parallel.pp - stage, std::max<std::int64_t>(1, w.microBatchesPerStep())));
    double activations = layersPerStage * inFlight * layerActivationBytes(w);
    if (w.recompute == Recompute::Full) { // one layer's full activations live while it is recomputed
        Workload noRecompute = w;
        noRecompute.recompute = Recompute::None;
        activations += layerActivationBytes(noRecompute);
    }
    if (stage == w.parallel.pp - 1) { // fp32 logits and their gradient for the cross-entropy
        activations += 2.0 * 4.0 * static_cast<double>(w.micro_batch) * static_cast<double>(w.model.seq_len) *
                       static_cast<double>(w.model.vocab) / static_cast<double>(w.parallel.tp);
    }
    m.activations_GB = activations / kGB;
    m.buffers_GB = kRuntimeBuffersGB;
    return m;
}

MemoryBreakdown peakMemory(const Workload& w) {
    MemoryBreakdown worst = memoryForStage(w, 0);
    for (std::int64_t s = 1; s < w.parallel.pp; ++s) {
        auto m = memoryForStage(w, s);
        if (m.total() > worst.total())
            worst = m;
    }
    return worst;
}

} // namespace choreo::models
