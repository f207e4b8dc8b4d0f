#include "sim/dataflows.h"

#include <algorithm>
#include <numeric>

namespace choreo::sim {

DataFlows::DataFlows(const models::ResolvedDataStage& data, std::int64_t globalBatch,
                     const Platform& platform, TaskGraph& graph, const std::vector<std::int64_t>& devices,
                     double foldFactor)
    : closedForm_(models::dataStageTimes(data, globalBatch)) {
    const double chunks = kChunks;
    const DataPathSpec& path = platform.spec().data;
    const double readBytes = closedForm_.samples * data.stored_bytes_per_sample * path.share / chunks;
    const double poolDevices = static_cast<double>(devices.size()) * foldFactor;
    const double deliverBytes = closedForm_.delivered_bytes / poolDevices / chunks;
    std::vector<std::int64_t> receivers = devices;
    if (path.every_device) {
        receivers.resize(static_cast<std::size_t>(platform.spec().devices));
        std::iota(receivers.begin(), receivers.end(), 0);
    }
    // The batch's requests are issued together ahead of need (as in the closed form): its reads stream
    // at the tier's bandwidth, and the batch is never ready sooner than one request's latency.
    latency_ = graph.delay(platform.spec().data.storage_latency_s);
    TaskGraph::Id previousRead = -1, previousPrep = -1, previousDelivery = -1;
    for (int c = 0; c < kChunks; ++c) {
        const auto read = graph.transferHosts(platform.storage(), platform.dataPool(), readBytes);
        if (previousRead >= 0)
            graph.depend(previousRead, read);
        const auto prep = graph.delay(closedForm_.preprocess_s / chunks);
        graph.depend(read, prep);
        if (previousPrep >= 0)
            graph.depend(previousPrep, prep);
        std::vector<TaskGraph::Id> flows;
        flows.reserve(receivers.size());
        const auto delivered = graph.join();
        for (std::int64_t d : receivers) {
            const auto flow = graph.transferHosts(platform.dataPool(), platform.nic(d), deliverBytes);
            graph.depend(prep, flow);
            if (previousDelivery >= 0)
                graph.depend(previousDelivery, flow);
            graph.depend(flow, delivered);
            flows.push_back(flow);
        }
        reads_.push_back(read);
        preprocess_.push_back(prep);
        deliveries_.push_back(delivered);
        chunkFlows_.push_back(std::move(flows));
        previousRead = read;
        previousPrep = prep;
        previousDelivery = delivered;
    }
    graph.depend(latency_, deliveries_.back());
}

models::DataStageTimes DataFlows::measure(const TaskGraph& graph, double start) const {
    models::DataStageTimes t = closedForm_;
    t.simulated = true;
    // Reads follow one another from the start; preprocessing is the CPUs' own (closed form); a chunk's
    // delivery is busy from its first flow's start to its last flow's end.
    t.read_s = std::max(graph.task(reads_.back()).end_s, graph.task(latency_).end_s) - start;
    t.deliver_s = 0.0;
    for (const auto& flows : chunkFlows_) {
        double first = graph.task(flows.front()).start_s, last = first;
        for (TaskGraph::Id f : flows) {
            first = std::min(first, graph.task(f).start_s);
            last = std::max(last, graph.task(f).end_s);
        }
        t.deliver_s += last - first;
    }
    t.span_s = graph.task(deliveries_.back()).end_s - start;
    return t;
}

} // namespace choreo::sim
