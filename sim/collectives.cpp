#include "sim/collectives.h"

#include "sim/channels.h"

#include <algorithm>

namespace choreo::sim {

int ringSteps(Collective kind, std::int64_t n) {
    const int steps = static_cast<int>(n - 1);
    return kind == Collective::AllReduce ? 2 * steps : steps;
}

double ringTrafficPerRank(Collective kind, std::int64_t n, double bytes) {
    return static_cast<double>(ringSteps(kind, n)) * bytes / static_cast<double>(n);
}

namespace {

// The ring edges (by source rank index) that a flow-fidelity collective simulates.
std::vector<std::int64_t> simulatedEdges(const Platform& platform, const std::vector<std::int64_t>& ranks,
                                         Edges edges) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    auto at = [&](std::int64_t i) { return ranks[static_cast<std::size_t>(i % n)]; };
    std::vector<std::int64_t> out;
    if (edges == Edges::Representative) {
        out.push_back(0);
        return out;
    }
    if (edges == Edges::All) {
        for (std::int64_t i = 0; i < n; ++i)
            out.push_back(i);
        return out;
    }
    // On a non-blocking fabric (a crossbar of NIC links) an edge that crosses leaf switches shares no link
    // with another, so one cross-node edge stands for them all; elsewhere that one is of the same leaf.
    const bool leavesShareLinks = platform.spec().sharedScaleOutLinks();
    bool sameNode = false, crossNode = false;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t a = at(i), b = at(i + 1);
        bool take = i == 0 || i == n - 1; // the edges of the first rank meet its other traffic
        if (leavesShareLinks && platform.leafOf(a) != platform.leafOf(b))
            take = true;
        else if (platform.sameNode(a, b) && !sameNode)
            take = sameNode = true;
        else if (!platform.sameNode(a, b) && !crossNode)
            take = crossNode = true;
        if (take)
            out.push_back(i);
    }
    return out;
}

// Delay, then one flow of `traffic` bytes per simulated edge; returns the join that ends them. The flows
// pay their links' latency themselves: the delay is what `latency` adds to the slowest edge's.
TaskGraph::Id flowsAfterDelay(TaskGraph& graph, const Platform& platform,
                              const std::vector<std::int64_t>& ranks, double traffic, double latency,
                              TaskGraph::Id after, Edges edges) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n == 0)
        return after;
    auto at = [&](std::int64_t i) { return ranks[static_cast<std::size_t>(i % n)]; };
    const double hop = platform.spec().ringHop(ranks);
    TaskGraph::Id start = after;
    if (latency > hop) {
        start = graph.delay(latency - hop);
        graph.depend(after, start);
    }
    const TaskGraph::Id done = graph.join();
    for (std::int64_t i : simulatedEdges(platform, ranks, edges)) {
        const TaskGraph::Id flow = graph.transfer(at(i), at(i + 1), traffic);
        graph.depend(start, flow);
        graph.depend(flow, done);
    }
    return done;
}

// Before `rounds` message rounds over `ranks` (which pay their links' latency per round): a delay of
// whatever `latency` adds to that.
TaskGraph::Id delayBeyondLinks(TaskGraph& graph, const Platform& platform,
                               const std::vector<std::int64_t>& ranks, int rounds, double latency,
                               TaskGraph::Id after) {
    const double extra = latency - static_cast<double>(rounds) * platform.spec().ringHop(ranks);
    if (extra <= 0.0)
        return after;
    const TaskGraph::Id start = graph.delay(extra);
    graph.depend(after, start);
    return start;
}

// `rounds` ring steps of n messages of `chunk` bytes, with a barrier after each step.
TaskGraph::Id messageRounds(TaskGraph& graph, const std::vector<std::int64_t>& ranks, double chunk,
                            int rounds, TaskGraph::Id after) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    TaskGraph::Id previous = after;
    for (int s = 0; s < rounds; ++s) {
        const TaskGraph::Id barrier = graph.join();
        for (std::int64_t i = 0; i < n; ++i) {
            const TaskGraph::Id msg = graph.transfer(ranks[static_cast<std::size_t>(i)],
                                                     ranks[static_cast<std::size_t>((i + 1) % n)], chunk);
            graph.depend(previous, msg);
            graph.depend(msg, barrier);
        }
        previous = barrier;
    }
    return previous;
}

// The first rank's part of an all-to-all on a non-blocking fabric, where every device's scale-up and NIC
// links are its own: its messages to the peers of one link class (same node, other nodes) share only its
// own link out, and theirs to it only its link in, so one flow each way per class, of the class's bytes,
// ends when the peers' flows would. `flow(from, to, bytes)` adds one.
template <typename AddFlow>
void representativeAllToAll(const Platform& platform, const std::vector<std::int64_t>& ranks, double bytes,
                            models::AllToAllScale scale, AddFlow&& flow) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    std::int64_t peer[2] = {-1, -1}; // the first peer of each class: [0] same node, [1] other nodes
    double classBytes[2] = {0.0, 0.0};
    for (std::int64_t j = 1; j < n; ++j) {
        const int c = platform.sameNode(ranks.front(), ranks[static_cast<std::size_t>(j)]) ? 0 : 1;
        if (peer[c] < 0)
            peer[c] = j;
        classBytes[c] += bytes * (c == 0 ? scale.same_node : scale.other_node);
    }
    for (int c = 0; c < 2; ++c)
        if (peer[c] >= 0) {
            flow(0, peer[c], classBytes[c]);
            flow(peer[c], 0, classBytes[c]);
        }
}

} // namespace

TaskGraph::Id ringCollective(TaskGraph& graph, const Platform& platform, Fidelity fidelity, Collective kind,
                             const std::vector<std::int64_t>& ranks, double bytes, int count,
                             TaskGraph::Id after, Edges edges) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1 || count <= 0 || bytes <= 0.0)
        return after;
    const int steps = ringSteps(kind, n);
    const auto channels = ringChannels(platform.spec(), ranks);
    const double share = bytes / static_cast<double>(channels.size());
    std::vector<TaskGraph::Id> ends;
    // NCCL's tree, where its tuner would pick it for an all-reduce, costs its own latency and moves its
    // bytes over the same links at its fraction of the ring's bus bandwidth.
    const auto algorithm = kind == Collective::AllReduce
                               ? allReduceAlgorithm(platform.spec(), ranks, bytes)
                               : AllReduceAlgorithm{false, platform.spec().ringLatency(ranks, steps), 1.0};
    const double latency = algorithm.latency_s, scale = algorithm.bytes_factor;
    for (const auto& ring : channels) {
        if (fidelity == Fidelity::Flow) {
            ends.push_back(flowsAfterDelay(graph, platform, ring,
                                           ringTrafficPerRank(kind, n, share) * scale * count,
                                           count * latency, after, edges));
            continue;
        }
        TaskGraph::Id previous = after;
        for (int c = 0; c < count; ++c)
            previous = messageRounds(graph, ring, share * scale / static_cast<double>(n), steps,
                                     delayBeyondLinks(graph, platform, ring, steps, latency, previous));
        ends.push_back(previous);
    }
    if (ends.size() == 1)
        return ends.front();
    const TaskGraph::Id done = graph.join();
    graph.depend(ends, done);
    return done;
}

TaskGraph::Id ringPass(TaskGraph& graph, const Platform& platform, Fidelity fidelity,
                       const std::vector<std::int64_t>& ranks, double bytes, int steps, TaskGraph::Id after,
                       Edges edges) {
    if (ranks.size() <= 1 || steps <= 0 || bytes <= 0.0)
        return after;
    const double latency = platform.spec().passLatency(ranks, steps);
    if (fidelity == Fidelity::Flow)
        return flowsAfterDelay(graph, platform, ranks, bytes, latency, after, edges);
    return messageRounds(graph, ranks, bytes / static_cast<double>(steps), steps,
                         delayBeyondLinks(graph, platform, ranks, steps, latency, after));
}

TaskGraph::Id allToAll(TaskGraph& graph, const Platform& platform, Fidelity fidelity,
                       const std::vector<std::int64_t>& ranks, double bytes, int count, TaskGraph::Id after,
                       Edges edges, models::AllToAllScale scale) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1 || count <= 0 || bytes <= 0.0)
        return after;
    const double share = bytes / static_cast<double>(n);
    auto at = [&](std::int64_t i) { return ranks[static_cast<std::size_t>(i)]; };
    auto pairShare = [&](std::int64_t i, std::int64_t j) {
        return share * (platform.sameNode(at(i), at(j)) ? scale.same_node : scale.other_node);
    };
    if (fidelity == Fidelity::Flow) {
        double hop = 0.0;
        for (std::int64_t i = 1; i < n; ++i)
            hop = std::max({hop, platform.latency(at(0), at(i)), platform.latency(at(i), at(0))});
        TaskGraph::Id start = after;
        if (count > 1) {
            start = graph.delay(hop * static_cast<double>(count - 1));
            graph.depend(after, start);
        }
        const TaskGraph::Id done = graph.join();
        auto flow = [&](std::int64_t from, std::int64_t to, double flowBytes) {
            const TaskGraph::Id x = graph.transfer(at(from), at(to), flowBytes);
            graph.depend(start, x);
            graph.depend(x, done);
        };
        if (edges == Edges::Representative && !platform.spec().sharedScaleOutLinks()) {
            representativeAllToAll(platform, ranks, share * count, scale, flow);
            return done;
        }
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                if (i != j && (edges == Edges::All || i == 0 || j == 0))
                    flow(i, j, pairShare(i, j) * count);
        return done;
    }
    TaskGraph::Id previous = after;
    for (int round = 0; round < count; ++round) {
        const TaskGraph::Id barrier = graph.join();
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                if (i != j) {
                    const TaskGraph::Id msg = graph.transfer(at(i), at(j), pairShare(i, j));
                    graph.depend(previous, msg);
                    graph.depend(msg, barrier);
                }
        previous = barrier;
    }
    return previous;
}

} // namespace choreo::sim
