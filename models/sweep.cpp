#include "models/sweep.h"

#include "models/resolved.h"

#include <algorithm>

namespace choreo::models {

namespace {

// A torus resized from `from` to `to` devices by powers of two, as TPU slices grow: each halving halves the
// longest even axis, each doubling doubles the shortest. Unchanged when the counts are not a power of two
// apart or an axis cannot be halved (the point then reports the mismatch).
std::vector<std::int64_t> resizedTorus(std::vector<std::int64_t> dims, std::int64_t from, std::int64_t to) {
    while (to < from && from % 2 == 0) {
        auto longest = std::max_element(dims.begin(), dims.end());
        if (*longest % 2 != 0)
            return dims;
        *longest /= 2;
        from /= 2;
    }
    while (to > from) {
        *std::min_element(dims.begin(), dims.end()) *= 2;
        from *= 2;
    }
    return dims;
}

} // namespace

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
        auto& topology = s.cluster.network.topology;
        if (topology.kind == TopologyKind::Torus3d && topology.dims)
            topology.dims = resizedTorus(*topology.dims, pool->count, p->count);
        s.name = base.name + " @ " + std::to_string(p->count) + " devices";
        points.push_back({std::to_string(p->count) + " devices (dp=" + std::to_string(d) + ")", p->count, s});
    }
    return points;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
    std::vector<std::int64_t> small;
    std::vector<std::int64_t> large;
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d != 0)
            continue;
        small.push_back(d);
        if (d != n / d)
            large.push_back(n / d);
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

std::vector<SweepPoint> deviceTypeSweep(const Scenario& base, const Catalog& catalog) {
    std::vector<SweepPoint> points;
    if (!base.trainingPool() || base.trainingPool()->devices_per_node < 1)
        return points;
    for (const auto& device : catalog.devices()) {
        Scenario s = base;
        Pool* p = s.trainingPool();
        p->device = device.id;
        if (device.scale_up) {
            const auto domain = static_cast<std::int64_t>(device.scale_up->domain_size.value);
            while (p->devices_per_node > 1 &&
                   (p->devices_per_node > domain || p->count % p->devices_per_node != 0))
                p->devices_per_node /= 2;
        }
        s.name = base.name + " on " + device.id;
        Diagnostics errors;
        if (!resolveScenario(s, catalog, errors))
            continue;
        points.push_back({device.id, p->count, std::move(s)});
    }
    return points;
}

std::vector<SweepPoint> layoutSweep(const Scenario& base, const Catalog& catalog, std::size_t limit) {
    std::vector<SweepPoint> points;
    const Pool* pool = base.trainingPool();
    const auto& w = base.workload;
    if (!pool || pool->count <= 0 || pool->devices_per_node <= 0 || w.model.layers <= 0)
        return points;
    std::vector<std::pair<std::int64_t, std::int64_t>> layouts; // tp, pp
    for (const std::int64_t tp : divisors(pool->devices_per_node))
        for (const std::int64_t pp : divisors(w.model.layers))
            if (pool->count % (tp * pp) == 0)
                layouts.emplace_back(tp, pp);
    std::stable_sort(layouts.begin(), layouts.end(),
                     [](const auto& a, const auto& b) { return a.first * a.second < b.first * b.second; });
    for (const auto& [tp, pp] : layouts) {
        if (points.size() >= limit)
            break;
        Scenario s = base;
        auto& par = s.workload.parallel;
        par.tp = tp;
        par.pp = pp;
        par.cp = 1;
        par.vp = 1;
        par.dp = pool->count / (tp * pp);
        const std::string label =
            "tp" + std::to_string(tp) + " pp" + std::to_string(pp) + " dp" + std::to_string(par.dp);
        s.name = base.name + " " + label;
        Diagnostics errors;
        if (!resolveScenario(s, catalog, errors))
            continue;
        points.push_back({label, pool->count, std::move(s)});
    }
    return points;
}

} // namespace choreo::models
