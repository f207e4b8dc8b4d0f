#pragma once
// Serving a model (workload.stages, kind "serve"): the replicas, their KV cache from memory arithmetic, and
// the time of one engine iteration from the per-operation roofline. The simulator (sim/serving.h) runs the
// requests and the batching scheduler event by event on these figures; nothing here is a latency formula.

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/requeststream.h"
#include "models/scenario.h"
#include "models/transformer.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// Board power while serving, as a fraction of the way from idle to the power limit, by what bounds the
// work. Compute-bound operations (prefill GEMMs): CHOREO-CAL-H200 (shared/reference/hardware.md §12, one
// H200 SXM at 700 W: idle 77 W, sustained bf16 GEMM 509 W). Memory-bound ones (decode's weight and KV
// reads): SplitwiseSim's H100 token-phase power, 380 W of 700 W over a 75 W idle (Patel et al., ISCA 2024,
// configs/power_model/constant.yaml @8f99e7dc); an H200 decode measurement (arXiv 2605.11999) gives
// 137-300 W, lower still. Waits on collectives and the host: CHOREO-CAL-H200's 122 W between kernels.
inline constexpr double kComputeBoundPowerFraction = (509.0 - 77.0) / (700.0 - 77.0);
inline constexpr double kMemoryBoundPowerFraction = (380.0 - 75.0) / (700.0 - 75.0);
inline constexpr double kWaitingPowerFraction = (122.0 - 77.0) / (700.0 - 77.0);

// One kind of replica of a serving stage: the pool it runs on, its layout, and its memory.
struct ServeReplicas {
    std::size_t pool = 0;
    const Device* device = nullptr;
    ServeParallel parallel;
    std::int64_t replicas = 0;
    double weights_GB_per_device = 0;
    double activations_GB_per_device = 0; // the largest iteration's activations and logits
    double reserved_GB_per_device = 0;    // the engine's own (CUDA context, graphs, workspaces)
    double kv_GB_per_device = 0;          // what the cache gets
    std::int64_t kv_blocks = 0;           // per replica
    double link_Bps = 0;                  // the replica's NICs together (KV transfers between replicas)
    double scale_up_Bps = 0;              // per device, one direction (tensor-parallel collectives)
    double scale_up_latency_s = 0;
    [[nodiscard]] std::int64_t devices() const { return replicas * parallel.devices(); }
};

// A serve stage checked against the catalog, with the engine's defaults filled in.
struct ResolvedServing {
    ServeStage stage;
    const ServingEngine* engine = nullptr;
    ModelShape model;
    ParameterCount params;
    Precision weights = Precision::Bf16;
    Precision kv_cache = Precision::Bf16;
    Precision compute = Precision::Bf16; // what the GEMMs run at: fp8, int8 and fp4 weights quantise them
    std::int64_t max_batch = 0;
    std::int64_t max_tokens_per_iteration = 0;
    bool chunked_prefill = true;
    bool reserve_full_output = false; // admit only with blocks for the whole output (no preemption)
    bool mixed_batches = true;        // decodes and prefills share an iteration
    std::int64_t decode_steps = 1;    // decode iterations between two runs of the scheduler
    std::int64_t kv_block_tokens = 0;
    double memory_fraction = 0;
    ServeReplicas serve;                  // the replicas that decode (and prefill, unless disaggregated)
    std::optional<ServeReplicas> prefill; // disaggregated prefill
    double kv_bytes_per_token = 0;        // the whole model's K and V of one token
    std::string path;                     // "workload.stages[0]", for messages
    std::vector<TraceRow> trace;          // a trace stream's rows (applyServingTrace)
    [[nodiscard]] bool disaggregated() const { return prefill.has_value(); }
};

// What one engine iteration of one replica processes: sequences decoding one token each (with the tokens
// of context they attend to), and prefill chunks of prompts (with the tokens before each chunk).
struct BatchShape {
    std::int64_t decode_sequences = 0;
    double decode_context_tokens = 0; // summed over the decoding sequences
    std::int64_t prefill_tokens = 0;
    double prefill_attention_pairs = 0; // sum over chunks of n * (before + n / 2): causal query-key pairs
    std::int64_t logits = 0;            // sequences that emit a token this iteration
    [[nodiscard]] std::int64_t tokens() const { return decode_sequences + prefill_tokens; }
};

// The time of one iteration on one replica, and where it goes; busy power from what bounds each part.
struct IterationCost {
    double total_s = 0;
    double compute_bound_s = 0; // operations limited by the matrix engines
    double memory_bound_s = 0;  // limited by memory bandwidth (weights, KV cache, element-wise)
    double communication_s = 0; // tensor-, expert- and pipeline-parallel transfers
    double overhead_s = 0;      // the engine's per-iteration and per-layer host costs
    // Average board power over the iteration as a fraction of the way from idle to the limit.
    [[nodiscard]] double powerFraction() const;
};

// The iteration's time on one replica of `replicas` under `serving`'s precisions and engine.
IterationCost iterationCost(const ResolvedServing& serving, const ServeReplicas& replicas,
                            const BatchShape& batch);

// The routed experts' grouped GEMM runs at this share of a dense GEMM's rate on the same device: vLLM's
// fused MoE kernel for Mixtral-8x7B at TP 2 on an H100 in bf16 reached 433 and 482 TFLOP/s at 1,024 and
// 1,536 tokens (vLLM PR #24700, 2025-09-11), where dense bf16 GEMMs reached 620-648 at those rows (vLLM
// PR #23280, 2025-09-10): 0.70-0.74 (docs/model.md, "Routed experts").
inline constexpr double kGroupedGemmShareOfDense = 0.70;

// One MoE layer's routed experts on one device of a replica, for `tokens` tokens each routed to top_k
// experts: their grouped GEMM at kGroupedGemmShareOfDense of the dense rate, with reading the touched
// experts' weights overlapping the arithmetic only in part (the Euclidean sum of the two times).
IterationCost routedExpertsCost(const Device& device, Precision compute, const ModelShape& model,
                                double tokens, const ServeParallel& parallel, Precision weights);

// Bytes of K and V one token keeps per device of a replica (kv heads split over tp, at least one each).
double kvBytesPerTokenPerDevice(const ResolvedServing& serving, const ServeParallel& parallel);
// Tokens the replica's KV cache holds.
std::int64_t kvTokenCapacity(const ResolvedServing& serving, const ServeReplicas& replicas);

// Reads a trace stream's file (relative to `scenarioDirectory`) into `serving.trace`; false with errors
// naming the field and the file's rows. Streams of other kinds need nothing.
bool applyServingTrace(ResolvedServing& serving, const std::filesystem::path& scenarioDirectory,
                       Diagnostics& errors);

// The JSON path of the serve stage ("workload.stages[0]").
std::string serveStagePath(const ServeStage& stage);

// Checks the serve stage against the pools and the catalog: its pools and devices, the engine, the layout
// against the model and the pool, the precisions the devices run, and that the weights and at least one
// request's KV cache fit; nullopt with errors naming the field. `pools` are the scenario's pools with their
// devices; `defaultPool` the pool a serving workload runs on when the stage names none (nullopt: required).
struct ResolvedPool;
std::optional<ResolvedServing> resolveServing(const Scenario& scenario,
                                              const std::vector<ResolvedPool>& pools,
                                              std::optional<std::size_t> defaultPool, const Catalog& catalog,
                                              Diagnostics& errors);

} // namespace choreo::models
