#pragma once
// Internal to sim: collectives as tasks of a TaskGraph.

#include "sim/simulator.h"
#include "sim/taskgraph.h"

#include <vector>

namespace choreo::sim {

enum class Collective { AllReduce, ReduceScatter, AllGather };

// A ring collective over `ranks` (device indices, in ring order) of `bytes` data per rank, repeated
// `count` times back to back (the per-layer collectives of one pipeline operation), started after
// `after`. Flow fidelity: one latency delay (count * steps hops) then one flow per ring edge carrying
// all the traffic, so shared links are contended for real. Packet fidelity: every ring step as n
// messages of bytes/n with a barrier between steps. With `representative`, only the first rank's flow
// is simulated (callers use it where the ring's edges share no link). Returns the join that ends it.
TaskGraph::Id ringCollective(TaskGraph& graph, const Platform& platform, Fidelity fidelity, Collective kind,
                             const std::vector<std::int64_t>& ranks, double bytes, int count,
                             TaskGraph::Id after, bool representative = false);

// Ring steps of a collective over n ranks: 2(n-1) for all-reduce, n-1 otherwise.
int ringSteps(Collective kind, std::int64_t n);
// Bytes each rank sends in the whole collective: steps * bytes / n.
double ringTrafficPerRank(Collective kind, std::int64_t n, double bytes);

} // namespace choreo::sim
