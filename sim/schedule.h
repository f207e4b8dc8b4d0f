#pragma once
// Internal to sim: the order of operations on each pipeline device, shared by the simulation and the
// analytical estimate so that both lay out the same schedule.

#include <cstdint>
#include <vector>

namespace choreo::sim {

// One operation of a pipeline device: the forward or backward of micro-batch `micro` on model chunk `chunk`.
struct PipelineSlot {
    bool backward = false;
    std::int64_t chunk = 0;
    std::int64_t micro = 0;
    // With `combined`: a steady-state forward and the backward right after it, which run as one (the forward
    // comes first in the order).
    bool paired = false;
};

// Per pipeline device, its operations in order: Megatron's 1F1B, or its interleaved schedule when vp > 1.
// `combined`: Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm), one more warm-up forward
// so that each steady-state forward and backward are independent, and they are marked `paired`.
std::vector<std::vector<PipelineSlot>> pipelineSchedule(std::int64_t pp, std::int64_t vp, std::int64_t micro,
                                                        bool combined = false);

} // namespace choreo::sim
