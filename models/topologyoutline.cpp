#include "models/topologyoutline.h"

#include <algorithm>

namespace choreo::models {

namespace {

// Switch tiers with more switches than this become a group of their own, so that a view draws one
// bundle to them instead of one line per switch.
constexpr std::int64_t kTierThreshold = 4;

class OutlineBuilder {
public:
    OutlineBuilder(const NetworkPlan& plan, const TopologyGraph& graph)
        : plan_(plan)
        , graph_(graph) {
        out_.groupOfVertex.assign(boost::num_vertices(graph), -1);
    }

    std::int64_t add(std::string label, std::string kind, std::int64_t parent) {
        const auto id = static_cast<std::int64_t>(out_.groups.size());
        out_.groups.push_back({std::move(label), std::move(kind), parent, {}, {}, 0, 0});
        if (parent >= 0)
            out_.groups[static_cast<std::size_t>(parent)].children.push_back(id);
        else
            out_.roots.push_back(id);
        return id;
    }

    void put(std::size_t vertex, std::int64_t group) {
        out_.groupOfVertex[vertex] = group;
        if (group >= 0)
            out_.groups[static_cast<std::size_t>(group)].members.push_back(vertex);
        else
            out_.ungrouped.push_back(vertex);
    }

    // Puts a set of switches in `parent` directly, or in a tier group of their own when there are many.
    void putTier(const std::vector<std::size_t>& switches, const std::string& name, std::int64_t parent) {
        if (switches.empty())
            return;
        std::int64_t g = parent;
        if (static_cast<std::int64_t>(switches.size()) > kTierThreshold)
            g = add(std::to_string(switches.size()) + " " + name, "tier", parent);
        for (auto v : switches)
            put(v, g);
    }

    // The model stores (addModelStores): MemoryX and SwarmX's tree at the top, each node's streaming
    // memory with its devices (in `nodeGroup`).
    void putStores(const std::vector<std::int64_t>& nodeGroup) {
        std::vector<std::size_t> swarm;
        for (std::size_t v = 0; v < boost::num_vertices(graph_); ++v) {
            const TopologyVertex& vertex = graph_[v];
            if (vertex.kind == VertexKind::MemoryX)
                put(v, -1);
            else if (vertex.kind == VertexKind::SwarmX)
                swarm.push_back(v);
            else if (vertex.kind == VertexKind::StreamingMemory)
                put(v, nodeGroup[static_cast<std::size_t>(vertex.index)]);
        }
        putTier(swarm, "SwarmX nodes", -1);
    }

    TopologyOutline build() {
        const auto& p = plan_;
        // Vertices by kind, in index order.
        std::vector<std::size_t> scaleUp, leaves, spines, cores, routers;
        for (std::size_t v = 0; v < boost::num_vertices(graph_); ++v) {
            switch (graph_[v].kind) {
            case VertexKind::Device:
                break;
            case VertexKind::ScaleUpSwitch:
                scaleUp.push_back(v);
                break;
            case VertexKind::Leaf:
                leaves.push_back(v);
                break;
            case VertexKind::Spine:
                spines.push_back(v);
                break;
            case VertexKind::Core:
                cores.push_back(v);
                break;
            case VertexKind::Router:
                routers.push_back(v);
                break;
            default: // the model stores: putStores
                break;
            }
        }

        // Where each node goes: the group that holds it, made on first use.
        std::vector<std::int64_t> nodeParent(static_cast<std::size_t>(p.nodes), -1);
        switch (p.kind) {
        case TopologyKind::SingleSwitch:
            for (auto v : leaves)
                put(v, -1);
            break;
        case TopologyKind::FatTree:
        case TopologyKind::RailFatTree: {
            const bool pods = p.tiers == 3 && p.pods > 1;
            if (p.tiers == 3)
                putTier(cores, "core switches", -1);
            else
                putTier(spines, "spine switches", -1);
            const std::int64_t leavesPerUnit = p.rail ? p.devices_per_node : 1;
            const std::int64_t units = p.leaves / leavesPerUnit;
            std::vector<std::int64_t> podGroup(static_cast<std::size_t>(std::max<std::int64_t>(p.pods, 1)),
                                               -1);
            if (pods)
                for (std::int64_t pod = 0; pod < p.pods; ++pod) {
                    podGroup[static_cast<std::size_t>(pod)] = add("pod " + std::to_string(pod), "pod", -1);
                    std::vector<std::size_t> aggs(spines.begin() + pod * p.leaf_up,
                                                  spines.begin() + (pod + 1) * p.leaf_up);
                    putTier(aggs, "aggregation switches", podGroup[static_cast<std::size_t>(pod)]);
                }
            else if (p.tiers == 3)
                putTier(spines, "aggregation switches", -1);
            for (std::int64_t u = 0; u < units; ++u) {
                const std::int64_t firstLeaf = u * leavesPerUnit;
                const std::int64_t parent =
                    pods ? podGroup[static_cast<std::size_t>(firstLeaf / p.leaves_per_pod)] : -1;
                // One unit is the whole fabric of a single-leaf fat tree: no box around everything.
                const std::int64_t g = units > 1 ? add("unit " + std::to_string(u), "unit", parent) : parent;
                for (std::int64_t k = 0; k < leavesPerUnit; ++k)
                    put(leaves[static_cast<std::size_t>(firstLeaf + k)], g);
                for (std::int64_t n = u * p.nodes_per_leaf; n < std::min(p.nodes, (u + 1) * p.nodes_per_leaf);
                     ++n)
                    nodeParent[static_cast<std::size_t>(n)] = g;
            }
            break;
        }
        case TopologyKind::Dragonfly:
            for (std::int64_t grp = 0; grp < p.groups; ++grp) {
                const std::int64_t g = add("group " + std::to_string(grp), "group", -1);
                std::vector<std::size_t> rs(routers.begin() + grp * p.routers_per_group,
                                            routers.begin() + (grp + 1) * p.routers_per_group);
                putTier(rs, "routers", g);
            }
            for (std::int64_t n = 0; n < p.nodes; ++n)
                nodeParent[static_cast<std::size_t>(n)] =
                    out_.roots[static_cast<std::size_t>(p.leafOf(n * p.devices_per_node))];
            break;
        case TopologyKind::Torus3d: {
            // Planes across the outermost dimension longer than 1 (z, else y).
            const std::size_t axis = p.dims[2] > 1 ? 2 : 1;
            if (p.dims[axis] > 1) {
                std::vector<std::int64_t> planes;
                for (std::int64_t i = 0; i < p.dims[axis]; ++i)
                    planes.push_back(add(
                        std::string("plane ") + (axis == 2 ? "z=" : "y=") + std::to_string(i), "plane", -1));
                for (std::int64_t n = 0; n < p.nodes; ++n)
                    nodeParent[static_cast<std::size_t>(n)] =
                        planes[static_cast<std::size_t>(p.torusCoord(n * p.devices_per_node)[axis])];
            }
            break;
        }
        }

        // Nodes: their devices and scale-up switch, one group per node when a node has several devices.
        const bool nodeGroups = p.devices_per_node > 1;
        std::vector<std::int64_t> nodeGroup; // the group each node's vertices went to
        for (std::int64_t n = 0; n < p.nodes; ++n) {
            const std::int64_t parent = nodeParent[static_cast<std::size_t>(n)];
            const std::int64_t g = nodeGroups ? add("node " + std::to_string(n), "node", parent) : parent;
            for (std::int64_t d = n * p.devices_per_node;
                 d < std::min(p.devices, (n + 1) * p.devices_per_node); ++d)
                put(static_cast<std::size_t>(d), g);
            if (static_cast<std::size_t>(n) < scaleUp.size())
                put(scaleUp[static_cast<std::size_t>(n)], g);
            nodeGroup.push_back(g);
        }
        putStores(nodeGroup);

        countGroups();
        return std::move(out_);
    }

    // Each group's devices and switches, children before parents (a child has a larger index).
    void countGroups() {
        for (std::size_t g = out_.groups.size(); g-- > 0;) {
            auto& group = out_.groups[g];
            for (auto v : group.members)
                if (graph_[v].kind == VertexKind::Device)
                    ++group.devices;
                else if (countsAsSwitch(graph_[v].kind))
                    ++group.switches;
            if (group.parent >= 0) {
                auto& parent = out_.groups[static_cast<std::size_t>(group.parent)];
                parent.devices += group.devices;
                parent.switches += group.switches;
            }
        }
    }

private:
    const NetworkPlan& plan_;
    const TopologyGraph& graph_;
    TopologyOutline out_;
};

} // namespace

TopologyOutline outlineTopology(const NetworkPlan& plan, const TopologyGraph& graph) {
    return OutlineBuilder(plan, graph).build();
}

std::string vertexLabel(const TopologyVertex& vertex) {
    std::string i = std::to_string(vertex.index);
    switch (vertex.kind) {
    case VertexKind::Device:
        return "device " + i;
    case VertexKind::ScaleUpSwitch:
        return "scale-up switch of node " + i;
    case VertexKind::Leaf:
        return "leaf " + i;
    case VertexKind::Spine:
        return "spine " + i;
    case VertexKind::Core:
        return "core " + i;
    case VertexKind::Router:
        return "router " + i;
    case VertexKind::MemoryX:
        return "MemoryX";
    case VertexKind::SwarmX:
        return "SwarmX " + i;
    case VertexKind::StreamingMemory:
        return "streaming memory of node " + i;
    }
    return i;
}

} // namespace choreo::models
