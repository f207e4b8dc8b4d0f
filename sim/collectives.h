#pragma once
// Internal to sim: collectives as tasks of a TaskGraph.

#include "models/stepcost.h"
#include "sim/simulator.h"
#include "sim/taskgraph.h"

#include <vector>

namespace choreo::sim {

enum class Collective { AllReduce, ReduceScatter, AllGather };

// Which ring edges a flow-fidelity collective simulates.
enum class Edges {
    All,            // every edge
    Representative, // only the first rank's edge: for rings whose edges share no link with one another
    ByLinkClass,    // by symmetry: the edges into and out of the first rank, one edge of each link class
                    // (same node, same leaf), and on fabrics with shared scale-out links every edge that
                    // crosses leaf switches (those share the leaf uplinks); each NIC link still carries what
                    // it would in the full ring
};

// A ring collective over `ranks` (device indices, in ring order) of `bytes` data per rank, repeated
// `count` times back to back (the per-layer collectives of one pipeline operation), started after
// `after`. A ring spanning nodes with several ranks in each runs as NCCL-like channels (channels.h),
// each carrying its share of the data, side by side. Each collective costs PlatformSpec::ringLatency; an
// all-reduce for which NCCL's tuner would pick its tree (allReduceAlgorithm, channels.h) costs the tree's
// latency instead, its bytes carried on the same links at the tree's fraction of the ring's bandwidth.
// Flow fidelity: one latency delay (count collectives' latency), then one flow per simulated ring edge
// carrying all that edge's traffic, so shared links are contended for real. Packet fidelity: every ring
// step as n messages of bytes/n with a barrier between steps, on every edge, after a delay of what the
// collective's latency adds to its messages'. Returns the join that ends it.
TaskGraph::Id ringCollective(TaskGraph& graph, const Platform& platform, Fidelity fidelity, Collective kind,
                             const std::vector<std::int64_t>& ranks, double bytes, int count,
                             TaskGraph::Id after, Edges edges = Edges::All);

// A ring pass (context parallelism's ring attention): `steps` steps in each of which every rank sends
// `bytes / steps` to the next, paced by the slowest edge's step latency (PlatformSpec::passLatency). Flow
// fidelity: latency delay, then one flow per simulated edge.
TaskGraph::Id ringPass(TaskGraph& graph, const Platform& platform, Fidelity fidelity,
                       const std::vector<std::int64_t>& ranks, double bytes, int steps, TaskGraph::Id after,
                       Edges edges = Edges::All);

// An all-to-all over `ranks`: each rank sends bytes / n to every other (expert parallelism's dispatch and
// combine), `count` times back to back, after `after`. Flow fidelity: one latency delay, then one flow per
// simulated pair carrying all its traffic; Edges::All simulates every ordered pair, otherwise only the
// pairs into and out of the first rank (its links carry what they would). Packet fidelity: every message
// of every round, with a barrier between rounds. `scale` scales what goes to a peer on the same node and to
// one on another node (the dispatcher's, models::expertDispatchScale). Returns the join that ends it.
TaskGraph::Id allToAll(TaskGraph& graph, const Platform& platform, Fidelity fidelity,
                       const std::vector<std::int64_t>& ranks, double bytes, int count, TaskGraph::Id after,
                       Edges edges = Edges::All, models::AllToAllScale scale = {});

// Ring steps of a collective over n ranks: 2(n-1) for all-reduce, n-1 otherwise.
int ringSteps(Collective kind, std::int64_t n);
// Bytes each rank sends in the whole collective: steps * bytes / n.
double ringTrafficPerRank(Collective kind, std::int64_t n, double bytes);

} // namespace choreo::sim
