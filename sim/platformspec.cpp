#include "sim/platformspec.h"

#include <algorithm>

namespace choreo::sim {

PlatformSpec PlatformSpec::fromScenario(const models::ResolvedScenario& rs) {
    const auto& dev = rs.device();
    const auto& pool = rs.pool();
    const auto& topo = rs.scenario.cluster.network.topology;
    const double netEff = dev.efficiency.network.value;
    const double nicEff = dev.efficiency.nicFraction(); // NICs and the switched network behind them
    PlatformSpec s;
    s.devices = pool.count;
    s.devices_per_node = pool.devices_per_node;
    s.network = rs.network;
    s.nodes_per_leaf = std::max<std::int64_t>(1, rs.network.nodes_per_leaf);
    s.device_speed_flops = dev.peakFlops(rs.workload().precision).value_or(1e12);
    s.idle_W = dev.idle_W.value;
    s.busy_W = dev.tdp_W.value;
    s.scale_up_Bps = rs.scale_up_Bps * netEff;
    s.scale_up_latency_s = rs.scale_up_latency_s / 2.0; // per link: a route crosses two
    s.nic_Bps = rs.nic_Bps * nicEff;
    s.switch_latency_s = rs.switch_latency_s;
    s.nic_latency_s = rs.switch_latency_s; // NIC to leaf: one switch traversal
    s.collective_base_s = dev.efficiency.collective_base_us.value * 1e-6;
    s.ring_step_scale_up_s = dev.efficiency.ring_step_scale_up_us.value * 1e-6;
    s.ring_step_network_s = dev.efficiency.ring_step_network_us.value * 1e-6;
    s.tree_step_scale_up_s = dev.efficiency.tree_step_scale_up_us.value * 1e-6;
    s.tree_step_network_s = dev.efficiency.tree_step_network_us.value * 1e-6;
    s.tree_bandwidth_fraction = dev.efficiency.tree_bandwidth_fraction.value;
    const double leafDown = static_cast<double>(rs.network.leaf_down) * s.nic_Bps;
    s.oversubscribed = rs.network.oversubscribed();
    s.leaf_uplink_Bps = s.oversubscribed ? leafDown / topo.oversubscription : leafDown;
    switch (topo.kind) {
    case models::TopologyKind::Dragonfly:
        s.fabric = ScaleOutFabric::Dragonfly;
        s.global_link_Bps =
            static_cast<double>(rs.network.links_per_group_pair) * rs.network.link_Bps * nicEff;
        break;
    case models::TopologyKind::Torus3d:
        s.fabric = ScaleOutFabric::Torus;
        s.global_link_Bps = rs.network.link_Bps * netEff;
        s.nic_Bps = s.global_link_Bps; // a device injects through its torus links
        break;
    default:
        s.fabric = s.oversubscribed ? ScaleOutFabric::Leaves : ScaleOutFabric::Crossbar;
    }
    return s;
}

DataPathSpec DataPathSpec::fromScenario(const models::ResolvedScenario& rs, const PlatformSpec& spec,
                                        double foldFactor) {
    DataPathSpec path;
    if (!rs.data || !rs.data->pool || !spec.poolsOnNetwork() || foldFactor < 1.0)
        return path;
    const models::ResolvedDataStage& data = *rs.data;
    path.present = true;
    path.every_device = spec.sharedScaleOutLinks();
    path.share = path.every_device ? 1.0 : 1.0 / foldFactor;
    path.storage_Bps = data.storage->bandwidthBps(data.nodes) * path.share;
    path.storage_latency_s = data.storage->latency_ms.value / 1e3;
    path.pool_Bps = data.pool_nic_Bps * path.share;
    path.pool_latency_s = spec.nic_latency_s;
    return path;
}

OffloadPathSpec OffloadPathSpec::of(const models::ResolvedScenario& rs, const PlatformSpec& spec,
                                    double foldFactor, models::OffloadTarget target) {
    OffloadPathSpec path;
    const models::ResolvedOffload* offload = rs.offloaded(target);
    if (!offload || !offload->pool || offload->pool_nic_Bps <= 0.0 || !spec.poolsOnNetwork() ||
        foldFactor < 1.0)
        return path;
    path.present = true;
    path.every_device = spec.sharedScaleOutLinks();
    path.pool_Bps = offload->pool_nic_Bps / (path.every_device ? 1.0 : foldFactor);
    path.pool_latency_s = spec.nic_latency_s;
    return path;
}

bool PlatformSpec::poolsOnNetwork() const {
    return fabric == ScaleOutFabric::Crossbar ||
           (fabric != ScaleOutFabric::Torus && devices <= kMaxEveryDeviceFlows);
}

double PlatformSpec::latency(std::int64_t a, std::int64_t b) const {
    if (sameNode(a, b))
        return 2.0 * scale_up_latency_s;
    if (network.devices == 0)
        return 2.0 * nic_latency_s + (leafOf(a) == leafOf(b) ? 0.0 : 2.0 * switch_latency_s);
    const auto hops = static_cast<double>(network.scaleOutHops(a, b));
    if (fabric == ScaleOutFabric::Torus)
        return hops * switch_latency_s; // every hop is one torus link
    // Two NIC links, then one switch-to-switch link per further hop.
    return 2.0 * nic_latency_s + std::max(0.0, hops - 2.0) * switch_latency_s;
}

double PlatformSpec::stepLatency(std::int64_t a, std::int64_t b) const {
    return std::max(latency(a, b), sameNode(a, b) ? ring_step_scale_up_s : ring_step_network_s);
}

double PlatformSpec::ringLatency(const std::vector<std::int64_t>& ranks, int steps) const {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1 || steps <= 0)
        return 0.0;
    double intra = 0.0, inter = 0.0;
    std::int64_t crossings = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const auto a = ranks[static_cast<std::size_t>(i)], b = ranks[static_cast<std::size_t>((i + 1) % n)];
        if (sameNode(a, b)) {
            intra = std::max(intra, stepLatency(a, b));
        } else {
            inter = std::max(inter, stepLatency(a, b));
            ++crossings;
        }
    }
    const double passes = static_cast<double>(steps) / static_cast<double>(n - 1);
    const double interSteps = crossings > 0 ? passes * static_cast<double>(crossings - 1) : 0.0;
    return collective_base_s + (static_cast<double>(steps) - interSteps) * intra + interSteps * inter;
}

double PlatformSpec::passLatency(const std::vector<std::int64_t>& ranks, int steps) const {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1 || steps <= 0)
        return 0.0;
    double hop = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
        hop = std::max(hop, stepLatency(ranks[static_cast<std::size_t>(i)],
                                        ranks[static_cast<std::size_t>((i + 1) % n)]));
    return static_cast<double>(steps) * hop;
}

double PlatformSpec::treeLatency(const std::vector<std::int64_t>& ranks) const {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1)
        return 0.0;
    std::vector<std::int64_t> nodes;
    nodes.reserve(ranks.size());
    double intra = tree_step_scale_up_s, inter = tree_step_network_s; // a link's own latency at least
    for (std::int64_t i = 0; i < n; ++i) {
        const auto a = ranks[static_cast<std::size_t>(i)], b = ranks[static_cast<std::size_t>((i + 1) % n)];
        nodes.push_back(nodeOf(a));
        double& cls = sameNode(a, b) ? intra : inter;
        cls = std::max(cls, latency(a, b));
    }
    std::sort(nodes.begin(), nodes.end());
    const auto count = static_cast<std::int64_t>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
    std::int64_t log2Nodes = 0;
    while ((std::int64_t{2} << log2Nodes) <= count)
        ++log2Nodes;
    const double perNode = static_cast<double>(n) / static_cast<double>(count);
    return collective_base_s + 2.0 * ((perNode - 1.0) * intra + static_cast<double>(log2Nodes) * inter);
}

double PlatformSpec::treeBytesFactor(std::int64_t ranks) const {
    if (ranks <= 1 || tree_bandwidth_fraction <= 0.0)
        return 1.0;
    return static_cast<double>(ranks) / static_cast<double>(ranks - 1) / tree_bandwidth_fraction;
}

double PlatformSpec::ringHop(const std::vector<std::int64_t>& ranks) const {
    const auto n = static_cast<std::int64_t>(ranks.size());
    double hop = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
        hop = std::max(
            hop, latency(ranks[static_cast<std::size_t>(i)], ranks[static_cast<std::size_t>((i + 1) % n)]));
    return hop;
}

} // namespace choreo::sim
