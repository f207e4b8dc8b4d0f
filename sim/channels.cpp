#include "sim/channels.h"

#include <algorithm>
#include <unordered_set>

namespace choreo::sim {

std::int64_t ringChannelCount(const PlatformSpec& spec, const std::vector<std::int64_t>& ranks) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n < 4)
        return 1;
    // Length of the first node's block; every block must have it, and no node may appear twice.
    std::int64_t g = 1;
    while (g < n && spec.sameNode(ranks[0], ranks[static_cast<std::size_t>(g)]))
        ++g;
    if (g == 1 || g == n || n % g != 0)
        return 1;
    std::unordered_set<std::int64_t> nodes;
    for (std::int64_t block = 0; block < n; block += g) {
        const std::int64_t first = ranks[static_cast<std::size_t>(block)];
        for (std::int64_t i = 1; i < g; ++i)
            if (!spec.sameNode(first, ranks[static_cast<std::size_t>(block + i)]))
                return 1;
        if (!nodes.insert(spec.nodeOf(first)).second)
            return 1;
    }
    return g;
}

std::vector<std::vector<std::int64_t>> ringChannels(const PlatformSpec& spec,
                                                    const std::vector<std::int64_t>& ranks) {
    const std::int64_t g = ringChannelCount(spec, ranks);
    if (g == 1)
        return {ranks};
    const auto n = static_cast<std::int64_t>(ranks.size());
    std::vector<std::vector<std::int64_t>> channels(static_cast<std::size_t>(g));
    for (std::int64_t j = 0; j < g; ++j) {
        auto& ring = channels[static_cast<std::size_t>(j)];
        ring.reserve(static_cast<std::size_t>(n));
        for (std::int64_t block = 0; block < n; block += g)
            for (std::int64_t k = 0; k < g; ++k)
                ring.push_back(ranks[static_cast<std::size_t>(block + (j + k) % g)]);
    }
    return channels;
}

double ringEdgeShare(const PlatformSpec& spec, double g, std::int64_t a, std::int64_t b) {
    return g == 1.0 ? 1.0 : spec.sameNode(a, b) ? (g - 1.0) / g : 1.0 / g;
}

AllReduceAlgorithm allReduceAlgorithm(const PlatformSpec& spec, const std::vector<std::int64_t>& ranks,
                                      double bytes) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    AllReduceAlgorithm ring{false, spec.ringLatency(ranks, static_cast<int>(2 * (n - 1))), 1.0};
    if (n <= 2 || spec.tree_bandwidth_fraction <= 0.0 || spec.tree_step_network_s <= 0.0)
        return ring;
    const auto g = static_cast<double>(ringChannelCount(spec, ranks));
    double bw = 1e300;
    for (std::int64_t i = 0; i < n; ++i) {
        const auto a = ranks[static_cast<std::size_t>(i)], b = ranks[static_cast<std::size_t>((i + 1) % n)];
        bw = std::min(bw, (spec.sameNode(a, b) ? spec.scale_up_Bps : spec.nic_Bps) /
                              ringEdgeShare(spec, g, a, b));
    }
    const double bytesTime = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * bytes / bw;
    const AllReduceAlgorithm tree{true, spec.treeLatency(ranks), spec.treeBytesFactor(n)};
    return tree.latency_s + bytesTime * tree.bytes_factor < ring.latency_s + bytesTime ? tree : ring;
}

} // namespace choreo::sim
