#pragma once
// Small, exactly known simulations used by the tests to check the engine against closed forms.
// Each call builds its own SimGrid engine: call one per process (see DESIGN.md).

#include "sim/simulator.h"

#include <cstdint>

namespace choreo::sim {

struct ProbeLinks {
    double bandwidth_Bps = 1e9; // every link
    double latency_s = 0;       // every link
};

// Simulated time of `flops` on one device of speed `speed_flops`.
double probeCompute(double flops, double speed_flops);

// Simulated time of `flows` equal transfers of `bytes` between two devices on two nodes (sharing the
// same NIC links) started together.
double probeSharedLink(int flows, double bytes, const ProbeLinks& links);

// Simulated time of a ring all-reduce of `bytes` per rank over `devices` devices placed one per node,
// so that every ring edge crosses its NIC links.
double probeRingAllReduce(int devices, double bytes, const ProbeLinks& links, Fidelity fidelity);

// Simulated time of an all-to-all of `bytes` per rank (bytes / n to each other rank) over `devices`
// devices, one per node.
double probeAllToAll(int devices, double bytes, const ProbeLinks& links, Fidelity fidelity);

// A collective library's latency model (PlatformSpec::ringLatency): per collective, per ring step.
struct ProbeLibrary {
    double base_s = 0;
    double scale_up_step_s = 0;
    double network_step_s = 0;
    double tree_scale_up_step_s = 0; // tree all-reduce (0: rings only)
    double tree_network_step_s = 0;
    double tree_bandwidth_fraction = 0;
};

// The same over `nodes` nodes of `perNode` devices, ranks in node order: NCCL-like channels (channels.h).
// Scale-up links run at `scaleUp` (bandwidth and latency), NIC links at `links`.
double probeNodeRingAllReduce(int nodes, int perNode, double bytes, const ProbeLinks& links,
                              const ProbeLinks& scaleUp, Fidelity fidelity, const ProbeLibrary& library = {});

// Device pairs of an x * y * z torus platform whose SimGrid route does not take the hops (and latency)
// that the topology plan and the platform's latency() say: 0 when SimGrid numbers positions as we do.
int probeTorusRouteMismatches(std::int64_t x, std::int64_t y, std::int64_t z);

} // namespace choreo::sim
