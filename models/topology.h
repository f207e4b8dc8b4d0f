#pragma once
// The network of a pool as a graph (Boost.Graph): devices, scale-up and scale-out switches, links with
// bandwidth and latency. Planned from the scenario, checked, and measured (bisection, diameter, counts).

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/scenario.h"

#include <array>
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace choreo::models {

// Servers under one leaf switch of a fat tree when the scenario does not say (CHOREO-DEFAULT).
inline constexpr std::int64_t kDefaultNodesPerLeaf = 4;
// Ports per switch when the scenario does not say: NVIDIA Quantum-2 QM9700, 64 x 400 Gb/s NDR (S101).
inline constexpr std::int64_t kDefaultSwitchRadix = 64;

// How the devices of one scale-up domain (a node) are wired.
enum class ScaleUpShape {
    Switched, // NVLink/NVSwitch (8-GPU baseboard, NVL72 rack), PCIe, NeuronLink: one switch per domain
    Mesh,     // AMD Infinity Fabric, Gaudi's integrated RoCE ports: every device to every other
    Torus,    // Google TPU ICI: a 3D torus slice; Graphcore's IPU-Links: a 2D torus
};
std::string toString(ScaleUpShape shape);
// The shape a catalog fabric name implies ("infinity-fabric" -> Mesh, "tpu-ici" and "ipu-link" -> Torus,
// else Switched).
ScaleUpShape scaleUpShapeOf(const std::string& fabric);

// Every count and rate of a pool's network, before any graph exists. Line rates, one direction, B/s.
struct NetworkPlan {
    TopologyKind kind = TopologyKind::FatTree;
    std::int64_t devices = 0;
    std::int64_t devices_per_node = 1;
    std::int64_t nodes = 0;
    ScaleUpShape scale_up = ScaleUpShape::Switched;
    std::array<std::int64_t, 3> scale_up_dims{1, 1, 1}; // torus scale-up: the slice per node
    double scale_up_Bps = 0;                            // per device
    double scale_up_latency_s = 0;                      // device to device inside a domain
    double nic_Bps = 0;                                 // per device (one NIC or port group per device)
    double link_Bps = 0;                                // one dragonfly or torus link
    double hop_latency_s = 0;                           // one switch or torus hop
    std::int64_t radix = kDefaultSwitchRadix;
    double oversubscription = 1.0;

    // Fat trees (fat-tree, rail-fat-tree; single-switch is one leaf and tiers = 1).
    bool rail = false;
    std::int64_t tiers = 1;
    std::int64_t nodes_per_leaf = 0; // nodes whose NICs (rail: whose rail-k NIC) one leaf serves
    std::int64_t leaves = 0;
    std::int64_t leaf_down = 0; // device ports of a full leaf
    std::int64_t leaf_up = 0;   // uplinks of a leaf
    double uplink_Bps = 0;      // one uplink: leaf_down * nic / (oversubscription * leaf_up)
    std::int64_t leaves_per_pod = 0;
    std::int64_t pods = 0;   // three tiers
    std::int64_t spines = 0; // two tiers: spines; three tiers: aggregation switches, all pods
    std::int64_t cores = 0;  // three tiers

    // Dragonfly.
    std::int64_t groups = 0;
    std::int64_t routers_per_group = 0;
    std::int64_t terminals_per_router = 0;
    std::int64_t global_links_per_router = 0;
    std::int64_t links_per_group_pair = 0;

    // Torus (devices are its vertices; x varies fastest with the device index).
    std::array<std::int64_t, 3> dims{0, 0, 0};

    // The edge switch of a device's NIC: its leaf (fat trees), its router group (dragonfly), 0 (single
    // switch), the device itself (torus). Devices with the same value share that switch's uplinks.
    [[nodiscard]] std::int64_t leafOf(std::int64_t device) const;
    [[nodiscard]] std::int64_t routerOf(std::int64_t device) const; // dragonfly
    [[nodiscard]] std::array<std::int64_t, 3> torusCoord(std::int64_t device) const;
    // Switch or link hops between the NICs of two devices on the scale-out network (minimal routes).
    [[nodiscard]] std::int64_t scaleOutHops(std::int64_t a, std::int64_t b) const;
    // Edge groups whose uplinks are the only shared links (leaves of an oversubscribed fat tree).
    [[nodiscard]] bool oversubscribed() const;
    // The share of its NIC's rate a device keeps past its edge group (leafOf) when every device there sends
    // at once to another pool: 1 / oversubscription behind oversubscribed leaves; on a dragonfly, where the
    // other pools are taken as a group of their own, what the bundle from that group carries for each of
    // the group's devices (at most 1); else 1.
    [[nodiscard]] double offLeafShare() const;
    bool operator==(const NetworkPlan&) const = default;
};

// Figures of one cluster's network, reported per run and used by cost and power later.
struct TopologyFigures {
    std::string kind;
    std::string scale_up;               // "switched", "mesh", "torus"
    std::int64_t tiers = 0;             // switch tiers (fat trees), 0 for direct networks
    double bisection_GBps = 0;          // line rate, one direction, between the two halves of the devices
    std::int64_t diameter_hops = 0;     // links on the longest minimal scale-out route between two devices
    std::int64_t switches = 0;          // scale-out switches (leaves, spines, cores, dragonfly routers)
    std::int64_t scale_up_switches = 0; // one per switched scale-up domain
    std::int64_t nics = 0;              // scale-out NICs (0 where the device's ports are wired directly)
    std::int64_t cables = 0;            // scale-out links, NIC cables included
    std::int64_t scale_up_links = 0;    // device-to-switch or device-to-device scale-up links
    bool operator==(const TopologyFigures&) const = default;
};

// The effective figures of a pool's links, after scenario overrides and catalog defaults (SI units).
struct LinkRates {
    std::string scale_up_fabric;
    double scale_up_Bps = 0; // per device, one direction
    double scale_up_latency_s = 0;
    double nic_Bps = 0; // per device, one direction
    double switch_latency_s = 0;
};

// Plans the network of `pool` (index `poolIndex` in the scenario) on `device`. Checks port counts,
// bandwidths and shapes; on failure returns nullopt and adds errors naming the JSON path (e.g.
// cluster.network.topology.radix).
std::optional<NetworkPlan> planNetwork(const Pool& pool, std::size_t poolIndex, const Device& device,
                                       const Network& network, const LinkRates& rates, Diagnostics& errors);

// The topology fields of `kind` for `pool`, starting from `from`: fields the kind does not use are
// cleared (they would be errors), fields it shares are kept, and fields it requires are filled with a
// plan that fits: torus-3d dims the most cube-like x <= y <= z of the devices; dragonfly one router per
// node, about sqrt(nodes) routers per group; a single switch a port per device when the radix is smaller.
// What an editor applies when the user picks another kind.
Topology topologyForKind(TopologyKind kind, const Pool& pool, const Topology& from);

// MemoryX, SwarmX and StreamingMemory are the stores a weight-streaming or bulk-synchronous device keeps its
// model state in and the tree that joins them (addModelStores); no collective crosses them.
enum class VertexKind { Device, ScaleUpSwitch, Leaf, Spine, Core, Router, MemoryX, SwarmX, StreamingMemory };
[[nodiscard]] inline bool isModelStore(VertexKind kind) {
    return kind == VertexKind::MemoryX || kind == VertexKind::SwarmX || kind == VertexKind::StreamingMemory;
}
// Counted with the switches where a view or outline counts them: every vertex but devices and memories
// (SwarmX's nodes are switches that broadcast and reduce).
[[nodiscard]] inline bool countsAsSwitch(VertexKind kind) {
    return kind != VertexKind::Device && kind != VertexKind::MemoryX && kind != VertexKind::StreamingMemory;
}
struct TopologyVertex {
    VertexKind kind = VertexKind::Device;
    std::int64_t index = 0; // device index, or switch index within its kind
};
struct TopologyEdge {
    double bandwidth_Bps = 0; // line rate, each direction
    double latency_s = 0;
    bool scale_up = false;
    bool stream = false; // to or from a model store (addModelStores)
};
// A link of the scale-out network: neither scale-up nor to a model store.
[[nodiscard]] inline bool isScaleOut(const TopologyEdge& edge) {
    return !edge.scale_up && !edge.stream;
}
using TopologyGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopologyVertex, TopologyEdge>;

// The graph of a plan: vertices 0..devices-1 are the devices, in order; switches follow.
TopologyGraph buildTopologyGraph(const NetworkPlan& plan);

// Appends the stores `device` keeps its model state in, for a view to draw beside the network: on a
// weight-streaming device (Cerebras) MemoryX, joined to every system through SwarmX, a binary tree of
// broadcast-and-reduce nodes (one level per halving, as the step model counts its hops); on a
// bulk-synchronous device (Graphcore) one streaming memory per node, linked to each of its devices. The
// edges carry the streaming rates and are marked `stream`; the figures and checks skip those edges
// (isScaleOut) and leave the stores out of their counts.
void addModelStores(TopologyGraph& graph, const NetworkPlan& plan, const Device& device);

// Checks a graph: connected, every device has a scale-out link, no link without bandwidth. Errors
// name `path` (the topology's JSON path).
bool checkTopologyGraph(const TopologyGraph& graph, std::int64_t devices, const std::string& path,
                        Diagnostics& errors);

// Longest shortest scale-out path (in links) from the given devices to every other device (BFS).
std::int64_t scaleOutEccentricity(const TopologyGraph& graph, std::int64_t devices,
                                  const std::vector<std::int64_t>& from);
// Max flow over scale-out links from the first half of the devices to the second half, B/s: the
// bisection of the graph, for checking halvesBisection_Bps on small clusters (it allocates a lot).
double halvesMaxFlow_Bps(const TopologyGraph& graph, std::int64_t devices);
// Max flow over the scale-out links of `graph` from a source joined to each vertex v with capacity
// fromSource[v] to a sink joined with toSink[v] (B/s).
double maxFlow_Bps(const TopologyGraph& graph, const std::vector<double>& fromSource,
                   const std::vector<double>& toSink);
// Bisection bandwidth between the first and the second half of the devices (by index), one direction,
// line rate, B/s, in closed form per kind (linear in the devices).
double halvesBisection_Bps(const NetworkPlan& plan);

// The figures of a planned network: counts from the graph, diameter by BFS on it, bisection by
// halvesBisection_Bps.
TopologyFigures topologyFigures(const NetworkPlan& plan, const TopologyGraph& graph);

} // namespace choreo::models
