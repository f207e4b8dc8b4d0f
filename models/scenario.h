#pragma once

#include "models/precision.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

inline constexpr const char* kScenarioFormat = "choreo-scenario/1";

// A group of identical devices: `count` of catalog device `device`, `devices_per_node` per server.
// Prices, when set, are this pool's own; unset, the catalog's (the training pool also takes the costs
// section's scenario-wide figures).
struct Pool {
    std::string name;
    std::string device;
    std::int64_t count = 0;
    std::int64_t devices_per_node = 0;
    std::optional<double> rent_usd_per_device_hour{};
    std::optional<double> buy_usd_per_device{};
    // Board power limit per device, watts (what `nvidia-smi -pl` sets): below the device's busy power its
    // clocks drop and its compute slows (models/powerlimit.h). Absent: the device's rated power.
    std::optional<double> power_limit_W{};
    bool operator==(const Pool&) const = default;
};

// The fabric inside a node (NVLink/NVSwitch, Infinity Fabric, PCIe). Unset numbers come from the catalog.
struct ScaleUpNetwork {
    std::optional<std::string> fabric;
    std::optional<double> bandwidth_GBps; // per device, one direction
    std::optional<double> latency_us;
    bool operator==(const ScaleUpNetwork&) const = default;
};

// fat-tree: as many tiers as the switch radix needs, a node's NICs under one leaf; rail-fat-tree: NIC k
// of every node of a unit on the unit's rail-k leaf, `tiers` 2 or 3; dragonfly: groups of routers,
// all-to-all inside a group and between groups; torus-3d: devices wired directly, 6 links each.
enum class TopologyKind { FatTree, SingleSwitch, RailFatTree, Dragonfly, Torus3d };
std::string toString(TopologyKind kind);

// The network between nodes (scale-out). Unset numbers get defaults (models/topology.h).
struct Topology {
    TopologyKind kind = TopologyKind::FatTree;
    double oversubscription = 1.0;              // leaf downlink : uplink bandwidth, >= 1
    std::optional<std::int64_t> nodes_per_leaf; // servers under one leaf switch (fat trees); default 4
    std::optional<double> latency_us;           // one switch hop
    std::optional<std::int64_t> tiers;          // rail-fat-tree: 2 or 3 (default 2)
    std::optional<std::int64_t> radix;          // ports per switch (default 64)
    std::optional<std::int64_t> groups;         // dragonfly: groups
    std::optional<std::int64_t> routers_per_group;
    std::optional<std::int64_t> global_links_per_router; // dragonfly; default: terminals per router
    std::optional<std::vector<std::int64_t>> dims;       // torus-3d: x, y, z; product = devices
    std::optional<double> link_Gbps; // dragonfly and torus links, one direction; default: the NIC's
    bool operator==(const Topology&) const = default;
};

struct Network {
    ScaleUpNetwork scale_up;
    std::optional<double> nic_Gbps; // per device, one direction; default from the catalog
    Topology topology;
    bool operator==(const Network&) const = default;
};

struct Cluster {
    std::vector<Pool> pools;
    Network network;
    bool operator==(const Cluster&) const = default;
};

// Mixture-of-Experts feed-forward: the layers after the first `dense_layers` route each token to `top_k`
// of `experts` experts (balanced load), plus `shared_experts` every token goes through; every expert is
// a feed-forward of width `expert_ffn_hidden`, gated like the dense one.
struct MoeShape {
    std::int64_t experts = 0;
    std::int64_t top_k = 1;
    std::int64_t expert_ffn_hidden = 0;
    std::int64_t shared_experts = 0;
    std::int64_t dense_layers = 0;
    bool operator==(const MoeShape&) const = default;
};

// A decoder-only transformer.
struct ModelShape {
    std::string name;
    std::int64_t layers = 0;
    std::int64_t hidden = 0;
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;
    std::int64_t ffn_hidden = 0;
    bool ffn_gated = false;
    std::int64_t vocab = 0;
    std::int64_t seq_len = 0;
    std::optional<MoeShape> moe; // absent: every layer has the dense feed-forward
    // Hidden and attention dropout in training (GPT-3, Megatron-LM's default 0.1): its masks are kept for
    // the backward. Models trained without (Llama, Mixtral, DeepSeek-V3 and most since) keep none.
    bool dropout = true;
    // The output layer reuses the input embedding's matrix (Llama 3.2 1B and 3B, Gemma): one vocab x hidden
    // matrix of weights, gradients and optimizer states instead of two. The logits GEMM runs all the same.
    bool tied_embeddings = false;
    // Width of one attention head; 0 means hidden / heads. Some models set it apart from the hidden size
    // (Qwen3: 128 on hidden 2,048 or 4,096; GPT-OSS: 64 on 2,880; Gemma), which changes the attention
    // projections, the scores and K and V.
    std::int64_t head_dim = 0;
    // Multi-head latent attention (DeepSeek-V2/V3/R1): the values cached per token and layer, one
    // compressed latent shared by every head (d_c + d_h^R = 512 + 64 = 576 for DeepSeek-V3). 0: K and V are
    // cached per KV head. Serving reads it (the KV cache, decode attention); training's step does not.
    std::int64_t kv_latent = 0;
    bool operator==(const ModelShape&) const = default;

    // The width of one head, of all query heads together, and of K (or V): heads x headDim() and
    // kv_heads x headDim(), equal to hidden and its GQA share unless head_dim is set.
    [[nodiscard]] double headDim() const {
        if (head_dim > 0)
            return static_cast<double>(head_dim);
        return heads > 0 ? static_cast<double>(hidden) / static_cast<double>(heads) : 0.0;
    }
    [[nodiscard]] double queryWidth() const { return static_cast<double>(heads) * headDim(); }
    [[nodiscard]] double kvWidth() const { return static_cast<double>(kv_heads) * headDim(); }

    // Layers with routed experts (0 for a dense model).
    [[nodiscard]] std::int64_t moeLayers() const { return moe ? layers - moe->dense_layers : 0; }
};

struct ParallelLayout {
    std::int64_t tp = 1;
    std::int64_t pp = 1;
    std::int64_t dp = 1;
    std::int64_t vp = 1; // model chunks per pipeline device (interleaved 1F1B when > 1)
    std::int64_t cp = 1; // context parallelism: the sequence split over cp devices (ring attention)
    bool sequence_parallel = false;
    std::int64_t ep =
        1; // expert parallelism: each MoE layer's routed experts split over ep devices (MoE only)
    // Expert tensor parallelism (Megatron-Core's --expert-tensor-parallel-size): each routed expert's
    // matrices split over etp devices; 0 means tp, as Megatron-Core when unset. Below tp, the MoE layers
    // fold the tensor ranks the attention uses into expert ranks: the devices of a pipeline stage, in
    // rank order, form groups of etp consecutive devices, and every ep groups in turn exchange tokens
    // (expert parallel); ep must divide (tp / etp) * cp * dp.
    std::int64_t etp = 0;
    // Sharding over the data-parallel group (dp * cp devices): 0 none, 1 optimizer states (Megatron's
    // distributed optimizer), 2 also gradients, 3 also parameters (ZeRO-3 / FSDP).
    int zero = 0;
    bool operator==(const ParallelLayout&) const = default;

    // Devices that hold the same parameters and reduce gradients together.
    [[nodiscard]] std::int64_t dataParallelGroup() const { return dp * cp; }
    // The tensor split of a routed expert's matrices.
    [[nodiscard]] std::int64_t expertTp() const { return etp > 0 ? etp : tp; }
    // Devices that hold the same routed experts and reduce their gradients together (Megatron-Core's
    // expert data-parallel group): a stage's devices over the etp * ep that split one layer's experts.
    [[nodiscard]] std::int64_t expertDataParallelGroup() const {
        const std::int64_t split = expertTp() * ep;
        return split > 0 ? std::max<std::int64_t>(1, tp * cp * dp / split) : 1;
    }
    [[nodiscard]] std::int64_t devices() const { return tp * pp * dp * cp; }
    // The device of tensor rank t, context rank c and data rank d in pipeline stage `stage`, in Megatron's
    // rank order: tensor innermost, then context, data, pipeline. The simulation numbers devices so.
    [[nodiscard]] std::int64_t rank(std::int64_t t, std::int64_t c, std::int64_t d,
                                    std::int64_t stage) const {
        return t + tp * (c + cp * (d + dp * stage));
    }
    // The tensor-parallel group of context rank c (data rank 0) in `stage`, in rank order.
    [[nodiscard]] std::vector<std::int64_t> tensorGroup(std::int64_t c, std::int64_t stage) const {
        std::vector<std::int64_t> group;
        for (std::int64_t t = 0; t < tp; ++t)
            group.push_back(rank(t, c, 0, stage));
        return group;
    }
    // The context-parallel ring of tensor rank t (data rank 0) in `stage`.
    [[nodiscard]] std::vector<std::int64_t> contextGroup(std::int64_t t, std::int64_t stage) const {
        std::vector<std::int64_t> group;
        for (std::int64_t c = 0; c < cp; ++c)
            group.push_back(rank(t, c, 0, stage));
        return group;
    }
    // The devices of tensor rank t in `stage` that reduce gradients together: every data and context rank.
    [[nodiscard]] std::vector<std::int64_t> dataGroup(std::int64_t t, std::int64_t stage) const {
        std::vector<std::int64_t> group;
        for (std::int64_t d = 0; d < dp; ++d)
            for (std::int64_t c = 0; c < cp; ++c)
                group.push_back(rank(t, c, d, stage));
        return group;
    }
    // Member j (0 .. ep-1) of the expert-parallel group of the device of rank `rank` within its pipeline
    // stage, as a rank within the stage. Megatron-Core's expert layout: the stage's devices in rank order
    // (tensor innermost, then context, data) form blocks of etp consecutive devices, and ep blocks in turn
    // one group; with etp = tp, ep consecutive data- and context-parallel ranks at one tensor rank.
    [[nodiscard]] std::int64_t expertGroupMember(std::int64_t rank, std::int64_t j) const {
        const std::int64_t split = expertTp();
        return rank / (split * ep) * (split * ep) + rank % split + j * split;
    }
};

// Activation recomputation: none; selective (Megatron-LM's: the attention core); full (the whole layer
// from its input); selective-ops (torchtitan's op-level policy: every matmul output is kept except every
// second one in the layer's order, attention's output is kept, every other operation is recomputed).
enum class Recompute { None, Selective, Full, SelectiveOps };

// What selective recomputation recomputes (Megatron-Core --recompute-modules, read only with recompute
// "selective"; its default, the attention core alone, is Megatron-LM's selective). The attention core, the
// dense MLP and the MoE layer are checkpointed: their inputs are kept, everything inside them recomputed in
// the backward (the MoE layer's dispatch and combine all-to-alls included). The norms and the experts'
// activation function discard their outputs after use and run again in the backward. The shared experts
// are checkpointed on their own.
struct RecomputeModules {
    bool core_attn = true;
    bool layernorm = false;
    bool mlp = false;            // the dense layers' MLP
    bool moe = false;            // the whole MoE layer: router, dispatch, experts, combine
    bool moe_act = false;        // the routed experts' activation function
    bool shared_experts = false; // the MoE layer's shared experts
    bool operator==(const RecomputeModules&) const = default;
};
std::string toString(Recompute recompute);

// How attention runs: fused (FlashAttention-style, scores never leave the chip) or unfused (the
// b x heads x s x s scores written by one GEMM, then softmax, dropout and a second GEMM, as Megatron-LM
// did before 2022).
// Flash2: fused, with FlashAttention-2's kernels (the flash-attn 2.x package, PyTorch SDPA's default on
// Hopper), which on Hopper run well below its best fused kernels (cuDNN's, FlashAttention-3).
enum class AttentionKernel { Fused, Unfused, Flash2 };
std::string toString(AttentionKernel kernel);

// How each micro-batch's weight gradients reach the gradient buffer: fused (the weight-gradient GEMM
// accumulates into the buffer itself: Megatron-LM's gradient accumulation fusion, its default since
// 2022, and NeMo's), or separate (the GEMM writes the gradient in the training precision and an add
// kernel per parameter tensor accumulates it into the buffer, as PyTorch autograd and Megatron-LM's
// local DDP of 2021 did).
enum class GradientAccumulation { Fused, Separate };
std::string toString(GradientAccumulation accumulation);

// How the framework runs ZeRO-3 (parallel.zero 3). Layered: one all-gather per layer, prefetched a layer
// ahead and kept for the recomputed forward and the backward, each layer's gradients reduce-scattered
// beside the gathers, every collective as fast as the network runs it (PyTorch FSDP). DeepSpeed2021:
// DeepSpeed's ZeRO-3 as released before its all-gather rework (v0.3.13 to v0.5.4, 2021), read in
// its code: hooks on each module free the module's parameters after its forward, so a recomputed forward
// gathers them all again and the backward again all but the module used last (its reuse-distance cache
// keeps that one); it fetches module by module, prefetching only the next module's weight (its default
// 50-million-element prefetch bucket is filled by one matrix of these models), and a module whose
// parameters were in flight waits for all the device's work, gradient reduce-scatters included
// (stage3.py's _synchronize_communication ends in torch.cuda.synchronize()); the gradients are in the
// training's 16-bit type; and the framework moved parameters at about kDeepSpeed2021Zero3Bps a GPU
// however fast the links were (StageCost::zero3Steps).
enum class Zero3Engine { Layered, DeepSpeed2021 };
std::string toString(Zero3Engine engine);

// How an MoE layer's tokens reach their experts' devices (expert parallelism). AllToAll: an all-to-all of
// every token-expert pair (NCCL, Megatron-Core's alltoall dispatcher). DeepEp: DeepEP's normal kernels or
// HybridEP (Megatron-Core's flex dispatcher): a token goes once to each device holding one of its experts,
// and to another node once over the network, to the device of the same local rank, which forwards it over
// the scale-up fabric to that node's devices holding its experts (DeepSeek-V3 report, section 3.2.2;
// models::expertDispatchScale).
enum class EpDispatcher { AllToAll, DeepEp };
std::string toString(EpDispatcher dispatcher);

// Parameter bytes DeepSpeed's ZeRO-3 of 2021 gathered per second and GPU, as measured by DeepSpeed's
// developers (issue #1174, 2021-06-19: v0.3.16, PyTorch 1.8, one AWS p4d node, 8 A100s on NVLink): the
// forward of a 5.1-billion-parameter BERT (hidden 2,560, 64 layers) took 480 ms under ZeRO-3 against
// 60 ms under ZeRO-2, the 10.2 GB of its fp16 parameters gathered meanwhile: 21.3 GB/s. Its backward,
// 900 ms for as many bytes gathered and as many gradient bytes reduce-scattered, gives 22.8 GB/s. PR
// #1188 (opened 2021-06-25, merged 2021-10-31, first in v0.5.5) reworked the gather path (a host
// synchronisation before each gather, a copy after it) and cut that forward to 270 ms.
inline constexpr double kDeepSpeed2021Zero3Bps = 21.3e9;

// How fp8 training scales its tensors (Transformer Engine recipes; ignored outside fp8). Delayed: each cast
// takes the scale from the amaxes of earlier steps and records this one's in the same kernel. Current
// (per-tensor current scaling, TE's Float8CurrentScaling): the amax of the tensor being cast is computed
// first, in a kernel of its own that reads the whole 16-bit tensor (nvte_compute_amax), then the scale
// (nvte_compute_scale_from_amax), then the cast: one more read of every cast input and two more kernels
// per cast (transformer_engine/common/recipe/current_scaling.cu).
enum class Fp8Recipe { Delayed, Current };
std::string toString(Fp8Recipe recipe);

// How the optimizer keeps its fp32 master weights. Fp32: a copy of their own, 4 bytes a parameter (Megatron's
// distributed optimizer, PyTorch). Remainders: only the 16 low bits each bf16 working weight lacks, 2 bytes
// (Apex's DistributedFusedAdam with store_param_remainders, which NeMo 1.x picks for bf16 models with an fp32
// optimizer: megatron_base_model.py); bf16 working weights only.
enum class MasterWeights { Fp32, Remainders };
std::string toString(MasterWeights master);

// What one training sample is made of, which sets how the data stage prepares it.
enum class Modality { Text, Image, Video, Audio };
std::string toString(Modality modality);

// The input pipeline (workload.stages, kind "data"): every step's samples are read from a storage tier,
// then decoded, augmented and tokenised on CPUs, and handed to the training devices through a prefetch
// queue of `prefetch_batches` global batches. In steady state the queue hides the data stage as long as
// it keeps up; when it does not, the training devices wait (models/datastage.h).
struct DataStage {
    std::optional<std::string> pool; // a CPU pool; absent: the host CPUs of the training nodes
    Modality modality = Modality::Text;
    std::string storage = "parallel-fs"; // a catalog storage tier
    // Stored bytes read per sample; default: text, 4 bytes a token; image, one ImageNet-sized JPEG per item.
    std::optional<double> stored_bytes_per_sample;
    // Images, video frames or seconds of audio decoded per sample (not for text).
    double items_per_sample = 1.0;
    // Side of a decoded, augmented image or frame in pixels (image and video): sets the bytes handed over.
    std::int64_t image_px = 224;
    // Tokens of text tokenised per sample; default: the sequence length for text, none otherwise.
    std::optional<std::int64_t> text_tokens_per_sample;
    std::int64_t prefetch_batches = 2;
    // The most samples a second one loader delivers, whatever its workers (a PyTorch DataLoader's main
    // process collates and hands over every batch); one loader per training device. Absent: no ceiling.
    std::optional<double> loader_samples_per_s;
    std::size_t stage_index = 0; // its place in workload.stages, for messages
    bool operator==(const DataStage&) const = default;
};

// What an offload stage moves off the training devices (workload.stages, kind "offload"). Experts: the MoE
// layers' routed experts run on another accelerator pool, which holds their weights, gradients and optimizer
// states; every MoE layer's tokens go there and back over the links joining the pools. Optimizer: the
// optimizer step and its states on CPUs (ZeRO-Offload): gradients to the CPUs, Adam there, the 16-bit
// weights back. Embeddings: the input embedding's table and its optimizer states held in a CPU pool's
// memory, as a parameter server: each micro-batch's rows come from there and their gradients go back, and
// the pool updates the table once a step (models/offload.h).
enum class OffloadTarget { Experts, Optimizer, Embeddings };
std::string toString(OffloadTarget target);

struct OffloadStage {
    OffloadTarget target = OffloadTarget::Experts;
    // Experts: an accelerator pool (required). Optimizer: a CPU pool; absent: the training nodes' host CPUs.
    // Embeddings: a CPU pool (required).
    std::optional<std::string> pool;
    std::size_t stage_index = 0; // its place in workload.stages, for messages
    bool operator==(const OffloadStage&) const = default;
};

// A forward-only evaluation every `every_steps` training steps over `samples` sequences (workload.stages,
// kind "eval"): on the training devices, which pause for it, or on a pool of its own, which gets a copy of
// the weights and runs beside training (models/evalstage.h).
struct EvalStage {
    std::optional<std::string> pool; // absent: the training pool
    std::int64_t every_steps = 1000;
    std::int64_t samples = 0; // 0: one global batch
    std::size_t stage_index = 0;
    bool operator==(const EvalStage&) const = default;
};

// How requests reach a serving stage: a Poisson stream at a rate, all at once (an offline batch, as MLPerf's
// Offline scenario), or the times and lengths of a trace file.
enum class Arrival { Poisson, Offline, Trace };
std::string toString(Arrival arrival);

// The distribution of a request's input or output length in tokens: fixed (`mean`), uniform in [min, max],
// lognormal with mean `mean` and log-space deviation `sigma` (a draw above `max`, when set, is drawn again),
// or a dataset's percentiles (linear between them, as a measured length distribution is usually published).
enum class LengthShape { Fixed, Uniform, Lognormal, Percentiles };
std::string toString(LengthShape shape);
// One point of a percentile table: `percent` of the requests are at most `tokens` long.
struct LengthPercentile {
    double percent = 0;
    std::int64_t tokens = 1;
    bool operator==(const LengthPercentile&) const = default;
};
struct TokenLengths {
    LengthShape shape = LengthShape::Fixed;
    double mean = 0; // percentiles: the table's own mean, derived when read
    double sigma = 0;
    std::int64_t min = 1;                      // percentiles: the 0th
    std::int64_t max = 0;                      // 0: no bound (uniform needs one); percentiles: the 100th
    std::vector<LengthPercentile> percentiles; // from 0 to 100, both increasing
    bool operator==(const TokenLengths&) const = default;
};
// The mean of a percentile table's distribution, linear between its points.
double percentileTableMean(const std::vector<LengthPercentile>& table);

// The requests of a serving stage. Poisson: `rate_per_s` for `duration_s` (or `count` requests); offline:
// `count` requests at time 0; trace: the file's rows (seconds since the start, input tokens, output tokens).
struct RequestStream {
    Arrival arrival = Arrival::Poisson;
    double rate_per_s = 0;
    std::int64_t count = 0; // 0: as many as the rate gives in duration_s
    double duration_s = 0;  // Poisson, when count is 0
    std::string trace;      // trace: a CSV file, relative to the scenario
    std::int64_t seed = 1;  // draws of arrivals and lengths: the same seed, the same requests
    TokenLengths input;
    TokenLengths output;
    bool operator==(const RequestStream&) const = default;
};

// Service-level objectives on the 99th percentiles of time to first token and time per output token.
struct ServeSlo {
    std::optional<double> ttft_p99_s;
    std::optional<double> tpot_p99_s;
    bool operator==(const ServeSlo&) const = default;
};

// One model replica's parallel layout for serving: tensor, pipeline and expert parallel (experts split over
// ep of the replica's tp devices).
struct ServeParallel {
    std::int64_t tp = 1;
    std::int64_t pp = 1;
    std::int64_t ep = 1;
    bool operator==(const ServeParallel&) const = default;
    [[nodiscard]] std::int64_t devices() const { return tp * pp; }
};

// Disaggregated serving: prompts are prefilled on replicas of their own pool, and their KV cache crosses
// the network to the stage's (decode) replicas.
struct PrefillReplicas {
    std::string pool;
    std::optional<std::int64_t> replicas; // default: the pool's devices / (tp * pp)
    ServeParallel parallel;
    bool operator==(const PrefillReplicas&) const = default;
};

// Serving the workload's model (workload.stages, kind "serve"): replicas of the model on a pool, each run by
// a serving engine (a catalog profile) with continuous batching over a paged KV cache, behind a load balancer
// that sends each request to the replica with the fewest outstanding (models/serving.h).
struct ServeStage {
    std::optional<std::string> pool;      // default: the workload's pool (serving workloads), else required
    std::optional<std::int64_t> replicas; // default: the pool's devices / (tp * pp)
    ServeParallel parallel;
    Precision weights = Precision::Bf16;
    std::optional<Precision> kv_cache; // default: 8-bit weights keep an 8-bit cache, others bf16
    std::string engine = "vllm";       // a catalog serving engine
    // The engine's limits; unset: the engine profile's defaults.
    std::optional<std::int64_t> max_batch;                // sequences in one iteration
    std::optional<std::int64_t> max_tokens_per_iteration; // prefill and decode tokens in one iteration
    std::optional<bool> chunked_prefill;
    std::optional<std::int64_t> kv_block_tokens;
    std::optional<double> memory_fraction;
    RequestStream requests;
    ServeSlo slo;
    std::optional<PrefillReplicas> prefill;
    std::optional<double> target_rate_per_s; // the devices needed for this rate are reported
    double horizon_months = 12;              // a training workload's serving: the cost of both over this
    std::size_t stage_index = 0;
    bool operator==(const ServeStage&) const = default;
};

// What the workload is: a training run (the step, with its data, offload and eval stages, and optionally
// the model's serving beside it: "train here, serve there"), or serving alone.
// Failures, checkpoints and restarts over the whole run (models/reliability.h): how the time to train grows
// from the ideal one. Rates come from the catalog's failure profile of the training device.
struct Reliability {
    bool failures = true;             // false: the ideal time to train, no interruptions
    double checkpoint_interval_s = 0; // 0: Young and Daly's optimum for the failure rate
    bool async_checkpoint = false;    // write behind the training; it waits for the copy to host
    std::string checkpoint_storage = "parallel-fs"; // a catalog storage tier
    std::optional<double> checkpoint_GBps; // the whole cluster's write and read rate; unset: the tier's
    std::optional<double> detection_s;     // unset: the failure profile's
    std::optional<double> restart_s;       // unset: the failure profile's
    double failure_rate_scale = 1.0;       // multiplies every cause's rate (a planner's what-if)
    // Nodes held ready beside the training pool, billed like it and idle: when a device or node fails, the
    // job restarts onto one (FailureProfile::standby_restart_s) instead of being requeued. 0: none.
    std::int64_t hot_spare_nodes = 0;
    std::int64_t trials = 1000; // Monte Carlo runs of the whole training
    std::int64_t seed = 1;      // their draws: the same seed, the same distribution
    bool operator==(const Reliability&) const = default;
};

enum class WorkloadKind { Train, Serve };
std::string toString(WorkloadKind kind);

struct Workload {
    ModelShape model;
    std::int64_t global_batch = 0; // sequences per optimizer step
    std::int64_t micro_batch = 0;  // sequences per micro-batch
    double tokens_to_train = 0.0;
    Precision precision = Precision::Bf16;
    ParallelLayout parallel;
    Recompute recompute = Recompute::None;
    RecomputeModules recompute_modules; // with recompute "selective"
    EpDispatcher ep_dispatcher = EpDispatcher::AllToAll;
    AttentionKernel attention = AttentionKernel::Fused;
    GradientAccumulation gradient_accumulation = GradientAccumulation::Fused;
    Zero3Engine zero3_engine = Zero3Engine::Layered;
    Fp8Recipe fp8_recipe = Fp8Recipe::Delayed;
    MasterWeights master_weights = MasterWeights::Fp32;
    // Communication the framework overlaps with computation: tensor-parallel collectives pipelined with the
    // GEMMs they feed (Megatron-Core --tp-comm-overlap, NeMo ub_tp_comm_overlap); the distributed
    // optimizer's parameter all-gather hidden behind the next step's first forward (--overlap-param-gather,
    // overlap_param_sync); the data-parallel gradient reduction in buckets during the last backward (on by
    // default, as PyTorch DDP and Megatron-Core; off: one reduction per model chunk after the whole
    // backward, as Megatron-LM's local DDP of 2021); the expert-parallel all-to-alls of one micro-batch
    // hidden behind another's computation (Megatron-Core --overlap-moe-expert-parallel-comm, Megatron-Bridge
    // moe_a2a_overlap: the combined 1F1B schedule runs one micro-batch's forward beside another's backward,
    // layer by layer, each one's dispatch and combine beside the other's attention and expert MLP; one more
    // warm-up forward; needs ep > 1, no full recomputation, and interleaving (vp > 1) when pp > 1).
    struct Overlap {
        bool tp_comm = false;
        bool param_gather = false;
        bool grad_reduce = true;
        bool ep_comm = false;
        bool operator==(const Overlap&) const = default;
    };
    Overlap overlap;
    // Precision of the gradient buffer and its data-parallel reduction. Default: fp32, as Megatron-LM
    // accumulates and reduces with bf16 (fp16 training: fp16); bf16 as NeMo's distributed Adam with
    // grad_sync_dtype bf16. Must be fp32 or the training's 16-bit type.
    std::optional<Precision> gradient_precision;
    // Activation offloading to host memory (Megatron-Core --cpu-offloading-num-layers, Transformer Engine's
    // CPU offload handler): the activations the first `activation_offload_layers` layers keep for the
    // backward are copied to the host during the forward and back before their backward, over the device's
    // host link (the catalog's host_link_GBps). The copies run on streams of their own, spread over the
    // layers: the copy of offloaded layer k must end by a window point of the computation (Transformer
    // Engine's layer_window_map, models/stepcost.h offloadWindows), where the computation waits for it: the
    // handler before Transformer Engine 2.10 (cpu_offload_v1.py since), whose windows are tighter
    // than 2.10's. 0: none. As Megatron-Core: fewer than the model's layers, without pipeline parallelism or
    // recomputation.
    std::int64_t activation_offload_layers = 0;
    // The training framework and its release's month ("megatron", "2024-06"): the catalog's profile of
    // that release (models/framework.h) sets what the framework does that the fields above do not say.
    // Empty: none, the fields as written.
    std::string framework;
    std::string framework_version;
    Reliability reliability;
    std::optional<std::string> pool;              // which pool trains; default: the first
    std::optional<std::size_t> train_stage_index; // where workload.stages lists the "train" stage, if it does
    std::optional<DataStage> data;                // the input pipeline; absent: data is never waited for
    std::vector<OffloadStage> offload;            // work placed on other pools, at most one stage per target
    std::optional<EvalStage> eval;                // periodic evaluation; absent: none
    WorkloadKind kind = WorkloadKind::Train;
    std::optional<ServeStage> serve; // serving the model; required when kind is Serve
    bool operator==(const Workload&) const = default;

    [[nodiscard]] bool trains() const { return kind == WorkloadKind::Train; }

    // The offload stage of `target`, or nullptr when that work stays on the training devices.
    [[nodiscard]] const OffloadStage* offloaded(OffloadTarget target) const {
        for (const auto& stage : offload)
            if (stage.target == target)
                return &stage;
        return nullptr;
    }

    [[nodiscard]] Precision gradientPrecision() const {
        return gradient_precision.value_or(precision == Precision::Fp16 ? Precision::Fp16 : Precision::Fp32);
    }

    // The training's 16-bit type: fp16 for fp16 training, else bf16 (fp8 training keeps bf16 copies).
    [[nodiscard]] Precision sixteenBitPrecision() const {
        return precision == Precision::Fp16 ? Precision::Fp16 : Precision::Bf16;
    }

    // Micro-batches each pipeline processes per step: global / (dp * micro).
    [[nodiscard]] std::int64_t microBatchesPerStep() const {
        return global_batch / (parallel.dp * micro_batch);
    }
};

enum class CostMode { Rent, Buy };
std::string toString(CostMode mode);

struct Costs {
    CostMode mode = CostMode::Rent;
    // The training pool's prices; default: the pool's own, else the catalog's. Other pools: Pool.
    std::optional<double> rent_usd_per_device_hour;
    std::optional<double> buy_usd_per_device;
    // Renting: the cloud whose on-demand offers price the pools (the catalog's "providers"), under any price
    // the scenario sets; empty: the catalog's rent prices.
    std::string provider;
    double amortisation_years = 4.0;
    double electricity_usd_per_kWh = 0.08;
    double pue = 1.3;
    // The power the site has for this cluster, at the facility (PUE included), MW; unset: no cap.
    std::optional<double> site_power_MW;
    bool operator==(const Costs&) const = default;
};

// A calibration profile (docs/calibration.md) that refines a catalog device for this scenario.
struct CalibrationRef {
    std::string profile;               // file path (relative to the scenario) or a name in assets/calibration
    std::optional<std::string> device; // catalog id it refines; default: the one the profile names
    bool operator==(const CalibrationRef&) const = default;
};

struct Scenario {
    std::string name;
    std::optional<std::string> description;
    Cluster cluster;
    Workload workload;
    Costs costs;
    std::optional<CalibrationRef> calibration; // absent: catalog spec sheet
    bool operator==(const Scenario&) const = default;

    // The pool that runs the workload (by name, else the first), or nullptr when there is none.
    [[nodiscard]] const Pool* trainingPool() const;
    [[nodiscard]] Pool* trainingPool();
};

} // namespace choreo::models
