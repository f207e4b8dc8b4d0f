#include "sim/probes.h"

#include "sim/collectives.h"
#include "sim/engine.h"
#include "sim/platform.h"
#include "sim/taskgraph.h"

#include <cmath>
#include <numeric>

namespace choreo::sim {

namespace {

PlatformSpec probeSpec(std::int64_t devices, std::int64_t perNode, const ProbeLinks& links) {
    PlatformSpec s;
    s.devices = devices;
    s.devices_per_node = perNode;
    s.nodes_per_leaf = devices; // one leaf: the route is NIC up, NIC down
    s.device_speed_flops = 1e12;
    s.idle_W = 100;
    s.busy_W = 500;
    s.scale_up_Bps = links.bandwidth_Bps;
    s.scale_up_latency_s = links.latency_s;
    s.nic_Bps = links.bandwidth_Bps;
    s.nic_latency_s = links.latency_s;
    s.leaf_uplink_Bps = links.bandwidth_Bps * static_cast<double>(devices);
    s.switch_latency_s = links.latency_s;
    return s;
}

} // namespace

double probeCompute(double flops, double speed_flops) {
    auto engine = makeEngine();
    PlatformSpec spec = probeSpec(1, 1, {});
    spec.device_speed_flops = speed_flops;
    Platform platform(*engine, spec);
    TaskGraph graph(platform);
    graph.compute(0, flops / speed_flops);
    return graph.run(*engine);
}

double probeSharedLink(int flows, double bytes, const ProbeLinks& links) {
    auto engine = makeEngine();
    Platform platform(*engine, probeSpec(2, 1, links));
    TaskGraph graph(platform);
    for (int i = 0; i < flows; ++i)
        graph.transfer(0, 1, bytes);
    return graph.run(*engine);
}

double probeRingAllReduce(int devices, double bytes, const ProbeLinks& links, Fidelity fidelity) {
    auto engine = makeEngine();
    Platform platform(*engine, probeSpec(devices, 1, links));
    TaskGraph graph(platform);
    std::vector<std::int64_t> ranks(static_cast<std::size_t>(devices));
    std::iota(ranks.begin(), ranks.end(), 0);
    ringCollective(graph, platform, fidelity, Collective::AllReduce, ranks, bytes, 1, graph.join());
    return graph.run(*engine);
}

double probeNodeRingAllReduce(int nodes, int perNode, double bytes, const ProbeLinks& links,
                              const ProbeLinks& scaleUp, Fidelity fidelity, const ProbeLibrary& library) {
    auto engine = makeEngine();
    const int devices = nodes * perNode;
    PlatformSpec spec = probeSpec(devices, perNode, links);
    spec.scale_up_Bps = scaleUp.bandwidth_Bps;
    spec.scale_up_latency_s = scaleUp.latency_s;
    spec.collective_base_s = library.base_s;
    spec.ring_step_scale_up_s = library.scale_up_step_s;
    spec.ring_step_network_s = library.network_step_s;
    spec.tree_step_scale_up_s = library.tree_scale_up_step_s;
    spec.tree_step_network_s = library.tree_network_step_s;
    spec.tree_bandwidth_fraction = library.tree_bandwidth_fraction;
    Platform platform(*engine, spec);
    TaskGraph graph(platform);
    std::vector<std::int64_t> ranks(static_cast<std::size_t>(devices));
    std::iota(ranks.begin(), ranks.end(), 0);
    ringCollective(graph, platform, fidelity, Collective::AllReduce, ranks, bytes, 1, graph.join());
    return graph.run(*engine);
}

double probeAllToAll(int devices, double bytes, const ProbeLinks& links, Fidelity fidelity) {
    auto engine = makeEngine();
    Platform platform(*engine, probeSpec(devices, 1, links));
    TaskGraph graph(platform);
    std::vector<std::int64_t> ranks(static_cast<std::size_t>(devices));
    std::iota(ranks.begin(), ranks.end(), 0);
    allToAll(graph, platform, fidelity, ranks, bytes, 1, graph.join(),
             fidelity == Fidelity::Flow ? Edges::Representative : Edges::All);
    return graph.run(*engine);
}

int probeTorusRouteMismatches(std::int64_t x, std::int64_t y, std::int64_t z) {
    auto engine = makeEngine();
    const std::int64_t n = x * y * z;
    const double hop = 1e-6;
    PlatformSpec spec = probeSpec(n, 1, {1e9, hop});
    spec.fabric = ScaleOutFabric::Torus;
    spec.global_link_Bps = 1e9;
    spec.network.kind = models::TopologyKind::Torus3d;
    spec.network.devices = n;
    spec.network.devices_per_node = 1;
    spec.network.dims = {x, y, z};
    Platform platform(*engine, spec);
    int mismatches = 0;
    for (std::int64_t a = 0; a < n; ++a)
        for (std::int64_t b = 0; b < n; ++b) {
            if (a == b)
                continue;
            std::vector<sg4::Link*> links;
            double latency = 0.0;
            platform.nic(a)->route_to(platform.nic(b), links, &latency);
            if (std::llround(latency / hop) != spec.network.scaleOutHops(a, b) ||
                std::abs(platform.latency(a, b) - latency) > 1e-12)
                ++mismatches;
        }
    return mismatches;
}

} // namespace choreo::sim
