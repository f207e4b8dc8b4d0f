#pragma once

#include "models/scenario.h"

#include <array>

namespace choreo::models {

// Parameter counts of a decoder-only transformer.
struct ParameterCount {
    double attention_per_layer = 0; // Q, K, V (grouped-query aware) and output projection
    double ffn_per_layer = 0;       // 2 or 3 matrices (gated), of a dense layer
    double norms_per_layer = 0;
    double embedding = 0;        // input embedding
    double output_embedding = 0; // the output layer's matrix: as many, or none when tied to the embedding
    double final_norm = 0;
    // Mixture-of-Experts layers have these instead of ffn_per_layer.
    double experts_per_layer = 0;        // every routed expert
    double active_experts_per_layer = 0; // the top_k routed experts one token goes through
    double shared_per_layer = 0;         // shared experts
    double router_per_layer = 0;         // hidden x experts
    std::int64_t layers = 0;
    std::int64_t moe_layers = 0;

    // A dense layer.
    [[nodiscard]] double perLayer() const { return attention_per_layer + ffn_per_layer + norms_per_layer; }
    // A layer with routed experts: all of them, or those one token uses.
    [[nodiscard]] double perMoeLayer() const {
        return attention_per_layer + experts_per_layer + shared_per_layer + router_per_layer +
               norms_per_layer;
    }
    [[nodiscard]] double perMoeLayerActive() const {
        return attention_per_layer + active_experts_per_layer + shared_per_layer + router_per_layer +
               norms_per_layer;
    }
    [[nodiscard]] double total() const {
        return perLayer() * static_cast<double>(layers - moe_layers) +
               perMoeLayer() * static_cast<double>(moe_layers) + embedding + output_embedding + final_norm;
    }
    // Parameters one token goes through (what FLOPs count): a tied output layer still runs its GEMM, so the
    // embedding counts twice; equals total() for a dense model with untied embeddings.
    [[nodiscard]] double active() const {
        return perLayer() * static_cast<double>(layers - moe_layers) +
               perMoeLayerActive() * static_cast<double>(moe_layers) + 2.0 * embedding + final_norm;
    }
};
ParameterCount countParameters(const ModelShape& model);

// A dense layer's parameters on one tensor rank as DeepSpeed's ZeRO-3 hooks see its modules, in the order it
// runs them: QKV, the output projection, the FFN's up (and gate) and down projections (Zero3Engine).
std::array<double, 4> deepSpeedModuleParameters(const Workload& workload);

// Transformer layers in model chunk `chunk` (0 .. pp*vp-1). When pp*vp does not divide the layers, the
// chunks get ceil(layers / chunks) or one less; the first and last chunks, which also hold the embedding
// and the logits layer, give up a layer first (as Llama 3 405B's 126 layers over 16 stages: 7, 8 ... 8, 7).
std::int64_t layersInChunk(const Workload& workload, std::int64_t chunk);
// Index of the first transformer layer of chunk `chunk`.
std::int64_t firstLayerOfChunk(const Workload& workload, std::int64_t chunk);
// Layers of chunk `chunk` with routed experts (the model's first dense_layers have none).
std::int64_t moeLayersInChunk(const Workload& workload, std::int64_t chunk);
// Parameters of virtual pipeline stage `chunk` (0 .. pp*vp-1) held by one tensor rank (of an MoE layer's
// routed experts, its expert-parallel share: experts / ep, split over etp).
double parametersPerChunk(const Workload& workload, std::int64_t chunk);
// The routed experts' part of parametersPerChunk: experts / (ep * etp) of each MoE layer's, none when an
// offload stage places them on another pool (which then holds them). Their
// gradients and sharded optimizer states belong to the expert data-parallel group
// (ParallelLayout::expertDataParallelGroup), not the data-parallel group.
double expertParametersPerChunk(const Workload& workload, std::int64_t chunk);
// Of `params` parameters, `expertParams` of them routed experts, those one device keeps when they are
// sharded (ZeRO): the rest over the data-parallel group, the experts over the expert data-parallel group.
double shardedParameters(const Workload& workload, double params, double expertParams);
double expertParametersPerDevice(const Workload& workload, std::int64_t stage);
// Parameters held by one device of pipeline stage `stage` (its vp chunks; tensor-parallel shard), before
// any ZeRO sharding.
double parametersPerDevice(const Workload& workload, std::int64_t stage);

// Forward FLOPs of one layer for `tokens` tokens of sequence length `seq`; attention counted in full
// (non-causal) as the usual model-FLOPs convention does.
struct LayerFlops {
    double gemm = 0;      // QKV, output projection, feed-forward
    double attention = 0; // QK^T and attention x V
    [[nodiscard]] double total() const { return gemm + attention; }
};
LayerFlops layerForwardFlops(const ModelShape& model, double tokens);
// The same for a layer with routed experts: the top_k experts, the shared ones and the router per token.
LayerFlops moeLayerForwardFlops(const ModelShape& model, double tokens);
// Forward FLOPs of the matmuls that torchtitan's op-level selective recomputation (Recompute::SelectiveOps)
// recomputes in a layer: every second one in the layer's order (K, the output projection, and the FFN's
// up (gated) or down projection); in a layer with routed experts, K, the projection and the whole expert
// FFN with its router.
double selectiveOpsRecomputeFlops(const ModelShape& model, double tokens, bool moeLayer);
// Forward FLOPs of the logits layer for `tokens` tokens.
double logitsForwardFlops(const ModelShape& model, double tokens);

// FLOPs of one optimizer step over the whole cluster.
struct StepFlops {
    double forward = 0;
    double backward = 0;  // 2x forward
    double recompute = 0; // extra forward work from activation recomputation
    // Model FLOPs (forward + backward, no recompute): the numerator of MFU.
    [[nodiscard]] double model() const { return forward + backward; }
    // What the hardware executes.
    [[nodiscard]] double hardware() const { return forward + backward + recompute; }
};
StepFlops stepFlops(const Workload& workload);

} // namespace choreo::models
