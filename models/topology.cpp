#include "models/topology.h"

#include "models/jsonreader.h"

#include <algorithm>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cmath>
#include <cstdlib>
#include <deque>

namespace choreo::models {

std::string toString(ScaleUpShape shape) {
    switch (shape) {
    case ScaleUpShape::Switched:
        return "switched";
    case ScaleUpShape::Mesh:
        return "mesh";
    case ScaleUpShape::Torus:
        return "torus";
    }
    return "switched";
}

ScaleUpShape scaleUpShapeOf(const std::string& fabric) {
    if (fabric == "infinity-fabric" || fabric == "gaudi-roce")
        return ScaleUpShape::Mesh;
    if (fabric == "tpu-ici" || fabric == "ipu-link") // Graphcore's pods: a 2D torus of IPU-Links
        return ScaleUpShape::Torus;
    return ScaleUpShape::Switched;
}

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

// The smallest divisor of n that is at least `atLeast`, or 0 when there is none.
std::int64_t divisorAtLeast(std::int64_t n, std::int64_t atLeast) {
    for (std::int64_t d = std::max<std::int64_t>(1, atLeast); d <= n; ++d)
        if (n % d == 0)
            return d;
    return 0;
}

// The most cube-like x <= y <= z with x * y * z = n.
std::array<std::int64_t, 3> cubeDims(std::int64_t n) {
    std::array<std::int64_t, 3> best{1, 1, n};
    for (std::int64_t x = 1; x * x * x <= n; ++x) {
        if (n % x != 0)
            continue;
        for (std::int64_t y = x; x * y * y <= n; ++y)
            if ((n / x) % y == 0)
                best = {x, y, n / x / y}; // later candidates are closer to a cube
    }
    return best;
}

// The most square x <= y of n devices, as a torus plane {1, x, y} (x = 1 for a prime n).
std::array<std::int64_t, 3> planeDims(std::int64_t n) {
    std::int64_t x = 1;
    for (std::int64_t d = 1; d * d <= n; ++d)
        if (n % d == 0)
            x = d;
    return {1, x, n / x};
}

std::int64_t linksPerTorusVertex(const std::array<std::int64_t, 3>& dims) {
    std::int64_t k = 0;
    for (auto d : dims)
        if (d > 1)
            k += 2;
    return k;
}

std::string ports(std::int64_t radix) {
    return std::to_string(radix) + "-port";
}

// Fat-tree leaves and the tiers above them. Returns false (with errors) when the radix cannot do it.
bool planFatTree(NetworkPlan& p, const Topology& t, const std::string& path, Diagnostics& errors) {
    const std::int64_t perNode = p.rail ? 1 : p.devices_per_node;
    const double o = p.oversubscription;
    auto uplinksFor = [&](std::int64_t down) {
        return static_cast<std::int64_t>(std::ceil(static_cast<double>(down) / o - 1e-9));
    };
    auto fits = [&](std::int64_t nodes) { return nodes * perNode + uplinksFor(nodes * perNode) <= p.radix; };
    if (t.nodes_per_leaf) {
        p.nodes_per_leaf = *t.nodes_per_leaf;
        if (!fits(p.nodes_per_leaf)) {
            const std::int64_t down = p.nodes_per_leaf * perNode;
            errors.push_back({JsonReader::join(path, "nodes_per_leaf"),
                              std::to_string(p.nodes_per_leaf) + " nodes x " + std::to_string(perNode) +
                                  " NICs = " + std::to_string(down) + " downlinks + " +
                                  std::to_string(uplinksFor(down)) + " uplinks exceed a " + ports(p.radix) +
                                  " leaf switch (radix)"});
            return false;
        }
    } else {
        // Default: 4 nodes per leaf (fat-tree, CHOREO-DEFAULT) or as many as a leaf takes (rail units,
        // as in DGX SuperPOD scalable units), fewer when the radix needs it.
        std::int64_t n = p.rail ? p.radix : kDefaultNodesPerLeaf;
        while (n > 0 && !fits(n))
            --n;
        if (n == 0) {
            errors.push_back(
                {path + (p.rail ? ".radix" : ".kind"),
                 "a node's " + std::to_string(perNode) + " NICs do not fit under one " + ports(p.radix) +
                     " leaf switch with their uplinks; use rail-fat-tree or a " + "larger radix"});
            return false;
        }
        p.nodes_per_leaf = n;
    }
    p.nodes_per_leaf = std::min(p.nodes_per_leaf, p.nodes);
    const std::int64_t units = ceilDiv(p.nodes, p.nodes_per_leaf);
    p.leaves = p.rail ? units * p.devices_per_node : units;
    p.leaf_down = p.nodes_per_leaf * perNode;
    if (p.leaves == 1) {
        p.tiers = 1; // one leaf is the whole fabric
        p.leaf_up = 0;
        return true;
    }
    p.leaf_up = uplinksFor(p.leaf_down);
    p.uplink_Bps = static_cast<double>(p.leaf_down) * p.nic_Bps / (o * static_cast<double>(p.leaf_up));
    // As the radix needs: two tiers reach at most radix leaves (rail units included), three beyond.
    p.tiers = t.tiers.value_or(p.leaves <= p.radix ? 2 : 3);
    if (p.tiers == 2) {
        // Spines: each leaf has leaf_up / spines links to every spine, every spine port used at most once.
        p.spines = divisorAtLeast(p.leaf_up, ceilDiv(p.leaves * p.leaf_up, p.radix));
        if (p.spines == 0) {
            errors.push_back({JsonReader::join(path, "tiers"),
                              "2 tiers of " + ports(p.radix) + " switches connect at most " +
                                  std::to_string(p.radix) + " leaves (" +
                                  std::to_string(p.radix * p.leaf_down) +
                                  " devices here); this cluster needs " + std::to_string(p.leaves) +
                                  " leaves (use tiers 3 or a larger radix)"});
            return false;
        }
        return true;
    }
    // Three tiers: pods of up to radix/2 leaves, each with leaf_up aggregation switches (one link to
    // every leaf of the pod, as many up as down); cores take every pod's aggregation uplinks evenly.
    p.leaves_per_pod = std::min(p.leaves, p.radix / 2);
    p.pods = ceilDiv(p.leaves, p.leaves_per_pod);
    p.spines = p.pods * p.leaf_up;
    const std::int64_t podUplinks = p.leaf_up * p.leaves_per_pod;
    p.cores = divisorAtLeast(podUplinks, ceilDiv(p.pods * podUplinks, p.radix));
    if (p.cores == 0) {
        errors.push_back({JsonReader::join(path, "radix"),
                          "3 tiers of " + ports(p.radix) + " switches connect at most " +
                              std::to_string(p.radix) + " pods of " + std::to_string(p.leaves_per_pod) +
                              " leaves; this cluster needs " + std::to_string(p.pods) +
                              " pods (use a larger radix)"});
        return false;
    }
    return true;
}

} // namespace

std::int64_t NetworkPlan::leafOf(std::int64_t device) const {
    switch (kind) {
    case TopologyKind::SingleSwitch:
        return 0;
    case TopologyKind::Dragonfly:
        return device / (terminals_per_router * routers_per_group);
    case TopologyKind::Torus3d:
        return device;
    case TopologyKind::FatTree:
    case TopologyKind::RailFatTree:
        break;
    }
    const std::int64_t node = device / devices_per_node;
    const std::int64_t unit = node / nodes_per_leaf;
    return rail ? unit * devices_per_node + device % devices_per_node : unit;
}

std::int64_t NetworkPlan::routerOf(std::int64_t device) const {
    return device / terminals_per_router;
}

std::array<std::int64_t, 3> NetworkPlan::torusCoord(std::int64_t device) const {
    return {device % dims[0], (device / dims[0]) % dims[1], device / (dims[0] * dims[1])};
}

bool NetworkPlan::oversubscribed() const {
    return (kind == TopologyKind::FatTree || kind == TopologyKind::RailFatTree) && leaves > 1 &&
           oversubscription > 1.0;
}

double NetworkPlan::offLeafShare() const {
    if (oversubscribed())
        return 1.0 / oversubscription;
    if (kind == TopologyKind::Dragonfly && groups > 1 && nic_Bps > 0.0) {
        const auto groupDevices = static_cast<double>(routers_per_group * terminals_per_router);
        const double bundle = static_cast<double>(links_per_group_pair) * link_Bps;
        return std::min(1.0, bundle / (groupDevices * nic_Bps));
    }
    return 1.0;
}

std::int64_t NetworkPlan::scaleOutHops(std::int64_t a, std::int64_t b) const {
    if (a == b)
        return 0;
    switch (kind) {
    case TopologyKind::SingleSwitch:
        return 2;
    case TopologyKind::Torus3d: {
        const auto ca = torusCoord(a), cb = torusCoord(b);
        std::int64_t hops = 0;
        for (std::size_t i = 0; i < 3; ++i) {
            const std::int64_t d = std::abs(ca[i] - cb[i]);
            hops += std::min(d, dims[i] - d);
        }
        return hops;
    }
    case TopologyKind::Dragonfly:
        if (routerOf(a) == routerOf(b))
            return 2;
        if (leafOf(a) == leafOf(b))
            return 3;
        return 5; // local, global, local hop at worst (minimal routing)
    case TopologyKind::FatTree:
    case TopologyKind::RailFatTree:
        break;
    }
    const std::int64_t la = leafOf(a), lb = leafOf(b);
    if (la == lb)
        return 2;
    if (tiers == 3 && la / leaves_per_pod != lb / leaves_per_pod)
        return 6;
    return 4;
}

namespace {

// Parameters that the topology's kind does not use are mistakes, not silently ignored.
void rejectUnusedTopologyKeys(const Topology& t, const std::string& path, Diagnostics& errors) {
    const bool fatTree = t.kind == TopologyKind::FatTree || t.kind == TopologyKind::RailFatTree;
    auto onlyFor = [&](bool used, bool given, const char* key, const char* kinds) {
        if (given && !used)
            errors.push_back({JsonReader::join(path, key),
                              std::string("only used by ") + kinds + ", not by " + toString(t.kind)});
    };
    onlyFor(fatTree, t.tiers.has_value(), "tiers", "fat-tree and rail-fat-tree");
    onlyFor(t.kind == TopologyKind::Dragonfly, t.groups.has_value(), "groups", "dragonfly");
    onlyFor(t.kind == TopologyKind::Dragonfly, t.routers_per_group.has_value(), "routers_per_group",
            "dragonfly");
    onlyFor(t.kind == TopologyKind::Dragonfly, t.global_links_per_router.has_value(),
            "global_links_per_router", "dragonfly");
    onlyFor(t.kind == TopologyKind::Torus3d, t.dims.has_value(), "dims", "torus-3d");
    onlyFor(t.kind == TopologyKind::Dragonfly || t.kind == TopologyKind::Torus3d, t.link_Gbps.has_value(),
            "link_Gbps", "dragonfly and torus-3d");
    onlyFor(t.kind != TopologyKind::Torus3d, t.radix.has_value(), "radix", "switched topologies");
}

// A dragonfly's groups, routers and global links, checked against the switch radix.
void planDragonfly(NetworkPlan& p, const Topology& t, const std::string& path, Diagnostics& errors) {
    auto error = [&](const std::string& where, const std::string& message) {
        errors.push_back({where, message});
    };
    if (!t.groups || !t.routers_per_group) {
        error(JsonReader::join(path, t.groups ? "routers_per_group" : "groups"), "required for dragonfly");
        return;
    }
    p.groups = *t.groups;
    p.routers_per_group = *t.routers_per_group;
    const std::int64_t routers = p.groups * p.routers_per_group;
    if (p.devices % routers != 0) {
        error(JsonReader::join(path, "groups"), "groups x routers_per_group = " + std::to_string(routers) +
                                                    " routers do not divide the " +
                                                    std::to_string(p.devices) + " devices evenly");
        return;
    }
    p.terminals_per_router = p.devices / routers;
    const std::int64_t others = p.groups - 1;
    p.global_links_per_router = t.global_links_per_router.value_or(
        others > 0 ? std::max(p.terminals_per_router, ceilDiv(others, p.routers_per_group)) : 0);
    if (others > 0) {
        p.links_per_group_pair = p.routers_per_group * p.global_links_per_router / others;
        if (p.links_per_group_pair == 0)
            error(JsonReader::join(path, "global_links_per_router"),
                  "disconnected: a group has " + std::to_string(p.routers_per_group) + " x " +
                      std::to_string(p.global_links_per_router) + " global links for " +
                      std::to_string(others) + " other groups");
    }
    const std::int64_t routerPorts =
        p.terminals_per_router + p.routers_per_group - 1 + p.global_links_per_router;
    if (routerPorts > p.radix)
        error(JsonReader::join(path, "radix"),
              "a dragonfly router needs " + std::to_string(p.terminals_per_router) + " device + " +
                  std::to_string(p.routers_per_group - 1) + " local + " +
                  std::to_string(p.global_links_per_router) + " global = " + std::to_string(routerPorts) +
                  " ports, more than " + std::to_string(p.radix));
}

} // namespace

std::optional<NetworkPlan> planNetwork(const Pool& pool, std::size_t poolIndex, const Device& device,
                                       const Network& network, const LinkRates& rates, Diagnostics& errors) {
    const std::size_t before = errors.size();
    const std::string poolPath = "cluster.pools[" + std::to_string(poolIndex) + "]";
    const std::string path = "cluster.network.topology";
    const Topology& t = network.topology;
    NetworkPlan p;
    p.kind = t.kind;
    p.devices = pool.count;
    p.devices_per_node = std::max<std::int64_t>(1, pool.devices_per_node);
    p.nodes = ceilDiv(p.devices, p.devices_per_node);
    p.scale_up = scaleUpShapeOf(rates.scale_up_fabric);
    p.scale_up_Bps = rates.scale_up_Bps;
    p.scale_up_latency_s = rates.scale_up_latency_s;
    p.nic_Bps = rates.nic_Bps;
    p.link_Bps = t.link_Gbps ? *t.link_Gbps * 1e9 / 8.0 : rates.nic_Bps;
    p.hop_latency_s = rates.switch_latency_s;
    p.radix = t.radix.value_or(kDefaultSwitchRadix);
    p.oversubscription = t.oversubscription;
    auto error = [&](const std::string& where, const std::string& message) {
        errors.push_back({where, message});
    };

    // Scale-up domain: no larger than the catalog's, with bandwidth when devices share it.
    if (device.scale_up && p.devices_per_node > static_cast<std::int64_t>(device.scale_up->domain_size.value))
        error(poolPath + ".devices_per_node",
              std::to_string(p.devices_per_node) + " devices per node, but one " + device.scale_up->fabric +
                  " scale-up domain of " + device.id + " holds at most " +
                  formatNumber(device.scale_up->domain_size.value) + " (catalog scale_up.domain_size)");
    if (p.devices_per_node > 1 && !(p.scale_up_Bps > 0.0))
        error("cluster.network.scale_up.bandwidth_GBps",
              "the scale-up fabric has no bandwidth (" + formatNumber(p.scale_up_Bps / 1e9) + " GB/s)");
    if (p.scale_up == ScaleUpShape::Torus) // Graphcore's IPU-Links are a 2D torus, TPU ICI a 3D one
        p.scale_up_dims = rates.scale_up_fabric == "ipu-link" ? planeDims(p.devices_per_node)
                                                              : cubeDims(p.devices_per_node);

    rejectUnusedTopologyKeys(t, path, errors);
    if (t.kind != TopologyKind::Torus3d && !(p.nic_Bps > 0.0))
        error("cluster.network.nic_Gbps",
              "the NICs have no bandwidth (" + formatNumber(p.nic_Bps * 8e-9) + " Gb/s); set nic_Gbps");
    if ((t.kind == TopologyKind::Dragonfly || t.kind == TopologyKind::Torus3d) && !(p.link_Bps > 0.0))
        error(JsonReader::join(path, "link_Gbps"),
              "the links have no bandwidth (" + formatNumber(p.link_Bps * 8e-9) + " Gb/s)");
    if (p.radix < 2)
        error(JsonReader::join(path, "radix"),
              "a switch needs at least 2 ports, got " + std::to_string(p.radix));
    if (errors.size() != before)
        return std::nullopt;

    switch (t.kind) {
    case TopologyKind::SingleSwitch:
        p.tiers = 1;
        p.leaves = 1;
        p.nodes_per_leaf = p.nodes;
        p.leaf_down = p.devices;
        if (p.devices > p.radix)
            error(JsonReader::join(path, "radix"),
                  "one " + ports(p.radix) + " switch cannot connect " + std::to_string(p.devices) +
                      " devices (one port each); set a larger radix or use a fat tree");
        break;
    case TopologyKind::FatTree:
    case TopologyKind::RailFatTree:
        p.rail = t.kind == TopologyKind::RailFatTree;
        planFatTree(p, t, path, errors);
        break;
    case TopologyKind::Dragonfly:
        planDragonfly(p, t, path, errors);
        break;
    case TopologyKind::Torus3d:
        if (!t.dims) {
            error(JsonReader::join(path, "dims"), "required for torus-3d: [x, y, z] with x*y*z = devices");
            break;
        }
        p.dims = {(*t.dims)[0], (*t.dims)[1], (*t.dims)[2]};
        if (p.dims[0] * p.dims[1] * p.dims[2] != p.devices)
            error(JsonReader::join(path, "dims"),
                  std::to_string(p.dims[0]) + " x " + std::to_string(p.dims[1]) + " x " +
                      std::to_string(p.dims[2]) + " = " + std::to_string(p.dims[0] * p.dims[1] * p.dims[2]) +
                      " vertices for " + std::to_string(p.devices) + " devices");
        break;
    }
    if (errors.size() != before)
        return std::nullopt;
    return p;
}

Topology topologyForKind(TopologyKind kind, const Pool& pool, const Topology& from) {
    Topology t;
    t.kind = kind;
    t.latency_us = from.latency_us;
    const bool fatTree = kind == TopologyKind::FatTree || kind == TopologyKind::RailFatTree;
    if (fatTree) {
        t.oversubscription = from.oversubscription;
        t.nodes_per_leaf = from.nodes_per_leaf;
        t.tiers = from.tiers;
    }
    if (kind != TopologyKind::Torus3d)
        t.radix = from.radix;
    if (kind == TopologyKind::Dragonfly || kind == TopologyKind::Torus3d)
        t.link_Gbps = from.link_Gbps;
    const std::int64_t devices = std::max<std::int64_t>(pool.count, 1);
    if (kind == TopologyKind::SingleSwitch && devices > t.radix.value_or(kDefaultSwitchRadix))
        t.radix = devices; // one port per device
    if (kind == TopologyKind::Torus3d) {
        if (from.dims && from.kind == TopologyKind::Torus3d)
            t.dims = from.dims;
        else {
            const auto d = cubeDims(devices);
            t.dims = std::vector<std::int64_t>{d[0], d[1], d[2]};
        }
    }
    if (kind == TopologyKind::Dragonfly) {
        if (from.kind == TopologyKind::Dragonfly && from.groups && from.routers_per_group) {
            t.groups = from.groups;
            t.routers_per_group = from.routers_per_group;
            t.global_links_per_router = from.global_links_per_router;
        } else {
            const std::int64_t perNode = std::max<std::int64_t>(pool.devices_per_node, 1);
            const std::int64_t routers = devices % perNode == 0 ? devices / perNode : devices;
            std::int64_t perGroup = 1;
            for (std::int64_t r = 1; r * r <= routers; ++r)
                if (routers % r == 0)
                    perGroup = r;
            t.routers_per_group = perGroup;
            t.groups = routers / perGroup;
        }
    }
    return t;
}

TopologyGraph buildTopologyGraph(const NetworkPlan& p) {
    TopologyGraph g;
    for (std::int64_t d = 0; d < p.devices; ++d)
        boost::add_vertex(TopologyVertex{VertexKind::Device, d}, g);
    auto addVertices = [&](VertexKind kind, std::int64_t count) {
        const auto first = static_cast<std::int64_t>(boost::num_vertices(g));
        for (std::int64_t i = 0; i < count; ++i)
            boost::add_vertex(TopologyVertex{kind, i}, g);
        return first;
    };
    auto link = [&](std::int64_t a, std::int64_t b, double bw, double lat, bool scaleUp) {
        boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b),
                        TopologyEdge{bw, lat, scaleUp}, g);
    };

    // Scale-up domains, one per node.
    const std::int64_t dpn = p.devices_per_node;
    if (dpn > 1) {
        if (p.scale_up == ScaleUpShape::Switched) {
            const std::int64_t first = addVertices(VertexKind::ScaleUpSwitch, p.nodes);
            for (std::int64_t d = 0; d < p.devices; ++d)
                link(d, first + d / dpn, p.scale_up_Bps, p.scale_up_latency_s / 2, true);
        } else if (p.scale_up == ScaleUpShape::Mesh) {
            const double bw = p.scale_up_Bps / static_cast<double>(dpn - 1);
            for (std::int64_t n = 0; n < p.nodes; ++n)
                for (std::int64_t i = 0; i < dpn; ++i)
                    for (std::int64_t j = i + 1; j < dpn; ++j)
                        link(n * dpn + i, n * dpn + j, bw, p.scale_up_latency_s, true);
        } else {
            const auto& s = p.scale_up_dims;
            const double bw = p.scale_up_Bps / static_cast<double>(linksPerTorusVertex(s));
            for (std::int64_t n = 0; n < p.nodes; ++n)
                for (std::int64_t i = 0; i < dpn; ++i) {
                    const std::array<std::int64_t, 3> c{i % s[0], (i / s[0]) % s[1], i / (s[0] * s[1])};
                    for (std::size_t k = 0; k < 3; ++k) {
                        if (s[k] < 2)
                            continue;
                        auto next = c;
                        next[k] = (c[k] + 1) % s[k];
                        link(n * dpn + i, n * dpn + next[0] + s[0] * (next[1] + s[1] * next[2]), bw,
                             p.scale_up_latency_s, true);
                    }
                }
        }
    }

    // Scale-out.
    switch (p.kind) {
    case TopologyKind::SingleSwitch:
    case TopologyKind::FatTree:
    case TopologyKind::RailFatTree: {
        const std::int64_t leaves = addVertices(VertexKind::Leaf, p.leaves);
        for (std::int64_t d = 0; d < p.devices; ++d)
            link(d, leaves + p.leafOf(d), p.nic_Bps, p.hop_latency_s, false);
        if (p.tiers == 2) {
            const std::int64_t spines = addVertices(VertexKind::Spine, p.spines);
            for (std::int64_t l = 0; l < p.leaves; ++l)
                for (std::int64_t j = 0; j < p.leaf_up; ++j)
                    link(leaves + l, spines + j % p.spines, p.uplink_Bps, p.hop_latency_s, false);
        } else if (p.tiers == 3) {
            const std::int64_t aggs = addVertices(VertexKind::Spine, p.spines);
            const std::int64_t cores = addVertices(VertexKind::Core, p.cores);
            for (std::int64_t l = 0; l < p.leaves; ++l) {
                const std::int64_t pod = l / p.leaves_per_pod;
                const std::int64_t inPod = l % p.leaves_per_pod;
                for (std::int64_t j = 0; j < p.leaf_up; ++j) {
                    const std::int64_t agg = pod * p.leaf_up + j;
                    link(leaves + l, aggs + agg, p.uplink_Bps, p.hop_latency_s, false);
                    // As many up as down: the uplink paired with this leaf's downlink.
                    link(aggs + agg, cores + (j * p.leaves_per_pod + inPod) % p.cores, p.uplink_Bps,
                         p.hop_latency_s, false);
                }
            }
        }
        break;
    }
    case TopologyKind::Dragonfly: {
        const std::int64_t a = p.routers_per_group, h = p.global_links_per_router, m = p.links_per_group_pair;
        const std::int64_t routers = addVertices(VertexKind::Router, p.groups * a);
        for (std::int64_t d = 0; d < p.devices; ++d)
            link(d, routers + p.routerOf(d), p.nic_Bps, p.hop_latency_s, false);
        for (std::int64_t grp = 0; grp < p.groups; ++grp)
            for (std::int64_t i = 0; i < a; ++i)
                for (std::int64_t j = i + 1; j < a; ++j)
                    link(routers + grp * a + i, routers + grp * a + j, p.link_Bps, p.hop_latency_s, false);
        // Group i's global port q = (k - 1) * m + r leads to group i + k (mod groups); router = q / h.
        for (std::int64_t i = 0; i < p.groups; ++i)
            for (std::int64_t k = 1; k < p.groups; ++k) {
                const std::int64_t other = (i + k) % p.groups;
                if (other < i)
                    continue; // added from the other end
                for (std::int64_t r = 0; r < m; ++r) {
                    const std::int64_t q = (k - 1) * m + r, back = (p.groups - k - 1) * m + r;
                    link(routers + i * a + q / h, routers + other * a + back / h, p.link_Bps, p.hop_latency_s,
                         false);
                }
            }
        break;
    }
    case TopologyKind::Torus3d:
        for (std::int64_t d = 0; d < p.devices; ++d) {
            const auto c = p.torusCoord(d);
            for (std::size_t k = 0; k < 3; ++k) {
                if (p.dims[k] < 2)
                    continue;
                auto next = c;
                next[k] = (c[k] + 1) % p.dims[k];
                link(d, next[0] + p.dims[0] * (next[1] + p.dims[1] * next[2]), p.link_Bps, p.hop_latency_s,
                     false);
            }
        }
        break;
    }
    return g;
}

void addModelStores(TopologyGraph& g, const NetworkPlan& p, const Device& device) {
    auto add = [&g](VertexKind kind, std::int64_t index) {
        return boost::add_vertex(TopologyVertex{kind, index}, g);
    };
    auto link = [&g](std::size_t a, std::size_t b, double bandwidth, double latency) {
        boost::add_edge(a, b, TopologyEdge{bandwidth, latency, false, true}, g);
    };
    if (const auto& streaming = device.weight_streaming) {
        const double bandwidth = streaming->bandwidth_GBps.value * 1e9;
        const double latency = streaming->hop_latency_us.value * 1e-6;
        // SwarmX: each level joins pairs of the one below, up to a single node that MemoryX feeds.
        std::vector<std::size_t> level;
        for (std::int64_t d = 0; d < p.devices; ++d)
            level.push_back(static_cast<std::size_t>(d));
        std::int64_t swarm = 0;
        while (level.size() > 1) {
            std::vector<std::size_t> up;
            for (std::size_t i = 0; i < level.size(); i += 2) {
                const auto node = add(VertexKind::SwarmX, swarm++);
                link(node, level[i], bandwidth, latency);
                if (i + 1 < level.size())
                    link(node, level[i + 1], bandwidth, latency);
                up.push_back(node);
            }
            level = std::move(up);
        }
        if (!level.empty())
            link(add(VertexKind::MemoryX, 0), level.front(), bandwidth, latency);
    } else if (const auto& bsp = device.bulk_synchronous) {
        const double bandwidth = bsp->streaming_GBps.value * 1e9;
        for (std::int64_t n = 0; n < p.nodes; ++n) {
            const auto store = add(VertexKind::StreamingMemory, n);
            for (std::int64_t d = n * p.devices_per_node;
                 d < std::min(p.devices, (n + 1) * p.devices_per_node); ++d)
                link(store, static_cast<std::size_t>(d), bandwidth, 0.0);
        }
    }
}

bool checkTopologyGraph(const TopologyGraph& g, std::int64_t devices, const std::string& path,
                        Diagnostics& errors) {
    const std::size_t before = errors.size();
    const auto n = boost::num_vertices(g);
    for (auto [e, end] = boost::edges(g); e != end; ++e)
        if (!(g[*e].bandwidth_Bps > 0.0)) {
            errors.push_back({path, "a " + std::string(g[*e].scale_up ? "scale-up" : "scale-out") +
                                        " link has no bandwidth (" + formatNumber(g[*e].bandwidth_Bps) +
                                        " B/s)"});
            break;
        }
    // Every vertex reachable from device 0 over any link, and every device over scale-out links.
    auto reach = [&](bool scaleOutOnly) {
        std::vector<char> seen(n, 0);
        std::deque<std::size_t> queue{0};
        seen[0] = 1;
        while (!queue.empty()) {
            const auto v = queue.front();
            queue.pop_front();
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
                const auto w = boost::target(*e, g);
                if (!seen[w] && !(scaleOutOnly && !isScaleOut(g[*e]))) {
                    seen[w] = 1;
                    queue.push_back(w);
                }
            }
        }
        return seen;
    };
    if (n == 0)
        return true;
    const auto all = reach(false);
    const auto components = static_cast<std::size_t>(std::count(all.begin(), all.end(), 0));
    if (components > 0)
        errors.push_back({path, "disconnected: " + std::to_string(components) +
                                    " devices or switches cannot be reached from device 0"});
    const auto out = reach(true);
    for (std::int64_t d = 0; d < devices; ++d)
        if (!out[static_cast<std::size_t>(d)]) {
            errors.push_back({path, "device " + std::to_string(d) + " has no scale-out route to device 0"});
            break;
        }
    return errors.size() == before;
}

std::int64_t scaleOutEccentricity(const TopologyGraph& g, std::int64_t devices,
                                  const std::vector<std::int64_t>& from) {
    const auto n = boost::num_vertices(g);
    std::int64_t worst = 0;
    std::vector<std::int64_t> dist(n);
    for (std::int64_t s : from) {
        std::fill(dist.begin(), dist.end(), -1);
        std::deque<std::size_t> queue{static_cast<std::size_t>(s)};
        dist[static_cast<std::size_t>(s)] = 0;
        while (!queue.empty()) {
            const auto v = queue.front();
            queue.pop_front();
            for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
                const auto w = boost::target(*e, g);
                if (dist[w] < 0 && isScaleOut(g[*e])) {
                    dist[w] = dist[v] + 1;
                    queue.push_back(w);
                }
            }
        }
        for (std::int64_t d = 0; d < devices; ++d)
            worst = std::max(worst, dist[static_cast<std::size_t>(d)]);
    }
    return worst;
}

double halvesMaxFlow_Bps(const TopologyGraph& g, std::int64_t devices) {
    // A device with one scale-out link is contracted into its switch: the source (first half) or the
    // sink (second half) reaches that switch through the link's capacity. Others (torus) stay vertices.
    const auto n = boost::num_vertices(g);
    std::vector<double> fromSource(n, 0.0), toSink(n, 0.0);
    auto side = [&](std::size_t v) {
        const auto d = static_cast<std::int64_t>(v);
        return d >= devices ? 0 : d < devices / 2 ? 1 : d >= devices - devices / 2 ? 2 : 0;
    };
    std::vector<int> scaleOutDegree(n, 0);
    for (auto [e, end] = boost::edges(g); e != end; ++e)
        if (isScaleOut(g[*e])) {
            ++scaleOutDegree[boost::source(*e, g)];
            ++scaleOutDegree[boost::target(*e, g)];
        }
    auto contracted = [&](std::size_t v) {
        return static_cast<std::int64_t>(v) < devices && scaleOutDegree[v] == 1;
    };
    TopologyGraph rest;
    for (std::size_t v = 0; v < n; ++v)
        boost::add_vertex(g[v], rest);
    for (auto [e, end] = boost::edges(g); e != end; ++e) {
        if (!isScaleOut(g[*e]))
            continue;
        auto a = boost::source(*e, g), b = boost::target(*e, g);
        if (contracted(b))
            std::swap(a, b);
        if (contracted(a)) {
            if (side(a) != 0)
                (side(a) == 1 ? fromSource : toSink)[b] += g[*e].bandwidth_Bps;
            continue;
        }
        boost::add_edge(a, b, g[*e], rest);
        for (auto v : {a, b}) {
            if (side(v) == 1)
                fromSource[v] += g[*e].bandwidth_Bps;
            if (side(v) == 2)
                toSink[v] += g[*e].bandwidth_Bps;
        }
    }
    return maxFlow_Bps(rest, fromSource, toSink);
}

double maxFlow_Bps(const TopologyGraph& g, const std::vector<double>& fromSource,
                   const std::vector<double>& toSink) {
    using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
    // Integer capacities (bytes per second): push-relabel checks its flow for exact conservation, which
    // floating-point capacities can break by rounding.
    using FlowGraph = boost::adjacency_list<
        boost::vecS, boost::vecS, boost::directedS, boost::no_property,
        boost::property<boost::edge_capacity_t, std::int64_t,
                        boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                        boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
    const auto n = boost::num_vertices(g);
    FlowGraph f(n + 2);
    const std::size_t source = n, sink = n + 1;
    auto capacity = boost::get(boost::edge_capacity, f);
    auto reverse = boost::get(boost::edge_reverse, f);
    auto arc = [&](std::size_t a, std::size_t b, double c) {
        const auto e = boost::add_edge(a, b, f).first;
        const auto r = boost::add_edge(b, a, f).first;
        capacity[e] = std::llround(c);
        capacity[r] = 0;
        reverse[e] = r;
        reverse[r] = e;
    };
    for (auto [e, end] = boost::edges(g); e != end; ++e) {
        if (!isScaleOut(g[*e]))
            continue;
        const auto a = boost::source(*e, g), b = boost::target(*e, g);
        arc(a, b, g[*e].bandwidth_Bps);
        arc(b, a, g[*e].bandwidth_Bps);
    }
    for (std::size_t v = 0; v < n; ++v) {
        if (fromSource[v] > 0.0)
            arc(source, v, fromSource[v]);
        if (toSink[v] > 0.0)
            arc(v, sink, toSink[v]);
    }
    return static_cast<double>(boost::push_relabel_max_flow(f, source, sink));
}

TopologyFigures topologyFigures(const NetworkPlan& p, const TopologyGraph& g) {
    TopologyFigures f;
    f.kind = toString(p.kind);
    f.scale_up = toString(p.scale_up);
    const bool switched = p.kind != TopologyKind::Torus3d;
    f.tiers = p.kind == TopologyKind::Dragonfly || !switched ? 0 : p.tiers;
    for (auto [v, end] = boost::vertices(g); v != end; ++v) {
        const auto kind = g[*v].kind;
        if (kind == VertexKind::ScaleUpSwitch)
            ++f.scale_up_switches;
        else if (kind != VertexKind::Device && !isModelStore(kind))
            ++f.switches;
    }
    for (auto [e, end] = boost::edges(g); e != end; ++e)
        if (!g[*e].stream)
            ++(g[*e].scale_up ? f.scale_up_links : f.cables);
    f.nics = switched ? p.devices : 0;

    // Diameter: BFS from devices that stand for every position (the networks are symmetric otherwise).
    std::vector<std::int64_t> from{0};
    if (p.kind == TopologyKind::Dragonfly)
        for (std::int64_t r = 1; r < p.routers_per_group; ++r)
            from.push_back(r * p.terminals_per_router);
    else if (p.kind != TopologyKind::Torus3d)
        from.push_back(p.devices - 1);
    f.diameter_hops = scaleOutEccentricity(g, p.devices, from);

    f.bisection_GBps = halvesBisection_Bps(p) / 1e9;
    return f;
}

double halvesBisection_Bps(const NetworkPlan& p) {
    const std::int64_t half = p.devices / 2;
    auto side = [&](std::int64_t d) { return d < half ? 0 : d >= p.devices - half ? 1 : 2; };
    switch (p.kind) {
    case TopologyKind::Torus3d: {
        // Cut across the longest dimension: two links (one wrapping round) per line along it.
        const std::int64_t longest = std::max({p.dims[0], p.dims[1], p.dims[2]});
        return longest > 1 ? 2.0 * static_cast<double>(p.devices) / static_cast<double>(longest) * p.link_Bps
                           : 0.0;
    }
    case TopologyKind::Dragonfly: {
        // Max flow between groups: a group's devices through its NIC links, groups joined by their
        // global bundles (local links inside a group are not the bottleneck of this cut).
        const std::int64_t perGroup = p.terminals_per_router * p.routers_per_group;
        std::vector<double> a(static_cast<std::size_t>(p.groups), 0.0), b(a);
        for (std::int64_t d = 0; d < p.devices; ++d) {
            const int s = side(d);
            if (s < 2)
                (s == 0 ? a : b)[static_cast<std::size_t>(d / perGroup)] += p.nic_Bps;
        }
        TopologyGraph groups;
        for (std::int64_t grp = 0; grp < p.groups; ++grp)
            boost::add_vertex(TopologyVertex{VertexKind::Router, grp}, groups);
        for (std::int64_t i = 0; i < p.groups; ++i)
            for (std::int64_t j = i + 1; j < p.groups; ++j)
                boost::add_edge(
                    static_cast<std::size_t>(i), static_cast<std::size_t>(j),
                    TopologyEdge{static_cast<double>(p.links_per_group_pair) * p.link_Bps, 0.0, false},
                    groups);
        return maxFlow_Bps(groups, a, b);
    }
    case TopologyKind::SingleSwitch:
    case TopologyKind::FatTree:
    case TopologyKind::RailFatTree:
        break;
    }
    // Fat trees: above the leaves every tier is non-blocking (as many links up as down, spread evenly),
    // so a leaf passes what its two sides exchange through its crossbar, and its surplus through its
    // uplinks.
    std::vector<std::array<std::int64_t, 2>> count(static_cast<std::size_t>(p.leaves), {0, 0});
    for (std::int64_t d = 0; d < p.devices; ++d)
        if (side(d) < 2)
            ++count[static_cast<std::size_t>(p.leafOf(d))][static_cast<std::size_t>(side(d))];
    const double up = static_cast<double>(p.leaf_up) * p.uplink_Bps;
    double local = 0.0, surplus[2] = {0.0, 0.0};
    for (const auto& c : count) {
        local += static_cast<double>(std::min(c[0], c[1])) * p.nic_Bps;
        const std::int64_t excess = c[0] - c[1];
        surplus[excess > 0 ? 0 : 1] += std::min(static_cast<double>(std::abs(excess)) * p.nic_Bps, up);
    }
    return local + std::min(surplus[0], surplus[1]);
}

} // namespace choreo::models
