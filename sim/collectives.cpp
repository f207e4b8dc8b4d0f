#include "sim/collectives.h"

#include <algorithm>

namespace choreo::sim {

int ringSteps(Collective kind, std::int64_t n) {
    const int steps = static_cast<int>(n - 1);
    return kind == Collective::AllReduce ? 2 * steps : steps;
}

double ringTrafficPerRank(Collective kind, std::int64_t n, double bytes) {
    return static_cast<double>(ringSteps(kind, n)) * bytes / static_cast<double>(n);
}

TaskGraph::Id ringCollective(TaskGraph& graph, const Platform& platform, Fidelity fidelity, Collective kind,
                             const std::vector<std::int64_t>& ranks, double bytes, int count,
                             TaskGraph::Id after, bool representative) {
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= 1 || count <= 0 || bytes <= 0.0)
        return after;
    const int steps = ringSteps(kind, n);
    auto next = [&](std::int64_t i) { return ranks[static_cast<std::size_t>((i + 1) % n)]; };

    if (fidelity == Fidelity::Flow) {
        double hop = 0.0; // the slowest edge sets the pace of every step
        for (std::int64_t i = 0; i < n; ++i)
            hop = std::max(hop, platform.latency(ranks[static_cast<std::size_t>(i)], next(i)));
        // The flows below pay one hop latency themselves; the other steps are added here.
        const double latency = hop * static_cast<double>(count * steps - 1);
        TaskGraph::Id start = after;
        if (latency > 0.0) {
            start = graph.delay(latency);
            graph.depend(after, start);
        }
        const TaskGraph::Id done = graph.join();
        const double traffic = ringTrafficPerRank(kind, n, bytes) * count;
        for (std::int64_t i = 0; i < (representative ? 1 : n); ++i) {
            const TaskGraph::Id flow = graph.transfer(ranks[static_cast<std::size_t>(i)], next(i), traffic);
            graph.depend(start, flow);
            graph.depend(flow, done);
        }
        return done;
    }

    TaskGraph::Id previous = after;
    const double chunk = bytes / static_cast<double>(n);
    for (int c = 0; c < count; ++c)
        for (int s = 0; s < steps; ++s) {
            const TaskGraph::Id barrier = graph.join();
            for (std::int64_t i = 0; i < (representative ? 1 : n); ++i) {
                const TaskGraph::Id msg = graph.transfer(ranks[static_cast<std::size_t>(i)], next(i), chunk);
                graph.depend(previous, msg);
                graph.depend(msg, barrier);
            }
            previous = barrier;
        }
    return previous;
}

} // namespace choreo::sim
