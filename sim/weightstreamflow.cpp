#include "sim/weightstreamflow.h"

#include "models/transformer.h"
#include "models/weightstreaming.h"
#include "sim/engine.h"
#include "sim/simulator.h"
#include "sim/taskgraph.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace choreo::sim {

namespace {

// The wafer's speed as a host: compute tasks are seconds at it.
constexpr double kWaferSpeed = 1e12;
// Micro-batches simulated: the first fills the buffers, the later ones repeat; the step extrapolates the
// last (so a graph holds 3 x 3 x layers tasks, whatever the batch).
constexpr std::int64_t kSimulatedMicroBatches = 3;

struct StreamHosts {
    sg4::Host* memoryX = nullptr;
    sg4::Host* wafer = nullptr;
};

// MemoryX to the wafer through `levels` SwarmX levels (none for one system: MemoryX's own link).
StreamHosts buildStreamPlatform(double bandwidth_Bps, double hop_s, int levels) {
    sg4::NetZone* zone = sg4::create_full_zone("weight-streaming");
    StreamHosts hosts;
    hosts.memoryX = zone->create_host("memoryx", 1e9);
    hosts.memoryX->seal();
    hosts.wafer = zone->create_host("wafer", kWaferSpeed);
    hosts.wafer->seal();
    std::vector<sg4::LinkInRoute> route;
    for (int level = 0; level <= levels; ++level) {
        sg4::SplitDuplexLink* link =
            zone->create_split_duplex_link("swarmx-" + std::to_string(level), bandwidth_Bps);
        link->set_latency(level == 0 ? 0.0 : hop_s); // MemoryX's own link, then a hop a level
        link->seal();
        route.emplace_back(link, sg4::LinkInRoute::Direction::UP);
    }
    zone->add_route(hosts.memoryX->get_netpoint(), hosts.wafer->get_netpoint(), nullptr, nullptr, route,
                    true);
    zone->seal();
    return hosts;
}

// One system's step as a task graph: per micro-batch a forward over the layers and a backward back, each
// layer's weights streamed in first, its gradients streamed out after its backward.
struct StreamGraph {
    TaskGraph graph;
    std::vector<TaskGraph::Id> streams, computes; // in the order the wafer uses them
    std::vector<TaskGraph::Id> gradients;         // in the order they leave

    // A layer's pass; a backward (`producesGradients`) also waits for the gradients two layers back to
    // have left, whose buffer its own take.
    void layer(const StreamHosts& hosts, double weightBytes, double compute_s, bool producesGradients) {
        const TaskGraph::Id in = graph.transferHosts(hosts.memoryX, hosts.wafer, weightBytes);
        if (!streams.empty())
            graph.depend(streams.back(), in); // MemoryX streams one layer after another
        if (computes.size() >= 2)
            graph.depend(computes[computes.size() - 2], in); // the buffer it lands in is free
        const TaskGraph::Id run = graph.computeOn(hosts.wafer, compute_s);
        graph.depend(in, run);
        if (!computes.empty())
            graph.depend(computes.back(), run);
        if (producesGradients && gradients.size() >= 2)
            graph.depend(gradients[gradients.size() - 2], run);
        streams.push_back(in);
        computes.push_back(run);
    }

    void sendGradients(const StreamHosts& hosts, double bytes) {
        const TaskGraph::Id out = graph.transferHosts(hosts.wafer, hosts.memoryX, bytes);
        graph.depend(computes.back(), out);
        if (!gradients.empty())
            graph.depend(gradients.back(), out);
        gradients.push_back(out);
    }
};

} // namespace

models::StepMeasurement simulateWeightStreamingStep(const models::ResolvedScenario& rs) {
    const models::WeightStreamingStep closed = models::weightStreamingStep(rs);
    const models::Workload& w = rs.workload();
    const models::WeightStreaming& streaming = *rs.device().weight_streaming;
    const double bandwidth = streaming.bandwidth_GBps.value * 1e9 * rs.device().efficiency.nicFraction();
    const int levels = static_cast<int>(models::swarmXLevels(w.parallel.dp));

    auto engine = makeEngine();
    // No TCP window: SimGrid's default (4 MiB) would cap a transfer at window / (2 x latency), below the
    // streaming rate past 16 systems (5 us a level); SwarmX streams at line rate.
    sg4::Engine::set_config("network/TCP-gamma:0");
    const StreamHosts hosts = buildStreamPlatform(bandwidth, streaming.hop_latency_us.value * 1e-6, levels);
    // The closed form's passes, a layer's share each: its weights and gradients over the same links.
    const auto layers = w.model.layers;
    const double perLayer = 1.0 / static_cast<double>(layers);
    const double weightBytes = closed.stream_s * bandwidth * perLayer;
    const double gradientBytes = closed.gradient_stream_s * bandwidth * perLayer;
    // Every micro-batch repeats the one before once the first has filled the buffers: the first
    // kSimulatedMicroBatches are simulated, and each later one takes as long as the last of them.
    const auto microBatches = static_cast<std::int64_t>(closed.micro_batches);
    const std::int64_t simulated = std::min(microBatches, kSimulatedMicroBatches);
    StreamGraph step;
    std::vector<TaskGraph::Id> lastGradient; // of each simulated micro-batch
    for (std::int64_t m = 0; m < simulated; ++m) {
        for (std::int64_t l = 0; l < layers; ++l)
            step.layer(hosts, weightBytes, closed.forward_compute_s * perLayer, false);
        for (std::int64_t l = 0; l < layers; ++l) {
            step.layer(hosts, weightBytes, closed.backward_compute_s * perLayer, true);
            step.sendGradients(hosts, gradientBytes);
        }
        lastGradient.push_back(step.gradients.back());
    }
    const double start = sg4::Engine::get_clock();
    step.graph.run(*engine);
    auto endOf = [&](std::int64_t m) {
        return step.graph.task(lastGradient[static_cast<std::size_t>(m)]).end_s - start;
    };
    const double repeat = simulated > 1 ? endOf(simulated - 1) - endOf(simulated - 2) : 0.0;
    const double step_s = endOf(simulated - 1) + static_cast<double>(microBatches - simulated) * repeat;

    models::StepMeasurement m = models::weightStreamingMeasurement(rs); // the split and the power figures
    const double systems = static_cast<double>(w.parallel.dp);
    const models::Device& device = rs.device();
    m.step_time_s = step_s;
    m.breakdown.exposed_communication_s = std::max(0.0, step_s - closed.compute_s);
    m.it_energy_per_step_J = systems * (closed.compute_s * device.tdp_W.value +
                                        std::max(0.0, step_s - closed.compute_s) * device.idle_W.value);
    m.fidelity = "flow";
    m.calibration = kSpecSheetCalibration;
    m.simulated_activities = step.graph.activities();
    return m;
}

} // namespace choreo::sim
