#include "models/resolved.h"

#include "models/bsp.h"
#include "models/fieldtable.h"
#include "models/framework.h"
#include "models/jsonreader.h"
#include "models/weightstreaming.h"

#include <set>

namespace choreo::models {

namespace {

std::string divides(std::int64_t a, const char* what, std::int64_t b) {
    return std::to_string(a) + " does not divide " + what + "=" + std::to_string(b);
}

// Attention heads, and the tensor-parallel split of heads and the feed-forward.
void checkHeadsAndTensorSplit(const Workload& workload, Diagnostics& errors) {
    const auto& model = workload.model;
    const auto& parallel = workload.parallel;
    if (model.head_dim < 0)
        errors.push_back({"workload.model.head_dim",
                          "must be positive (or 0: hidden / heads), got " + std::to_string(model.head_dim)});
    else if (model.head_dim == 0 && model.hidden % model.heads != 0)
        errors.push_back(
            {"workload.model.heads", divides(model.heads, "hidden", model.hidden) +
                                         " (set head_dim for heads narrower or wider than that)"});
    if (model.kv_heads > model.heads || model.heads % model.kv_heads != 0)
        errors.push_back({"workload.model.kv_heads", "must divide heads=" + std::to_string(model.heads) +
                                                         ", got " + std::to_string(model.kv_heads)});
    if (model.heads % parallel.tp != 0)
        errors.push_back({"workload.parallel.tp", divides(parallel.tp, "heads", model.heads)});
    else if (model.kv_heads % parallel.tp != 0 && parallel.tp % model.kv_heads != 0)
        errors.push_back({"workload.parallel.tp", std::to_string(parallel.tp) +
                                                      " and kv_heads=" + std::to_string(model.kv_heads) +
                                                      " must divide one another"});
    if (model.ffn_hidden % parallel.tp != 0)
        errors.push_back({"workload.parallel.tp", divides(parallel.tp, "ffn_hidden", model.ffn_hidden)});
}

// Pipeline stages and interleaving, context parallelism, and the batch.
// The product of `factors`, or nullopt when it does not fit in 64 bits (a bad input, never a wrapped
// number in a message).
std::optional<std::int64_t> checkedProduct(std::initializer_list<std::int64_t> factors) {
    std::int64_t product = 1;
    for (const std::int64_t factor : factors)
        if (__builtin_mul_overflow(product, factor, &product))
            return std::nullopt;
    return product;
}

void checkPipelineAndBatch(const Workload& workload, Diagnostics& errors) {
    const auto& model = workload.model;
    const auto& parallel = workload.parallel;
    const auto batchSplit = checkedProduct({workload.micro_batch, parallel.dp});
    const auto chunks = checkedProduct({parallel.pp, parallel.vp});
    if (!batchSplit || !chunks) {
        errors.push_back({batchSplit ? "workload.parallel.vp" : "workload.micro_batch",
                          batchSplit ? "pp*vp does not fit in 64 bits (pp=" + std::to_string(parallel.pp) +
                                           ", vp=" + std::to_string(parallel.vp) + ")"
                                     : "micro_batch*dp does not fit in 64 bits (micro_batch=" +
                                           std::to_string(workload.micro_batch) +
                                           ", dp=" + std::to_string(parallel.dp) + ")"});
        return;
    }
    // Uneven splits are allowed (layersInChunk): the first and last chunks give up a layer first, down to
    // none, when they hold only the embedding or only the output layer and the loss (Megatron-Core's
    // account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split: Llama 3.1 405B's 126
    // layers over 128 chunks). Every other chunk needs a layer.
    if (parallel.pp > model.layers + 2)
        errors.push_back(
            {"workload.parallel.pp", std::to_string(parallel.pp) +
                                         " pipeline stages for layers=" + std::to_string(model.layers) +
                                         ": every stage but the first and last needs a layer"});
    else if (*chunks > model.layers + 2)
        errors.push_back(
            {"workload.parallel.vp", "pp*vp = " + std::to_string(*chunks) +
                                         " model chunks for layers=" + std::to_string(model.layers) +
                                         ": every chunk but the first and last needs a layer"});
    if (parallel.vp > 1 && parallel.pp == 1)
        errors.push_back(
            {"workload.parallel.vp", "interleaving (vp > 1) needs pipeline parallelism (pp > 1)"});
    else if (parallel.vp > 1 && workload.global_batch % *batchSplit == 0 &&
             workload.microBatchesPerStep() % parallel.pp != 0)
        errors.push_back(
            {"workload.parallel.vp", "interleaving needs the micro-batches per step (" +
                                         std::to_string(workload.microBatchesPerStep()) +
                                         ") to be a multiple of pp=" + std::to_string(parallel.pp)});
    if (parallel.cp > 1 && model.seq_len % (2 * parallel.cp) != 0)
        errors.push_back(
            {"workload.parallel.cp", "2*cp = " + std::to_string(2 * parallel.cp) +
                                         " does not divide seq_len=" + std::to_string(model.seq_len) +
                                         " (the causal load-balanced split needs 2*cp chunks)"});
    if (workload.global_batch % *batchSplit != 0)
        errors.push_back({"workload.global_batch",
                          std::to_string(workload.global_batch) +
                              " is not a multiple of micro_batch*dp = " + std::to_string(*batchSplit)});
    if (workload.global_batch % *batchSplit == 0 && workload.microBatchesPerStep() > kMaxMicroBatchesPerStep)
        errors.push_back(
            {"workload.global_batch", std::to_string(workload.microBatchesPerStep()) +
                                          " micro-batches per pipeline and step is more than the " +
                                          std::to_string(kMaxMicroBatchesPerStep) + " supported"});
    else if (workload.global_batch % *batchSplit == 0 &&
             workload.microBatchesPerStep() * parallel.pp > kMaxPipelineOperations)
        errors.push_back({"workload", std::to_string(workload.microBatchesPerStep()) +
                                          " micro-batches x pp=" + std::to_string(parallel.pp) +
                                          " pipeline operations per step is more than the " +
                                          std::to_string(kMaxPipelineOperations) + " supported"});
}

// A Mixture-of-Experts model's experts.
void checkExperts(const Workload& workload, const MoeShape& moe, Diagnostics& errors) {
    const auto& model = workload.model;
    const auto& parallel = workload.parallel;
    if (moe.experts < 2)
        errors.push_back(
            {"workload.model.moe.experts", "must be at least 2, got " + std::to_string(moe.experts)});
    if (moe.top_k < 1 || moe.top_k > moe.experts)
        errors.push_back(
            {"workload.model.moe.top_k", "must be between 1 and experts=" + std::to_string(moe.experts) +
                                             ", got " + std::to_string(moe.top_k)});
    if (moe.expert_ffn_hidden < 1)
        errors.push_back({"workload.model.moe.expert_ffn_hidden",
                          "must be at least 1, got " + std::to_string(moe.expert_ffn_hidden)});
    else if (parallel.etp == 0 && moe.expert_ffn_hidden % parallel.tp != 0)
        errors.push_back(
            {"workload.parallel.tp", divides(parallel.tp, "expert_ffn_hidden", moe.expert_ffn_hidden)});
    else if (parallel.etp > 0 && moe.shared_experts > 0 &&
             (moe.shared_experts * moe.expert_ffn_hidden) % parallel.tp != 0)
        errors.push_back({"workload.parallel.tp", divides(parallel.tp, "shared_experts*expert_ffn_hidden",
                                                          moe.shared_experts * moe.expert_ffn_hidden) +
                                                      " (shared experts are split over the tensor ranks)"});
    if (moe.shared_experts < 0)
        errors.push_back({"workload.model.moe.shared_experts",
                          "must be at least 0, got " + std::to_string(moe.shared_experts)});
    if (moe.dense_layers < 0 || moe.dense_layers >= model.layers)
        errors.push_back({"workload.model.moe.dense_layers",
                          "must be between 0 and layers-1=" + std::to_string(model.layers - 1) + ", got " +
                              std::to_string(moe.dense_layers)});
}

// A Mixture-of-Experts model's expert tensor and expert parallelism.
void checkExpertParallelism(const Workload& workload, const MoeShape& moe, Diagnostics& errors) {
    const auto& parallel = workload.parallel;
    const bool etpValid =
        parallel.etp == 0 || (parallel.etp >= 1 && parallel.tp >= 1 && parallel.tp % parallel.etp == 0);
    if (!etpValid)
        errors.push_back({"workload.parallel.etp",
                          "must divide tp=" + std::to_string(parallel.tp) + ", got " +
                              std::to_string(parallel.etp) +
                              " (a routed expert's matrices are split over some of the tensor ranks)"});
    else if (parallel.etp > 0 && moe.expert_ffn_hidden >= 1 && moe.expert_ffn_hidden % parallel.etp != 0)
        errors.push_back(
            {"workload.parallel.etp", divides(parallel.etp, "expert_ffn_hidden", moe.expert_ffn_hidden)});
    else if (parallel.etp > 0 && parallel.etp < parallel.tp && !parallel.sequence_parallel)
        errors.push_back({"workload.parallel.sequence_parallel",
                          "must be true with etp=" + std::to_string(parallel.etp) +
                              " below tp=" + std::to_string(parallel.tp) +
                              " (each tensor rank routes its own share of the sequence, as Megatron-Core "
                              "requires)"});
    if (parallel.ep < 1) {
        errors.push_back({"workload.parallel.ep", "must be at least 1, got " + std::to_string(parallel.ep)});
    } else if (moe.experts >= 1 && moe.experts % parallel.ep != 0) {
        errors.push_back({"workload.parallel.ep", divides(parallel.ep, "experts", moe.experts)});
    } else if (etpValid && parallel.etp == 0 && (parallel.dp * parallel.cp) % parallel.ep != 0) {
        errors.push_back({"workload.parallel.ep",
                          divides(parallel.ep, "dp*cp", parallel.dp * parallel.cp) +
                              " (experts are split over the data- and context-parallel ranks; with "
                              "parallel.etp below tp, over tensor ranks as well)"});
    } else if (etpValid && parallel.etp > 0) {
        const std::int64_t ranks = parallel.tp / parallel.etp * parallel.dp * parallel.cp;
        if (ranks % parallel.ep != 0)
            errors.push_back({"workload.parallel.ep",
                              divides(parallel.ep, "(tp/etp)*dp*cp", ranks) +
                                  " (experts are split over the stage's devices in groups of etp)"});
    }
}

// A dense model: no expert parallelism.
void checkNoExpertParallelism(const Workload& workload, Diagnostics& errors) {
    const auto& parallel = workload.parallel;
    if (parallel.ep != 1)
        errors.push_back({"workload.parallel.ep", "expert parallelism needs a Mixture-of-Experts model "
                                                  "(workload.model.moe), got ep=" +
                                                      std::to_string(parallel.ep)});
    if (parallel.etp != 0)
        errors.push_back(
            {"workload.parallel.etp", "expert tensor parallelism needs a Mixture-of-Experts model "
                                      "(workload.model.moe), got etp=" +
                                          std::to_string(parallel.etp)});
}

// The overlap options.
void checkOverlap(const Workload& workload, Diagnostics& errors) {
    const auto& parallel = workload.parallel;
    // Megatron-Core's checks for --overlap-moe-expert-parallel-comm (transformer_config.py, core_v0.15.0),
    // and Choreo's: the combined schedule is Megatron-Core's pipeline, not a fully sharded engine's.
    if (workload.overlap.ep_comm) {
        const std::string field = "workload.overlap.ep_comm";
        if (parallel.ep <= 1)
            errors.push_back(
                {field, "overlapping the expert all-to-alls needs a Mixture-of-Experts model with "
                        "expert parallelism (parallel.ep above 1), got ep=" +
                            std::to_string(parallel.ep)});
        if (parallel.pp > 1 && parallel.vp <= 1)
            errors.push_back({field, "with pipeline parallelism (pp=" + std::to_string(parallel.pp) +
                                         ") it needs interleaving (parallel.vp above 1), got vp=" +
                                         std::to_string(parallel.vp) + ", as Megatron-Core"});
        if (workload.recompute == Recompute::Full || workload.recompute == Recompute::SelectiveOps)
            errors.push_back({field, "needs recompute \"none\" or \"selective\" (Megatron-Core's), got \"" +
                                         toString(workload.recompute) + "\""});
        if (parallel.zero >= 3)
            errors.push_back(
                {field,
                 "needs parallel.zero 0, 1 or 2 (the combined schedule is Megatron-Core's), got zero=" +
                     std::to_string(parallel.zero)});
    }
    if (workload.ep_dispatcher == EpDispatcher::DeepEp && parallel.ep <= 1)
        errors.push_back(
            {"workload.ep_dispatcher", "DeepEP dispatches to the devices of expert parallelism: it needs a "
                                       "Mixture-of-Experts model with parallel.ep above 1, got ep=" +
                                           std::to_string(parallel.ep)});
    if (workload.overlap.param_gather && parallel.zero != 1 && parallel.zero != 2)
        errors.push_back(
            {"workload.overlap.param_gather",
             "overlapping the parameter gather needs the distributed optimizer (parallel.zero 1 or "
             "2), got zero=" +
                 std::to_string(parallel.zero)});
}

// Megatron-Core's --recompute-modules (Workload::RecomputeModules): read with selective recomputation only,
// at least one module, and the MoE modules on a model with routed (or shared) experts.
void checkRecomputeModules(const Workload& workload, Diagnostics& errors) {
    const RecomputeModules& modules = workload.recompute_modules;
    const std::string field = "workload.recompute_modules";
    if (workload.recompute != Recompute::Selective) {
        if (modules != RecomputeModules{})
            errors.push_back({field, "the modules apply to recompute \"selective\" (Megatron-Core "
                                     "--recompute-granularity selective), got recompute \"" +
                                         toString(workload.recompute) + "\""});
        return;
    }
    if (!modules.core_attn && !modules.layernorm && !modules.mlp && !modules.moe && !modules.moe_act &&
        !modules.shared_experts)
        errors.push_back({field, "selective recomputation of no module recomputes nothing: name one (" +
                                     fieldKeysListed(field) + ") or set recompute \"none\""});
    const auto& moe = workload.model.moe;
    if ((modules.moe || modules.moe_act) && !moe)
        errors.push_back({field + (modules.moe ? ".moe" : ".moe_act"),
                          "the model has no routed experts (workload.model.moe)"});
    if (modules.shared_experts && (!moe || moe->shared_experts == 0))
        errors.push_back({field + ".shared_experts", "the model has no shared experts"});
    if (modules.mlp && moe && workload.model.moeLayers() == workload.model.layers)
        errors.push_back({field + ".mlp", "every layer of the model is a MoE layer: there is no dense MLP to "
                                          "recompute (recompute_modules.moe recomputes the MoE layer)"});
}

// Gradient precision and master weights, the sequence-parallel split, and the tokens to train.
void checkPrecisionAndTokens(const Workload& workload, Diagnostics& errors) {
    const auto& model = workload.model;
    const auto& parallel = workload.parallel;
    if (workload.gradient_precision && *workload.gradient_precision != Precision::Fp32) {
        const Precision sixteen = workload.sixteenBitPrecision();
        if (*workload.gradient_precision != sixteen)
            errors.push_back({"workload.gradient_precision",
                              "gradients of " + toString(workload.precision) + " training are fp32 or " +
                                  toString(sixteen) + ", got " + toString(*workload.gradient_precision)});
    }
    if (workload.master_weights == MasterWeights::Remainders &&
        workload.sixteenBitPrecision() != Precision::Bf16)
        errors.push_back({"workload.master_weights", "remainders complete bf16 working weights; " +
                                                         toString(workload.precision) +
                                                         " training keeps fp16 ones"});
    if (parallel.sequence_parallel && parallel.tp > 1 && model.seq_len % parallel.tp != 0)
        errors.push_back(
            {"workload.parallel.sequence_parallel", divides(parallel.tp, "seq_len", model.seq_len)});
    if (workload.tokens_to_train < static_cast<double>(workload.global_batch * model.seq_len))
        errors.push_back({"workload.tokens_to_train",
                          formatNumber(workload.tokens_to_train) +
                              " is less than one step of global_batch*seq_len = " +
                              std::to_string(workload.global_batch * model.seq_len) + " tokens"});
}

void checkModel(const Workload& workload, Diagnostics& errors) {
    checkHeadsAndTensorSplit(workload, errors);
    checkPipelineAndBatch(workload, errors);
    if (workload.model.moe) {
        checkExperts(workload, *workload.model.moe, errors);
        checkExpertParallelism(workload, *workload.model.moe, errors);
    } else {
        checkNoExpertParallelism(workload, errors);
    }
    checkOverlap(workload, errors);
    checkRecomputeModules(workload, errors);
    checkPrecisionAndTokens(workload, errors);
    if (workload.model.tied_embeddings && workload.parallel.pp > 1)
        errors.push_back(
            {"workload.model.tied_embeddings",
             "tied embeddings with pipeline parallelism (pp=" + std::to_string(workload.parallel.pp) +
                 ") are not modelled yet: Megatron-LM keeps a copy of the matrix on the last stage "
                 "and all-reduces the two copies' gradients every step"});
}

} // namespace

LinkRates linkRates(const Network& net, const Device& dev) {
    LinkRates rates;
    if (dev.scale_up) {
        rates.scale_up_fabric = net.scale_up.fabric.value_or(dev.scale_up->fabric);
        rates.scale_up_Bps = net.scale_up.bandwidth_GBps.value_or(dev.scale_up->bandwidth_GBps.value) * 1e9;
        rates.scale_up_latency_s = net.scale_up.latency_us.value_or(dev.scale_up->latency_us.value) * 1e-6;
    } else {
        rates.scale_up_fabric = net.scale_up.fabric.value_or("none");
        rates.scale_up_Bps = net.scale_up.bandwidth_GBps.value_or(64.0) * 1e9;
        rates.scale_up_latency_s = net.scale_up.latency_us.value_or(2.0) * 1e-6;
    }
    rates.nic_Bps = net.nic_Gbps.value_or(dev.nic_Gbps.value) * 1e9 / 8.0;
    rates.switch_latency_s = net.topology.latency_us.value_or(kDefaultSwitchLatencyUs) * 1e-6;
    return rates;
}

namespace {

// A network plan's graph, built, checked and measured: its figures, or nullopt after the check's errors. The
// last few plans' answers are kept (per thread), so that a search that lays one model out many ways on the
// same cluster (sim/plan.h) builds each cluster's graph once: the graph costs more than the rest of a
// resolution.
std::optional<TopologyFigures> checkedTopology(const NetworkPlan& plan, Diagnostics& errors) {
    struct Checked {
        NetworkPlan plan;
        std::optional<TopologyFigures> figures;
        Diagnostics errors;
    };
    constexpr std::size_t kKept = 16;
    thread_local std::vector<Checked> kept;
    for (const auto& k : kept)
        if (k.plan == plan) {
            errors.insert(errors.end(), k.errors.begin(), k.errors.end());
            return k.figures;
        }
    Checked c{plan, std::nullopt, {}};
    const auto graph = buildTopologyGraph(plan);
    if (checkTopologyGraph(graph, plan.devices, "cluster.network.topology", c.errors))
        c.figures = topologyFigures(plan, graph);
    errors.insert(errors.end(), c.errors.begin(), c.errors.end());
    if (kept.size() >= kKept)
        kept.erase(kept.begin());
    kept.push_back(std::move(c));
    return kept.back().figures;
}

// The checks of one pool that need no other part of the scenario; returns its device (nullptr if unknown).
const Device* checkPool(const Pool& pool, std::size_t index, const Catalog& catalog, Diagnostics& errors) {
    const std::string path = "cluster.pools[" + std::to_string(index) + "]";
    const Device* dev = catalog.find(pool.device);
    if (!dev)
        errors.push_back(
            {path + ".device", "unknown device \"" + pool.device + "\" (known: " + catalog.idList() + ")"});
    if (pool.count > kMaxDevicesPerPool)
        errors.push_back({path + ".count", std::to_string(pool.count) + " devices is more than the " +
                                               std::to_string(kMaxDevicesPerPool) + " a pool can simulate"});
    if (pool.devices_per_node > 0 && pool.count % pool.devices_per_node != 0)
        errors.push_back(
            {path + ".devices_per_node",
             std::to_string(pool.devices_per_node) + " does not divide count=" + std::to_string(pool.count)});
    return dev;
}

// The provider whose offers price a rented scenario's pools (Costs::provider), or nullptr: none named, or
// buying. An unknown provider, or one that does not offer the training pool's device, is an error.
const Provider* rentProvider(const Scenario& s, const ResolvedPool& training, const Catalog& catalog,
                             Diagnostics& errors) {
    if (s.costs.provider.empty() || s.costs.mode != CostMode::Rent)
        return nullptr;
    const Provider* provider = catalog.provider(s.costs.provider);
    if (!provider) {
        errors.push_back({"costs.provider", "unknown provider \"" + s.costs.provider +
                                                "\" (known: " + catalog.providerList() + ")"});
        return nullptr;
    }
    if (!provider->offer(training.ratedDevice()->id)) {
        errors.push_back({"costs.provider", provider->id + " offers no " + training.ratedDevice()->id +
                                                " (it offers " + provider->deviceList() + ")"});
        return nullptr;
    }
    return provider;
}

// Prices: the pool's own, else (training pool) the costs section's, else the provider's offer (renting),
// else the catalog's; a missing one for the cost mode is an error naming the pool's field.
void priceEachPool(const Scenario& s, std::vector<ResolvedPool>& pools, std::size_t trainingPool,
                   const Catalog& catalog, Diagnostics& errors) {
    const Provider* provider = rentProvider(s, pools[trainingPool], catalog, errors);
    for (std::size_t i = 0; i < pools.size(); ++i) {
        ResolvedPool& rp = pools[i];
        const bool training = i == trainingPool;
        const std::string path = "cluster.pools[" + std::to_string(i) + "]";
        const RentOffer* offer = provider ? provider->offer(rp.ratedDevice()->id) : nullptr;
        const double listed = offer ? offer->usdPerDeviceHour() : rp.device->rent_usd_per_hour.value;
        rp.rent_usd_per_device_hour = rp.pool.rent_usd_per_device_hour.value_or(
            training ? s.costs.rent_usd_per_device_hour.value_or(listed) : listed);
        rp.buy_usd_per_device = rp.pool.buy_usd_per_device.value_or(
            training ? s.costs.buy_usd_per_device.value_or(rp.device->buy_usd.value)
                     : rp.device->buy_usd.value);
        const auto why = [](const std::string& reason) { return reason.empty() ? "" : " (" + reason + ")"; };
        if (s.costs.mode == CostMode::Rent && rp.rent_usd_per_device_hour <= 0.0)
            errors.push_back(
                {path + ".rent_usd_per_device_hour", "the catalog has no rent price for " + rp.device->id +
                                                         why(rp.device->no_rent_price) + "; set one"});
        if (s.costs.mode == CostMode::Buy && rp.buy_usd_per_device <= 0.0)
            errors.push_back({path + ".buy_usd_per_device", "the catalog has no purchase price for " +
                                                                rp.device->id + why(rp.device->no_buy_price) +
                                                                "; set one"});
    }
}

// A served model's shape: heads, KV heads and experts (the serve stage checks its own layout).
void checkServedModel(const ModelShape& model, Diagnostics& errors) {
    Workload shape;
    shape.model = model;
    checkHeadsAndTensorSplit(shape, errors);
    if (model.moe)
        checkExperts(shape, *model.moe, errors);
}

// A serving workload: its model and serve stage, on the pool the stage (else the workload) names, priced.
std::optional<ResolvedScenario> resolveServingOnly(ResolvedScenario r, const Catalog& catalog,
                                                   Diagnostics& errors) {
    const std::size_t before = errors.size();
    const Scenario& s = r.scenario;
    checkServedModel(s.workload.model, errors);
    if (errors.size() != before)
        return std::nullopt;
    r.serving = resolveServing(s, r.pools, r.training_pool, catalog, errors);
    if (!r.serving)
        return std::nullopt;
    r.training_pool = r.serving->serve.pool;
    priceEachPool(s, r.pools, r.training_pool, catalog, errors);
    if (errors.size() != before)
        return std::nullopt;
    return r;
}

} // namespace

std::optional<NetworkPlan> planTrainingPoolNetwork(const Scenario& s, const Catalog& catalog,
                                                   Diagnostics& errors) {
    const Pool* pool = s.trainingPool();
    if (!pool) {
        errors.push_back({"cluster.pools", "no training pool"});
        return std::nullopt;
    }
    std::size_t index = 0;
    while (index < s.cluster.pools.size() && &s.cluster.pools[index] != pool)
        ++index;
    const std::size_t before = errors.size();
    const Device* dev = checkPool(*pool, index, catalog, errors);
    if (pool->count <= 0)
        errors.push_back({"cluster.pools[" + std::to_string(index) + "].count",
                          "must be at least 1, got " + std::to_string(pool->count)});
    if (!dev || errors.size() != before)
        return std::nullopt;
    return planNetwork(*pool, index, *dev, s.cluster.network, linkRates(s.cluster.network, *dev), errors);
}

std::optional<std::size_t> findPoolNamed(const std::vector<ResolvedPool>& pools, const std::string& name,
                                         const std::string& path, Diagnostics& errors) {
    std::string names;
    for (std::size_t i = 0; i < pools.size(); ++i) {
        if (pools[i].pool.name == name)
            return i;
        names += (names.empty() ? "" : ", ") + pools[i].pool.name;
    }
    errors.push_back({path, "no pool named \"" + name + "\" (pools: " + names + ")"});
    return std::nullopt;
}

std::optional<std::size_t> findStagePool(const std::vector<ResolvedPool>& pools, const std::string& name,
                                         std::size_t trainingPool, bool cpus, const std::string& path,
                                         const std::string& needs, Diagnostics& errors) {
    const auto index = findPoolNamed(pools, name, path, errors);
    if (!index)
        return std::nullopt;
    const ResolvedPool& pool = pools[*index];
    const bool trains = *index == trainingPool;
    if (!trains && (pool.device->kind == DeviceKind::Cpu) == cpus)
        return index;
    errors.push_back({path, "\"" + pool.pool.name + "\" holds " + pool.device->id + ", a " +
                                toString(pool.device->kind) + (trains ? " that trains" : "") + "; " + needs});
    return std::nullopt;
}

namespace {

// What the training pool's device allows of the workload: its precision, activation offloading, the
// layouts of a bulk-synchronous or weight-streaming device, and tensor parallelism inside a node.
void checkLayoutOnDevice(const Workload& w, const Device& dev, const Pool& pool, std::size_t poolIndex,
                         Diagnostics& errors) {
    const auto& p = w.parallel;
    if (!dev.peakFlops(w.precision))
        errors.push_back({"workload.precision", toString(w.precision) + " is not supported by " + dev.id});
    if (const std::int64_t offload = w.activation_offload_layers; offload != 0) {
        const std::string field = "workload.activation_offload_layers";
        if (offload < 0 || offload >= w.model.layers)
            errors.push_back({field, "must be between 0 and layers-1=" + std::to_string(w.model.layers - 1) +
                                         ", got " + std::to_string(offload) +
                                         " (the last layer's activations are used at once by its backward)"});
        if (p.pp != 1)
            errors.push_back({field, "activation offloading needs pp=1, got pp=" + std::to_string(p.pp) +
                                         " (Megatron-Core has no offloading with pipeline parallelism)"});
        if (w.recompute != Recompute::None)
            errors.push_back({field, "activation offloading needs recompute none, got " +
                                         toString(w.recompute) +
                                         " (Megatron-Core offloads only without recomputation)"});
        if (!dev.host_link_GBps.present() || dev.host_link_GBps.value <= 0.0)
            errors.push_back({field, dev.id + " has no host-link bandwidth in the catalog (host_link_GBps), "
                                              "so the copies to host memory cannot be timed"});
    }
    if (dev.bulk_synchronous)
        checkBulkSynchronousLayout(w, dev, errors);
    if (dev.weight_streaming)
        checkWeightStreamingLayout(w, dev, pool.count,
                                   "cluster.pools[" + std::to_string(poolIndex) + "].count", errors);
    else if (p.tp > pool.devices_per_node)
        errors.push_back({"workload.parallel.tp", std::to_string(p.tp) + " exceeds devices_per_node=" +
                                                      std::to_string(pool.devices_per_node) +
                                                      " (tensor parallelism must stay inside a node)"});
    else if (pool.devices_per_node % p.tp != 0)
        errors.push_back({"workload.parallel.tp", divides(p.tp, "devices_per_node", pool.devices_per_node)});
}

// The memory one device needs against what it has: its memory (an IPU's SRAM), and an IPU's streaming
// memory for the optimizer state.
void checkTrainingMemory(const ResolvedScenario& r, const Device& dev, Diagnostics& errors) {
    if (r.memory.total() > dev.memory_GB.value)
        errors.push_back({"memory", formatNumber(r.memory.total()) + " GB per device needed, " + dev.id +
                                        " has " + formatNumber(dev.memory_GB.value) + " GB (" +
                                        r.memory.describe() + "; pipeline stage " +
                                        std::to_string(r.memory.stage) + ")"});
    if (!dev.bulk_synchronous)
        return;
    const Workload& w = r.scenario.workload;
    const double state = r.memory.off_chip_GB; // bulkSynchronousMemory's streamed optimizer state
    const double holds = dev.bulk_synchronous->streaming_memory_GB.value;
    if (state > holds)
        errors.push_back(
            {"memory", formatNumber(state) + " GB of optimizer state per " + dev.id +
                           ", its streaming memory holds " + formatNumber(holds) +
                           (w.parallel.zero == 0 ? " GB; raise pp or dp, or set workload.parallel.zero to 1"
                                                 : " GB; raise pp or dp")});
}

// resolveScenario once the framework's profile has been applied to `s`.
std::optional<ResolvedScenario> resolveApplied(const Scenario& s, const Catalog& catalog, Diagnostics& errors,
                                               bool checkMemory) {
    const std::size_t before = errors.size();
    ResolvedScenario r;
    r.scenario = s;

    std::set<std::string> names;
    for (std::size_t i = 0; i < s.cluster.pools.size(); ++i) {
        const auto& pool = s.cluster.pools[i];
        const std::string path = "cluster.pools[" + std::to_string(i) + "]";
        if (!names.insert(pool.name).second)
            errors.push_back({path + ".name", "pool name \"" + pool.name + "\" is used twice"});
        r.pools.push_back({pool, checkPool(pool, i, catalog, errors)});
    }
    if (s.workload.pool) {
        bool found = false;
        for (std::size_t i = 0; i < s.cluster.pools.size(); ++i)
            if (s.cluster.pools[i].name == *s.workload.pool) {
                r.training_pool = i;
                found = true;
            }
        if (!found)
            errors.push_back({"workload.pool", "no pool is named \"" + *s.workload.pool + "\""});
    }
    if (r.pools.empty()) {
        errors.push_back({"cluster.pools", "at least one pool is needed"});
        return std::nullopt;
    }
    if (errors.size() != before || !applyPowerLimits(r, errors))
        return std::nullopt;
    if (!s.workload.trains())
        return resolveServingOnly(std::move(r), catalog, errors);

    const Device& dev = *r.pools[r.training_pool].device;
    const Pool& pool = r.pools[r.training_pool].pool;
    const auto& w = s.workload;
    const auto& p = w.parallel;
    checkModel(w, errors);
    const auto layout = checkedProduct({p.tp, p.pp, p.dp, p.cp});
    if (layout != pool.count)
        errors.push_back({"cluster", std::string(p.cp > 1 ? "tp*pp*dp*cp = " : "tp*pp*dp = ") +
                                         (layout ? std::to_string(*layout) : std::string("more than 2^63")) +
                                         " but the pool has " + std::to_string(pool.count) + " devices"});
    checkLayoutOnDevice(w, dev, pool, r.training_pool, errors);

    // Network figures.
    const auto& net = s.cluster.network;
    if (!dev.scale_up && !net.scale_up.bandwidth_GBps && pool.devices_per_node > 1 && p.tp > 1)
        errors.push_back({"cluster.network.scale_up.bandwidth_GBps",
                          dev.id + " has no scale-up fabric in the catalog; set the bandwidth"});
    const LinkRates rates = linkRates(net, dev);
    r.scale_up_fabric = rates.scale_up_fabric;
    r.scale_up_Bps = rates.scale_up_Bps;
    r.scale_up_latency_s = rates.scale_up_latency_s;
    r.nic_Bps = rates.nic_Bps;
    r.switch_latency_s = rates.switch_latency_s;
    r.nodes_per_leaf = net.topology.nodes_per_leaf.value_or(kDefaultNodesPerLeaf);
    // The topology graph: planned (ports, shapes), built, checked (connected, every device routed), measured.
    if (auto plan = planNetwork(pool, r.training_pool, dev, net, rates, errors)) {
        if (const auto figures = checkedTopology(*plan, errors)) {
            r.network = *plan;
            r.nodes_per_leaf = plan->nodes_per_leaf;
            r.pools[r.training_pool].off_leaf_share = plan->offLeafShare();
            r.topology = *figures;
        }
    }

    priceEachPool(s, r.pools, r.training_pool, catalog, errors);
    if (s.workload.data)
        r.data = resolveDataStage(s, r.pools, r.training_pool, catalog, errors);
    r.offload = resolveOffloads(s, r.pools, r.training_pool, catalog, errors);
    if (s.workload.eval)
        r.eval = resolveEval(s, r.pools, r.training_pool, errors);
    if (s.workload.serve)
        r.serving = resolveServing(s, r.pools, std::nullopt, catalog, errors);
    r.reliability = resolveReliability(s, r.pools, r.training_pool, catalog, errors);
    if (errors.size() != before)
        return std::nullopt;

    r.memory = trainingMemory(w, &dev);
    if (checkMemory)
        checkTrainingMemory(r, dev, errors);
    if (errors.size() != before)
        return std::nullopt;
    return r;
}

} // namespace

std::optional<ResolvedScenario> resolveScenario(const Scenario& s, const Catalog& catalog,
                                                Diagnostics& errors, bool checkMemory) {
    if (s.workload.framework.empty() || !s.workload.trains())
        return resolveApplied(s, catalog, errors, checkMemory);
    Scenario applied = s;
    const auto framework = applyFrameworkProfile(applied, catalog, errors);
    if (!framework)
        return std::nullopt;
    auto r = resolveApplied(applied, catalog, errors, checkMemory);
    if (r)
        r->framework = *framework;
    return r;
}

} // namespace choreo::models
