#pragma once

#include "models/scenario.h"

#include <string>

namespace choreo::models {

// Bytes per parameter of mixed-precision training with Adam (Megatron's layout).
struct TrainingStateBytes {
    double weights = 2.0;    // bf16/fp16 working copy (fp8 training keeps it too)
    double gradients = 4.0;  // main gradients at Workload::gradientPrecision (fp32 by default)
    double optimizer = 12.0; // fp32 master weights (or their 16-bit remainders: 10), Adam m and v
};
TrainingStateBytes trainingStateBytes(const Workload& workload);

// Memory one device needs, in GB (1e9 bytes).
struct MemoryBreakdown {
    double weights_GB = 0;
    double gradients_GB = 0;
    double optimizer_GB = 0;
    double activations_GB = 0;
    double buffers_GB = 0; // runtime, communication buffers and workspace
    std::int64_t stage = 0;
    // Held beside the device, not in its memory and not in total(): an IPU's optimizer state in streaming
    // memory, the most any of its stages keeps there (models/bsp.h). 0 elsewhere.
    double off_chip_GB = 0;

    [[nodiscard]] double total() const {
        return weights_GB + gradients_GB + optimizer_GB + activations_GB + buffers_GB;
    }
    // "weights 8.9 GB, gradients 17.8 GB, ..." for messages and reports (", off-chip 0.5 GB" where some is).
    [[nodiscard]] std::string describe() const;
};

// Activation bytes one device stores for one micro-batch of one layer, by recomputation policy,
// after Korthikanti et al. 2022 (with flash attention: no s^2 term), generalised to GQA and gated FFN.
double layerActivationBytes(const Workload& workload);

// Bytes a logit of the cross-entropy takes at its peak in Megatron-Core (memoryForStage's comment).
inline constexpr double kMegatronLogitBytes = 6.0;

// Memory of one device of pipeline stage `stage` under the 1F1B schedule; the last stage's logits at
// `bytesPerLogit` each.
MemoryBreakdown memoryForStage(const Workload& workload, std::int64_t stage,
                               double bytesPerLogit = kMegatronLogitBytes);
// The stage whose `stageMemory(stage)` is the largest (what must fit).
template <typename StageMemory>
MemoryBreakdown worstStage(const Workload& workload, StageMemory&& stageMemory) {
    MemoryBreakdown worst = stageMemory(std::int64_t{0});
    for (std::int64_t s = 1; s < workload.parallel.pp; ++s) {
        MemoryBreakdown m = stageMemory(s);
        if (m.total() > worst.total())
            worst = m;
    }
    return worst;
}
// The GPU model's worst stage.
MemoryBreakdown peakMemory(const Workload& workload);

} // namespace choreo::models
