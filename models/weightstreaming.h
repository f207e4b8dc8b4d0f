#pragma once

#include "models/diagnostic.h"
#include "models/memory.h"
#include "models/resolved.h"
#include "models/result.h"

namespace choreo::models {

// Training by weight streaming (Cerebras CS-2/CS-3; Device::weight_streaming): the wafer keeps no model
// state. For each micro-batch, every layer's weights stream in from MemoryX before its forward pass and
// again before its backward pass, and its gradients stream back out (the other direction of the same
// links, at the workload's gradient precision, fp32 unless set); MemoryX sums them and runs the optimizer.
// The stream of the next layer runs while the wafer computes this one, so a pass over the model takes
//     max(C, S) + min(C, S) / L
// for its compute C, the model's weights over the streaming bandwidth S, and L layers (the first layer's
// weights arrive before anything computes, the last layer's compute runs after the stream ends). Data
// parallelism goes through SwarmX, a tree that broadcasts the weights to every system and sums their
// gradients: each system streams at its own bandwidth, and every pass adds the tree's depth in hops once.
// There is no tensor, pipeline, context or expert parallelism on such a device.

// SwarmX's depth for `systems` systems: a binary tree's levels, none for one system.
double swarmXLevels(std::int64_t systems);

// The layouts and stages weight streaming cannot run, each an error naming its field and why.
// `countPath` names the pool's count ("cluster.pools[0].count"), where too many systems are refused.
void checkWeightStreamingLayout(const Workload& workload, const Device& device, std::int64_t systems,
                                const std::string& countPath, Diagnostics& errors);

// What one system holds on its wafer: the activations of a micro-batch as the GPU memory model counts
// them for one pipeline stage (every layer by the recomputation policy, the layer being recomputed, the
// logits), and the weights of the two largest streamed matrices at a time (the one computing and the next
// arriving; the output layer where it is the largest). No runtime buffers: no CUDA context or collective
// buffers. Gradients and optimizer states live in MemoryX.
MemoryBreakdown weightStreamingMemory(const Workload& workload);

// The memory one device of `device` needs for `workload`: weightStreamingMemory on a weight-streaming
// device, bulkSynchronousMemory's SRAM on an IPU (models/bsp.h), else the GPU model's worst pipeline stage
// (peakMemory). One choice for the resolver and the desktop's memory bar.
MemoryBreakdown trainingMemory(const Workload& workload, const Device* device);
// One pipeline stage's: bulkSynchronousStageMemory on an IPU, else memoryForStage (a weight-streaming device
// has one stage, weightStreamingMemory).
MemoryBreakdown trainingStageMemory(const Workload& workload, const Device* device, std::int64_t stage);

// The parts of a weight-streaming step, for tests and the result.
struct WeightStreamingStep {
    double micro_batches = 0;      // per system and step
    double forward_compute_s = 0;  // one micro-batch's forward on the wafer
    double backward_compute_s = 0; // its backward, recomputation included
    double stream_s = 0;           // the model's weights over the streaming bandwidth, one pass
    double gradient_stream_s = 0;  // its gradients out, at the workload's gradient precision
    double tree_latency_s = 0;     // SwarmX's depth, crossed once by every pass
    double step_s = 0;
    double compute_s = 0;        // the wafer computing, per step
    double exposed_stream_s = 0; // waiting for weights that did not arrive behind the compute
};

WeightStreamingStep weightStreamingStep(const ResolvedScenario& scenario);

// The step as a measurement for finishResult at analytical fidelity (sim/weightstreamflow.h simulates it at
// flow fidelity), the streaming wait counted as exposed communication.
StepMeasurement weightStreamingMeasurement(const ResolvedScenario& scenario);

} // namespace choreo::models
