#include "models/sweep.h"

#include <algorithm>

namespace choreo::models {

std::vector<SweepPoint> scalingSweep(const Scenario& base, int pointsBelow, int pointsAbove) {
    std::vector<SweepPoint> points;
    const auto& w = base.workload;
    const Pool* pool = base.trainingPool();
    if (!pool || w.parallel.dp <= 0 || w.micro_batch <= 0)
        return points;
    std::vector<std::int64_t> dps;
    std::int64_t dp = w.parallel.dp;
    for (int i = 0; i < pointsBelow && dp % 2 == 0; ++i)
        dp /= 2;
    for (; dp <= w.parallel.dp << pointsAbove; dp *= 2)
        dps.push_back(dp);
    for (std::int64_t d : dps) {
        if (w.global_batch % (w.micro_batch * d) != 0)
            continue;
        Scenario s = base;
        s.workload.parallel.dp = d;
        Pool* p = s.trainingPool();
        p->count = s.workload.parallel.devices();
        if (p->count % p->devices_per_node != 0)
            p->devices_per_node = std::min(p->devices_per_node, p->count);
        if (p->count % p->devices_per_node != 0)
            continue;
        s.name = base.name + " @ " + std::to_string(p->count) + " devices";
        points.push_back({std::to_string(p->count) + " devices (dp=" + std::to_string(d) + ")", p->count, s});
    }
    return points;
}

} // namespace choreo::models
