#pragma once

#include "models/scenario.h"

namespace choreo::models {

// Parameter counts of a decoder-only transformer (untied input and output embeddings).
struct ParameterCount {
    double attention_per_layer = 0; // Q, K, V (grouped-query aware) and output projection
    double ffn_per_layer = 0;       // 2 or 3 matrices (gated)
    double norms_per_layer = 0;
    double embedding = 0; // input embedding; the output layer has as many
    double final_norm = 0;

    [[nodiscard]] double perLayer() const { return attention_per_layer + ffn_per_layer + norms_per_layer; }
    [[nodiscard]] double total(std::int64_t layers) const {
        return perLayer() * static_cast<double>(layers) + 2.0 * embedding + final_norm;
    }
};
ParameterCount countParameters(const ModelShape& model);

// Transformer layers in model chunk `chunk` (0 .. pp*vp-1). When pp*vp does not divide the layers, the
// chunks get ceil(layers / chunks) or one less; the first and last chunks, which also hold the embedding
// and the logits layer, give up a layer first (as Llama 3 405B's 126 layers over 16 stages: 7, 8 ... 8, 7).
std::int64_t layersInChunk(const Workload& workload, std::int64_t chunk);
// Parameters of virtual pipeline stage `chunk` (0 .. pp*vp-1) held by one tensor rank.
double parametersPerChunk(const Workload& workload, std::int64_t chunk);
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
