#pragma once
// A grouped, read-only outline of a topology graph for display: pods, leaf units (racks), dragonfly
// groups, torus planes, nodes and switch tiers as nested groups over the graph's vertices, so that a
// view can draw a 16,384-device network as a few dozen boxes and open one group at a time.

#include "models/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace choreo::models {

struct OutlineGroup {
    std::string label;                  // "pod 3", "unit 12", "group 4", "plane z=2", "node 17", "spines"
    std::string kind;                   // "pod", "unit", "group", "plane", "node", "tier"
    std::int64_t parent = -1;           // index into TopologyOutline::groups, -1 at the top
    std::vector<std::int64_t> children; // sub-groups, in drawing order
    std::vector<std::size_t> members;   // graph vertices directly in this group (not in a sub-group)
    std::int64_t devices = 0;           // devices inside, sub-groups included
    std::int64_t switches = 0;          // switches inside (scale-up included), sub-groups included
};

struct TopologyOutline {
    std::vector<OutlineGroup> groups;
    std::vector<std::int64_t> roots;         // top-level groups, in drawing order
    std::vector<std::size_t> ungrouped;      // vertices in no group (a single switch, a few spines)
    std::vector<std::int64_t> groupOfVertex; // the innermost group of each vertex, -1 for none

    // The outermost group of `vertex`'s chain that is not open, or -1 when every group around it is
    // open (the vertex itself is then shown). `open(group)` says whether a group is expanded.
    template <typename IsOpen>
    [[nodiscard]] std::int64_t shownGroup(std::size_t vertex, IsOpen&& open) const {
        std::int64_t g = groupOfVertex[vertex];
        std::int64_t shown = -1;
        while (g >= 0) {
            if (!open(g))
                shown = g; // keep walking: an outer closed group hides this one
            g = groups[static_cast<std::size_t>(g)].parent;
        }
        return shown;
    }
};

// Groups the vertices of `graph` (built from `plan` by buildTopologyGraph) by the plan's structure:
// fat trees: pods (3 tiers) > units of nodes_per_leaf nodes with their leaves > nodes, spine and core
// tiers at the top, aggregation tiers inside pods; dragonfly: groups > nodes, with a router tier when a
// group has more than 4 routers; torus-3d: planes of constant z (else y) > nodes; single switch: nodes.
TopologyOutline outlineTopology(const NetworkPlan& plan, const TopologyGraph& graph);

// "device 12", "leaf 3", "spine 0", "core 5", "router 7", "scale-up switch of node 2".
std::string vertexLabel(const TopologyVertex& vertex);

} // namespace choreo::models
