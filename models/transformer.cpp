#include "models/transformer.h"

#include <algorithm>

namespace choreo::models {

std::array<double, 4> deepSpeedModuleParameters(const Workload& w) {
    const auto& m = w.model;
    const auto counts = countParameters(m);
    const double t = static_cast<double>(w.parallel.tp);
    // QKV and the output projection split the attention's parameters as their widths, the FFN's up (and
    // gate) and down projections as gate : 1.
    const double q = m.queryWidth(), kv = m.kvWidth();
    const double qkvShare = (q + 2.0 * kv) / (2.0 * q + 2.0 * kv);
    const double gate = m.ffn_gated ? 2.0 : 1.0;
    return {counts.attention_per_layer * qkvShare / t, counts.attention_per_layer * (1.0 - qkvShare) / t,
            counts.ffn_per_layer * gate / (gate + 1.0) / t, counts.ffn_per_layer / (gate + 1.0) / t};
}

ParameterCount countParameters(const ModelShape& m) {
    const double h = static_cast<double>(m.hidden);
    const double q = m.queryWidth();
    ParameterCount p;
    // Q, K and V from the hidden state, and the output projection back to it.
    p.attention_per_layer = h * (q + 2.0 * m.kvWidth()) + q * h;
    p.ffn_per_layer = (m.ffn_gated ? 3.0 : 2.0) * h * static_cast<double>(m.ffn_hidden);
    p.norms_per_layer = 2.0 * h;
    p.embedding = static_cast<double>(m.vocab) * h;
    p.output_embedding = m.tied_embeddings ? 0.0 : p.embedding;
    p.final_norm = h;
    p.layers = m.layers;
    if (m.moe) {
        const double expert = (m.ffn_gated ? 3.0 : 2.0) * h * static_cast<double>(m.moe->expert_ffn_hidden);
        p.experts_per_layer = static_cast<double>(m.moe->experts) * expert;
        p.active_experts_per_layer = static_cast<double>(m.moe->top_k) * expert;
        p.shared_per_layer = static_cast<double>(m.moe->shared_experts) * expert;
        p.router_per_layer = h * static_cast<double>(m.moe->experts);
        p.moe_layers = m.moeLayers();
    }
    return p;
}

std::int64_t firstLayerOfChunk(const Workload& w, std::int64_t chunk) {
    std::int64_t first = 0;
    for (std::int64_t c = 0; c < chunk; ++c)
        first += layersInChunk(w, c);
    return first;
}

std::int64_t moeLayersInChunk(const Workload& w, std::int64_t chunk) {
    if (!w.model.moe)
        return 0;
    const std::int64_t first = firstLayerOfChunk(w, chunk);
    const std::int64_t end = first + layersInChunk(w, chunk);
    return std::max<std::int64_t>(0, end - std::max(first, w.model.moe->dense_layers));
}

std::int64_t layersInChunk(const Workload& w, std::int64_t chunk) {
    const std::int64_t chunks = w.parallel.pp * w.parallel.vp;
    const std::int64_t most = (w.model.layers + chunks - 1) / chunks;
    const std::int64_t deficit = most * chunks - w.model.layers;
    // Chunks short of a layer, in order: 0, last, 1, last-1, ...
    const std::int64_t rank = chunk <= chunks - 1 - chunk ? 2 * chunk : 2 * (chunks - 1 - chunk) + 1;
    return most - (rank < deficit ? 1 : 0);
}

double expertParametersPerChunk(const Workload& w, std::int64_t chunk) {
    if (!w.model.moe || w.offloaded(OffloadTarget::Experts))
        return 0.0;
    const auto p = countParameters(w.model);
    const auto moe = static_cast<double>(moeLayersInChunk(w, chunk));
    const auto split = static_cast<double>(w.parallel.ep * w.parallel.expertTp());
    return moe * p.experts_per_layer / split;
}

double shardedParameters(const Workload& w, double params, double expertParams) {
    return (params - expertParams) / static_cast<double>(w.parallel.dataParallelGroup()) +
           expertParams / static_cast<double>(w.parallel.expertDataParallelGroup());
}

double expertParametersPerDevice(const Workload& w, std::int64_t stage) {
    double params = 0.0;
    for (std::int64_t c = 0; c < w.parallel.vp; ++c)
        params += expertParametersPerChunk(w, stage + c * w.parallel.pp);
    return params;
}

double parametersPerChunk(const Workload& w, std::int64_t chunk) {
    const auto p = countParameters(w.model);
    const std::int64_t chunks = w.parallel.pp * w.parallel.vp;
    const auto layers = static_cast<double>(layersInChunk(w, chunk));
    const double tp = static_cast<double>(w.parallel.tp);
    const auto moe = static_cast<double>(moeLayersInChunk(w, chunk));
    // Norm weights and the router are replicated across tensor-parallel ranks; matrices are split, and
    // routed experts over the expert-parallel ranks and their own tensor split (expertParametersPerChunk).
    double params = layers * (p.attention_per_layer / tp + p.norms_per_layer) +
                    (layers - moe) * p.ffn_per_layer / tp +
                    moe * (p.shared_per_layer / tp + p.router_per_layer) + expertParametersPerChunk(w, chunk);
    if (chunk == 0 && !w.offloaded(OffloadTarget::Embeddings)) // else a CPU pool holds the table
        params += p.embedding / tp;
    if (chunk == chunks - 1)
        params += p.output_embedding / tp + p.final_norm;
    return params;
}

double parametersPerDevice(const Workload& w, std::int64_t stage) {
    double params = 0.0;
    for (std::int64_t c = 0; c < w.parallel.vp; ++c)
        params += parametersPerChunk(w, stage + c * w.parallel.pp);
    return params;
}

LayerFlops layerForwardFlops(const ModelShape& m, double tokens) {
    const auto p = countParameters(m);
    LayerFlops f;
    // Every weight is used in one multiply-add per token.
    f.gemm = 2.0 * tokens * (p.attention_per_layer + p.ffn_per_layer);
    // QK^T and AV: 2 * 2 * tokens * seq * heads * head width (the hidden size unless head_dim is set).
    f.attention = 4.0 * tokens * static_cast<double>(m.seq_len) * m.queryWidth();
    return f;
}

double selectiveOpsRecomputeFlops(const ModelShape& m, double tokens, bool moeLayer) {
    // The layer's matmuls in order: Q, K, V, output projection, then gate, up, down (gated) or up, down:
    // the second, fourth and sixth are K, the output projection and up (gated) or down. A layer with routed
    // experts recomputes its whole expert FFN and router instead (grouped GEMMs are not in the saved ops).
    const auto p = countParameters(m);
    const double h = static_cast<double>(m.hidden);
    const double ffn = moeLayer ? p.active_experts_per_layer + p.shared_per_layer + p.router_per_layer
                                : h * static_cast<double>(m.ffn_hidden);
    return 2.0 * tokens * (h * m.kvWidth() + m.queryWidth() * h + ffn);
}

LayerFlops moeLayerForwardFlops(const ModelShape& m, double tokens) {
    const auto p = countParameters(m);
    LayerFlops f = layerForwardFlops(m, tokens);
    f.gemm = 2.0 * tokens *
             (p.attention_per_layer + p.active_experts_per_layer + p.shared_per_layer + p.router_per_layer);
    return f;
}

double logitsForwardFlops(const ModelShape& m, double tokens) {
    return 2.0 * tokens * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
}

namespace {

// The FLOPs selective recomputation runs again in a step (Workload::RecomputeModules): the attention core
// of every layer, the dense MLP of the dense layers, the router and experts of the MoE layers or only their
// shared experts; the norms and the experts' activation function are memory-bound.
double selectiveRecomputeFlops(const Workload& w, double tokens) {
    const RecomputeModules& modules = w.recompute_modules;
    const auto p = countParameters(w.model);
    const auto moeLayers = static_cast<double>(w.model.moeLayers());
    const double denseLayers = static_cast<double>(w.model.layers) - moeLayers;
    double flops = 0.0;
    if (modules.core_attn)
        flops += static_cast<double>(w.model.layers) * layerForwardFlops(w.model, tokens).attention;
    if (modules.mlp)
        flops += denseLayers * 2.0 * tokens * p.ffn_per_layer;
    if (modules.moe)
        flops +=
            moeLayers * 2.0 * tokens * (p.active_experts_per_layer + p.shared_per_layer + p.router_per_layer);
    else if (modules.shared_experts)
        flops += moeLayers * 2.0 * tokens * p.shared_per_layer;
    return flops;
}

} // namespace

StepFlops stepFlops(const Workload& w) {
    const double tokens = static_cast<double>(w.global_batch) * static_cast<double>(w.model.seq_len);
    const auto dense = layerForwardFlops(w.model, tokens);
    const auto moe = moeLayerForwardFlops(w.model, tokens);
    const auto moeLayers = static_cast<double>(w.model.moeLayers());
    const double denseLayers = static_cast<double>(w.model.layers) - moeLayers;
    const double layersTotal = denseLayers * dense.total() + moeLayers * moe.total();
    StepFlops f;
    f.forward = layersTotal + logitsForwardFlops(w.model, tokens);
    f.backward = 2.0 * f.forward;
    switch (w.recompute) {
    case Recompute::Full:
        f.recompute = layersTotal;
        break;
    case Recompute::Selective:
        f.recompute = selectiveRecomputeFlops(w, tokens);
        break;
    case Recompute::SelectiveOps:
        f.recompute = denseLayers * selectiveOpsRecomputeFlops(w.model, tokens, false) +
                      moeLayers * selectiveOpsRecomputeFlops(w.model, tokens, true);
        break;
    case Recompute::None:
        break;
    }
    return f;
}

} // namespace choreo::models
