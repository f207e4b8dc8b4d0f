#pragma once
// Internal to sim: includes SimGrid (through taskgraph.h).

#include "models/datastage.h"
#include "sim/taskgraph.h"

#include <cstdint>
#include <vector>

namespace choreo::sim {

// The data stage's next batch, read, prepared and delivered while the step runs, as in steady state with
// a prefetch queue. The batch goes in chunks: each is read from storage, preprocessed on the CPU pool, then
// sent to every simulated device's NIC, one chunk after another in each part, so that the parts stream
// behind the slowest. Reads and deliveries are flows on the step's platform (Platform::storage,
// Platform::dataPool): a delivery shares the device's NIC link with the step's collectives. Behind
// oversubscribed leaves every device's batch is a flow (DataPathSpec::every_device), so that each leaf's
// uplink carries all its devices' batches beside the step's traffic.
class DataFlows {
public:
    static constexpr int kChunks = 32;

    // Adds the batch's tasks to `graph`. `devices` are the simulated devices; `foldFactor` is how many
    // devices each simulated one stands for.
    DataFlows(const models::ResolvedDataStage& data, std::int64_t globalBatch, const Platform& platform,
              TaskGraph& graph, const std::vector<std::int64_t>& devices, double foldFactor);

    // After the run, from the step's `start`: each part's busy time and the batch's span (simulated).
    [[nodiscard]] models::DataStageTimes measure(const TaskGraph& graph, double start) const;

private:
    models::DataStageTimes closedForm_;
    std::vector<TaskGraph::Id> reads_, preprocess_, deliveries_; // deliveries_: each chunk's join
    std::vector<std::vector<TaskGraph::Id>> chunkFlows_;         // each chunk's flows to the devices
    TaskGraph::Id latency_ = -1;                                 // the tier's first-byte latency
};

} // namespace choreo::sim
