#include "sim/schedule.h"

#include <algorithm>

namespace choreo::sim {

std::vector<std::vector<PipelineSlot>> pipelineSchedule(std::int64_t pp, std::int64_t vp, std::int64_t micro,
                                                        bool combined) {
    std::vector<std::vector<PipelineSlot>> out(static_cast<std::size_t>(pp));
    for (std::int64_t s = 0; s < pp; ++s) {
        auto& order = out[static_cast<std::size_t>(s)];
        const std::int64_t total = micro * vp;
        const std::int64_t warmup =
            std::min(total, (vp == 1 ? pp - s - 1 : 2 * (pp - s - 1) + (vp - 1) * pp) + (combined ? 1 : 0));
        auto slot = [&](std::int64_t k, bool backward) {
            // k-th forward (backward) of the device: groups of pp micro-batches per chunk.
            const std::int64_t inGroup = (k / pp) % vp;
            const std::int64_t chunkIndex = backward ? vp - 1 - inGroup : inGroup;
            const std::int64_t m = vp == 1 ? k : (k / (pp * vp)) * pp + k % pp;
            return PipelineSlot{backward, s + chunkIndex * pp, m};
        };
        for (std::int64_t k = 0; k < warmup; ++k)
            order.push_back(slot(k, false));
        for (std::int64_t i = 0; i + warmup < total; ++i) {
            order.push_back(slot(warmup + i, false));
            order.push_back(slot(i, true));
            if (combined) {
                order[order.size() - 2].paired = true;
                order.back().paired = true;
            }
        }
        for (std::int64_t k = total - warmup; k < total; ++k)
            order.push_back(slot(k, true));
    }
    return out;
}

} // namespace choreo::sim
