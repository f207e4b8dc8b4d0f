#pragma once
// Internal to sim: the figures and layout of a pool's platform, without SimGrid, shared by the SimGrid
// platform (platform.h) and the closed form (analytical.h).

#include "models/resolved.h"

#include <cstdint>
#include <vector>

namespace choreo::sim {

// How the scale-out network is built in SimGrid.
enum class ScaleOutFabric {
    Crossbar,  // non-blocking fat tree or single switch: only the NIC links limit a flow
    Leaves,    // oversubscribed fat tree: leaf zones, each with one aggregate uplink
    Dragonfly, // group zones; every pair of groups joined by its bundle of global links
    Torus,     // SimGrid torus zone: devices wired to their 6 neighbours, dimension-order routes
};

struct PlatformSpec;

// On fabrics with shared scale-out links, the most training devices whose traffic to another pool is
// simulated device by device, the folded replicas' too (DataPathSpec, OffloadPathSpec): a data stage's 32
// chunks a batch for 1,024 devices add some 0.4 s to a step's simulation (`choreo-sim bench`).
constexpr std::int64_t kMaxEveryDeviceFlows = 1024;

// The data stage's endpoints on the scale-out spine, when its reads and delivery run as flows beside the
// step: the storage tier, and the pool of CPUs that prepares the batches.
//
// On a non-blocking fabric only the simulated devices' batches are flows, and the bandwidths are those
// devices' share (`share`, the rest are folded away), so that their flows see the load all devices put on
// them. Behind oversubscribed leaves or on a dragonfly the folded devices' batches also cross links the
// step's collectives share (leaves' uplinks, the CPU pool's bundle to a group): there every device's
// batch is a flow to its NIC (`every_device`, `share` 1), up to kMaxEveryDeviceFlows devices.
struct DataPathSpec {
    bool present = false;
    bool every_device = false;    // every device's batch is a flow, the folded devices' too
    double share = 1;             // of the stage's reads and delivery, what the platform carries
    double storage_Bps = 0;       // the tier's read bandwidth for the CPU pool's nodes
    double storage_latency_s = 0; // one request, before the first byte
    double pool_Bps = 0;          // the CPU pool's NICs, achieved
    double pool_latency_s = 0;

    // The path of `scenario`'s data stage for a platform `spec` whose simulated devices each stand for
    // `foldFactor` devices; absent when the stage runs on the accelerators' own hosts (its reads and
    // delivery never reach the compute network), on a torus (a TPU-style pod's hosts take their batches
    // over a data-centre network the torus does not carry), or behind leaves or on a dragonfly past
    // kMaxEveryDeviceFlows devices: the closed form then, where the batches take the shared links' share
    // (models::NetworkPlan::offLeafShare) but contend with nothing.
    static DataPathSpec fromScenario(const models::ResolvedScenario& scenario, const PlatformSpec& spec,
                                     double foldFactor);
};

// An offload pool's endpoint on the scale-out spine (experts on another accelerator pool, or the optimizer on
// a pool of CPUs, over the network): its NICs' achieved bandwidth, the simulated devices' share of it as
// DataPathSpec's, or where those links are shared (leaves, dragonfly) all of it, with every device's
// traffic a flow.
struct OffloadPathSpec {
    bool present = false;
    bool every_device = false; // the folded replicas' transfers are flows too
    double pool_Bps = 0;
    double pool_latency_s = 0;

    // The pool of `scenario`'s `target` offload stage for a platform `spec` whose simulated devices each
    // stand for `foldFactor` devices; absent without that stage on a pool over the network, or where
    // DataPathSpec's would be (closed form then).
    static OffloadPathSpec of(const models::ResolvedScenario& scenario, const PlatformSpec& spec,
                              double foldFactor, models::OffloadTarget target);
};

// Link figures of a platform, in SI units, after efficiency factors, and where devices sit.
struct PlatformSpec {
    std::int64_t devices = 0;
    std::int64_t devices_per_node = 1;
    std::int64_t nodes_per_leaf = 4;
    double device_speed_flops = 1e12; // host speed: the dense peak at the workload's precision
    double idle_W = 0;
    double busy_W = 0;
    double scale_up_Bps = 0;       // effective, per device, one direction
    double scale_up_latency_s = 0; // per scale-up link (a route crosses two)
    double nic_Bps = 0;            // effective, per device, one direction
    double nic_latency_s = 0;
    double leaf_uplink_Bps = 0;  // aggregate leaf-to-spine capacity (oversubscription applied)
    bool oversubscribed = false; // leaf uplinks narrower than their downlinks: model them
    double switch_latency_s = 0;
    // The collective library's latency model (models::DeviceEfficiency): per collective, and per ring
    // step over the scale-up fabric or the network; 0 where the catalog has none.
    double collective_base_s = 0;
    double ring_step_scale_up_s = 0;
    double ring_step_network_s = 0;
    double tree_step_scale_up_s = 0; // tree all-reduce (0: none, rings only)
    double tree_step_network_s = 0;
    double tree_bandwidth_fraction = 0;
    ScaleOutFabric fabric = ScaleOutFabric::Crossbar;
    double global_link_Bps = 0;  // dragonfly: one group pair's bundle; torus: one link (effective)
    models::NetworkPlan network; // the checked topology; devices == 0 when built by hand (probes)
    DataPathSpec data;           // the data stage's endpoints; absent unless set after fromScenario
    OffloadPathSpec experts;     // the expert pool's endpoint; likewise
    OffloadPathSpec optimizer;   // the optimizer's CPU pool's endpoint; likewise

    // The spec of a resolved scenario's training pool.
    static PlatformSpec fromScenario(const models::ResolvedScenario& scenario);

    [[nodiscard]] std::int64_t nodeOf(std::int64_t device) const { return device / devices_per_node; }
    // The edge switch of a device's NIC (models::NetworkPlan::leafOf): devices with different values
    // cross shared links.
    [[nodiscard]] std::int64_t leafOf(std::int64_t device) const {
        return network.devices > 0 ? network.leafOf(device) : device / (nodes_per_leaf * devices_per_node);
    }
    // Whether the ranks of one tensor or context group may share a scale-out link (then none is folded).
    [[nodiscard]] bool sharedScaleOutLinks() const { return fabric != ScaleOutFabric::Crossbar; }
    [[nodiscard]] bool sameNode(std::int64_t a, std::int64_t b) const { return nodeOf(a) == nodeOf(b); }
    // Whether other pools' traffic (a data stage on CPUs, offloaded experts or optimizer) can be flows from
    // endpoints on the scale-out network: on a crossbar, and behind leaves or on a dragonfly up to
    // kMaxEveryDeviceFlows devices (Platform::poolsZone).
    [[nodiscard]] bool poolsOnNetwork() const;
    // One-way latency from device a to device b (a cross-leaf path also crosses the spine).
    [[nodiscard]] double latency(std::int64_t a, std::int64_t b) const;
    // Latency of one step from a to b in a collective: the link's own, or the library's per-step cost for
    // its link class (scale-up or network), whichever is larger.
    [[nodiscard]] double stepLatency(std::int64_t a, std::int64_t b) const;
    // Latency of one ring collective of `steps` pipelined steps over `ranks` (n - 1 steps per pass: an
    // all-gather or reduce-scatter makes one pass, an all-reduce two), after NCCL's tuning model: the
    // collective's base cost, then per pass c - 1 steps at the network's step latency and the others at
    // the scale-up fabric's, where c is the number of node boundaries the ring crosses.
    [[nodiscard]] double ringLatency(const std::vector<std::int64_t>& ranks, int steps) const;
    // NCCL's tree all-reduce over `ranks` (a chain inside each node, a double binary tree across nodes):
    // its latency, base + 2 * ((ranks per node - 1) * scale-up step + floor(log2 nodes) * network step),
    // and how much more its bytes take than the ring's (n / (n - 1) / tree_bandwidth_fraction: a tree
    // moves 2 * S per rank at that fraction of the ring's bus bandwidth). Which one runs: channels.h.
    [[nodiscard]] double treeLatency(const std::vector<std::int64_t>& ranks) const;
    [[nodiscard]] double treeBytesFactor(std::int64_t ranks) const;
    // The slowest link latency between consecutive ranks of a ring (what its messages pay per step).
    [[nodiscard]] double ringHop(const std::vector<std::int64_t>& ranks) const;
    // Latency of `steps` neighbour exchanges over `ranks` (ring attention), each paced by the slowest edge.
    [[nodiscard]] double passLatency(const std::vector<std::int64_t>& ranks, int steps) const;
};

} // namespace choreo::sim
