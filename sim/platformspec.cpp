#include "sim/platformspec.h"

#include <algorithm>

namespace choreo::sim {

PlatformSpec PlatformSpec::fromScenario(const models::ResolvedScenario& rs) {
    const auto& dev = rs.device();
    const auto& pool = rs.pool();
    const auto& topo = rs.scenario.cluster.network.topology;
    const double netEff = dev.efficiency.network.value;
    PlatformSpec s;
    s.devices = pool.count;
    s.devices_per_node = pool.devices_per_node;
    s.nodes_per_leaf = topo.kind == models::TopologyKind::SingleSwitch
                           ? std::max<std::int64_t>(1, pool.count / pool.devices_per_node)
                           : rs.nodes_per_leaf;
    s.device_speed_flops = dev.peakFlops(rs.workload().precision).value_or(1e12);
    s.idle_W = dev.idle_W.value;
    s.busy_W = dev.tdp_W.value;
    s.scale_up_Bps = rs.scale_up_Bps * netEff;
    s.scale_up_latency_s = rs.scale_up_latency_s / 2.0; // per link: a route crosses two
    s.nic_Bps = rs.nic_Bps * netEff;
    s.switch_latency_s = rs.switch_latency_s;
    s.nic_latency_s = rs.switch_latency_s; // NIC to leaf: one switch traversal
    const double leafDown = static_cast<double>(s.nodes_per_leaf * s.devices_per_node) * s.nic_Bps;
    s.oversubscribed = topo.kind == models::TopologyKind::FatTree && topo.oversubscription > 1.0;
    s.leaf_uplink_Bps = s.oversubscribed ? leafDown / topo.oversubscription : leafDown;
    return s;
}

double PlatformSpec::latency(std::int64_t a, std::int64_t b) const {
    if (sameNode(a, b))
        return 2.0 * scale_up_latency_s;
    return 2.0 * nic_latency_s + (leafOf(a) == leafOf(b) ? 0.0 : 2.0 * switch_latency_s);
}

} // namespace choreo::sim
