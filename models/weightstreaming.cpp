#include "models/weightstreaming.h"

#include "models/bsp.h"
#include "models/jsonreader.h"
#include "models/stepcost.h"
#include "models/transformer.h"

#include <algorithm>
#include <cmath>

namespace choreo::models {

namespace {

// "cs-3 trains by weight streaming: ..." — why a layout field must be 1.
std::string notOnWeightStreaming(const Device& device, const char* what) {
    return device.id +
           " trains by weight streaming, where each layer's weights stream to the whole wafer in "
           "turn, so there is no " +
           std::string(what) + "; use data parallelism (dp) across systems, which SwarmX joins";
}

// One pass over `layers` layers computing `compute` seconds while `stream` seconds of weights arrive: the
// stream runs a layer ahead of the compute.
double passSeconds(double compute, double stream, double layers) {
    return std::max(compute, stream) + std::min(compute, stream) / std::max(1.0, layers);
}

} // namespace

double swarmXLevels(std::int64_t systems) {
    return systems > 1 ? std::ceil(std::log2(static_cast<double>(systems))) : 0.0;
}

void checkWeightStreamingLayout(const Workload& w, const Device& device, std::int64_t systems,
                                const std::string& countPath, Diagnostics& errors) {
    const auto& p = w.parallel;
    struct Split {
        std::int64_t size;
        const char* field;
        const char* why;
    };
    for (const Split& split :
         {Split{p.tp, "workload.parallel.tp", "tensor parallelism: a layer is never split over systems"},
          Split{p.pp, "workload.parallel.pp", "pipeline parallelism: every layer runs on the same wafer"},
          Split{p.vp, "workload.parallel.vp", "interleaved pipeline: every layer runs on the same wafer"},
          Split{p.cp, "workload.parallel.cp", "context parallelism: a sequence stays on one wafer"},
          Split{p.ep, "workload.parallel.ep",
                "expert parallelism: a layer's experts stream to one wafer with the layer"}})
        if (split.size != 1)
            errors.push_back({split.field, "must be 1, got " + std::to_string(split.size) + ": " +
                                               notOnWeightStreaming(device, split.why)});
    if (p.zero != 0)
        errors.push_back({"workload.parallel.zero",
                          "must be 0, got " + std::to_string(p.zero) + ": " + device.id +
                              " keeps no weights, gradients or optimizer states to shard; MemoryX holds them "
                              "and runs the optimizer"});
    if (w.activation_offload_layers != 0)
        errors.push_back({"workload.activation_offload_layers",
                          "must be 0 on " + device.id + ": its activations stay on the wafer"});
    if (!w.offload.empty())
        errors.push_back({"workload.stages", device.id + " trains by weight streaming: its layers cannot be "
                                                         "offloaded to another pool"});
    const double most = device.weight_streaming->max_systems.value;
    if (static_cast<double>(systems) > most)
        errors.push_back({countPath, std::to_string(systems) + " " + device.id +
                                         " systems, but SwarmX joins at most " + formatNumber(most) +
                                         " in one cluster"});
}

MemoryBreakdown weightStreamingMemory(const Workload& w) {
    const ParameterCount params = countParameters(w.model);
    const double largest =
        std::max({params.perLayer(), params.perMoeLayer(), params.output_embedding, params.embedding});
    const MemoryBreakdown gpu = memoryForStage(w, 0); // pp = 1: one stage, one micro-batch in flight
    MemoryBreakdown m;
    m.weights_GB = 2.0 * largest * trainingStateBytes(w).weights / 1e9;
    m.activations_GB = gpu.activations_GB;
    return m;
}

MemoryBreakdown trainingMemory(const Workload& workload, const Device* device) {
    if (device && device->weight_streaming)
        return weightStreamingMemory(workload);
    if (device && device->bulk_synchronous)
        return bulkSynchronousMemory(workload, *device);
    return peakMemory(workload);
}

MemoryBreakdown trainingStageMemory(const Workload& workload, const Device* device, std::int64_t stage) {
    if (device && device->weight_streaming)
        return weightStreamingMemory(workload);
    if (device && device->bulk_synchronous)
        return bulkSynchronousStageMemory(workload, *device, stage);
    return memoryForStage(workload, stage);
}

namespace {

// The step from the wafer's costs of one micro-batch (stageCost of the single chunk).
WeightStreamingStep stepOf(const ResolvedScenario& rs, const StageCost& cost) {
    const Workload& w = rs.workload();
    const Device& device = rs.device();
    const WeightStreaming& streaming = *device.weight_streaming;
    WeightStreamingStep s;
    s.micro_batches = static_cast<double>(w.microBatchesPerStep());
    s.forward_compute_s = cost.forward_s;
    s.backward_compute_s = cost.backward_s;
    // Weights in, gradients out: the two directions of the system's links, each at the streaming rate.
    const double bandwidth = streaming.bandwidth_GBps.value * 1e9 * device.efficiency.nicFraction();
    // One copy of the model: its 16-bit working weights in, its gradients (at their precision) out.
    const double params = countParameters(w.model).total();
    const TrainingStateBytes bytes = trainingStateBytes(w);
    s.stream_s = params * bytes.weights / bandwidth;
    s.gradient_stream_s = params * bytes.gradients / bandwidth;
    s.tree_latency_s = swarmXLevels(w.parallel.dp) * streaming.hop_latency_us.value * 1e-6;
    const auto layers = static_cast<double>(w.model.layers);
    // A backward pass streams the weights in again while the gradients leave the other way: the slower of
    // the two bounds it (fp32 gradients take twice the 16-bit weights' time).
    const double backwardStream = std::max(s.stream_s, s.gradient_stream_s);
    const double perMicroBatch = passSeconds(s.forward_compute_s, s.stream_s, layers) +
                                 passSeconds(s.backward_compute_s, backwardStream, layers) +
                                 2.0 * s.tree_latency_s;
    // The last layer's gradients leave, and are summed up the tree, after the wafer is done.
    const double drain = s.gradient_stream_s / std::max(1.0, layers) + s.tree_latency_s;
    s.step_s = s.micro_batches * perMicroBatch + drain;
    s.compute_s = s.micro_batches * (s.forward_compute_s + s.backward_compute_s);
    s.exposed_stream_s = s.step_s - s.compute_s;
    return s;
}

} // namespace

WeightStreamingStep weightStreamingStep(const ResolvedScenario& rs) {
    return stepOf(rs, stageCost(rs, 0));
}

StepMeasurement weightStreamingMeasurement(const ResolvedScenario& rs) {
    StageCost cost = stageCost(rs, 0);
    const WeightStreamingStep s = stepOf(rs, cost);
    const Device& device = rs.device();
    StepMeasurement m;
    m.step_time_s = s.step_s;
    m.breakdown.compute_s = s.compute_s;
    m.breakdown.exposed_communication_s = s.exposed_stream_s;
    cost.optimizer_s = 0.0; // MemoryX runs the optimizer, beside the stream
    m.compute_split = computeSplit(rs.workload(), {cost});
    const double systems = static_cast<double>(rs.workload().parallel.dp);
    m.it_energy_per_step_J =
        systems * (s.compute_s * device.tdp_W.value + (s.step_s - s.compute_s) * device.idle_W.value);
    m.fidelity = "analytical";
    return m;
}

} // namespace choreo::models
