#include "models/fieldtable.h"

#include "models/resolved.h"
#include "models/topology.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <type_traits>
#include <utility>

namespace choreo::models {

namespace {

// Builds one FieldSpec; the chained setters read as the table's columns.
class Field {
public:
    Field(std::string path, FieldKind kind, std::string group, std::string label) {
        spec_.path = std::move(path);
        spec_.kind = kind;
        spec_.group = std::move(group);
        spec_.label = std::move(label);
        spec_.required = true;
    }
    Field&& range(double minimum, double maximum) && {
        spec_.minimum = minimum;
        spec_.maximum = maximum;
        return std::move(*this);
    }
    Field&& above(double minimum, double maximum) && {
        spec_.minimum = minimum;
        spec_.minimum_exclusive = true;
        spec_.maximum = maximum;
        return std::move(*this);
    }
    // Optional, `fallback` when absent; written even when it equals the fallback.
    Field&& optional(FieldValue fallback) && {
        spec_.required = false;
        spec_.fallback = std::move(fallback);
        return std::move(*this);
    }
    // Optional, and omitted from files when it equals `fallback`.
    Field&& omitted(FieldValue fallback) && {
        spec_.omit_default = true;
        return std::move(*this).optional(std::move(fallback));
    }
    Field&& unit(std::string text) && {
        spec_.unit = std::move(text);
        return std::move(*this);
    }
    Field&& tip(std::string text) && {
        spec_.tooltip = std::move(text);
        return std::move(*this);
    }
    Field&& unset(std::string text) && {
        spec_.unset_text = std::move(text);
        return std::move(*this);
    }
    Field&& shown(double scale, int decimals) && {
        spec_.display_scale = scale;
        spec_.decimals = decimals;
        return std::move(*this);
    }
    Field&& csv(std::string column) && {
        spec_.csv_column = std::move(column);
        return std::move(*this);
    }
    Field&& labels(std::vector<std::string> shownAs) && {
        for (std::size_t i = 0; i < shownAs.size() && i < spec_.choices.size(); ++i)
            spec_.choices[i].label = std::move(shownAs[i]);
        return std::move(*this);
    }
    Field&& choices(std::vector<FieldChoice> named) && {
        spec_.choices = std::move(named);
        return std::move(*this);
    }
    Field&& onlyWithMoe() && {
        spec_.applies = [](const Scenario& s) { return s.workload.model.moe.has_value(); };
        return std::move(*this);
    }
    // A field of a stage that exists only where the workload has it (workload.stages[data], ...).
    Field&& onlyWith(bool (*present)(const Scenario&)) && {
        spec_.applies = present;
        return std::move(*this);
    }
    template <typename Access>
    Field&& access(Access field) && {
        spec_.get = [field](const Scenario& s) { return valueOf(field(s)); };
        spec_.set = [field](Scenario& s, const FieldValue& v) { assign(field(s), v); };
        return std::move(*this);
    }
    FieldSpec take() && { return std::move(spec_); }

private:
    template <typename T>
    static FieldValue valueOf(const T& v) {
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> || std::is_same_v<T, std::string>)
            return v;
        else if constexpr (std::is_integral_v<T>)
            return static_cast<std::int64_t>(v);
        else if constexpr (std::is_same_v<T, std::optional<double>> ||
                           std::is_same_v<T, std::optional<std::int64_t>> ||
                           std::is_same_v<T, std::optional<std::string>>)
            return v ? FieldValue{*v} : FieldValue{};
        else
            return toString(v); // an enum, by its name
    }
    template <typename T>
    static void assign(T& target, const FieldValue& v) {
        if constexpr (std::is_same_v<T, bool>)
            target = std::get<bool>(v);
        else if constexpr (std::is_integral_v<T>)
            target = static_cast<T>(std::get<std::int64_t>(v));
        else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::string>)
            target = std::get<T>(v);
        else if constexpr (std::is_same_v<T, std::optional<double>>)
            target =
                std::holds_alternative<double>(v) ? std::optional<double>(std::get<double>(v)) : std::nullopt;
        else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>)
            target = std::holds_alternative<std::int64_t>(v)
                         ? std::optional<std::int64_t>(std::get<std::int64_t>(v))
                         : std::nullopt;
        else if constexpr (std::is_same_v<T, std::optional<std::string>>)
            target = std::holds_alternative<std::string>(v)
                         ? std::optional<std::string>(std::get<std::string>(v))
                         : std::nullopt;
        else // an enum: the choice whose name toString gives
            target = enumNamed<T>(std::get<std::string>(v));
    }
    template <typename Enum>
    static Enum enumNamed(const std::string& name) {
        for (int i = 0; i < 16; ++i)
            if (toString(static_cast<Enum>(i)) == name)
                return static_cast<Enum>(i);
        return Enum{};
    }

    FieldSpec spec_;
};

// The names of `values`, as files write them.
template <typename Enum>
std::vector<FieldChoice> named(std::initializer_list<Enum> values) {
    std::vector<FieldChoice> out;
    for (Enum v : values)
        out.push_back({toString(v), {}});
    return out;
}

Field count(std::string path, std::string group, std::string label, double maximum) {
    return std::move(Field(std::move(path), FieldKind::Count, std::move(group), std::move(label)))
        .range(1, maximum);
}
Field number(std::string path, std::string group, std::string label) {
    return {std::move(path), FieldKind::Number, std::move(group), std::move(label)};
}
Field flag(std::string path, std::string group, std::string label) {
    return {std::move(path), FieldKind::Flag, std::move(group), std::move(label)};
}
Field choice(std::string path, std::string group, std::string label, std::vector<FieldChoice> names) {
    return std::move(Field(std::move(path), FieldKind::Choice, std::move(group), std::move(label)))
        .choices(std::move(names));
}

constexpr double kMaxWidth = 10'000'000; // hidden and feed-forward widths
constexpr double kMaxExperts = 100'000;  // experts, top-k, shared experts
constexpr double kMaxParallel = 4'096;   // tp, pp, cp, etp
constexpr double kMaxSequences = 100'000'000;

void addModelFields(std::vector<FieldSpec>& t) {
    const std::string g = "Model";
    t.push_back(Field("workload.model.name", FieldKind::Text, g, "Name")
                    .access([](auto& s) -> auto& { return s.workload.model.name; })
                    .take());
    t.push_back(count("workload.model.layers", g, "Layers", 10'000)
                    .csv("layers")
                    .access([](auto& s) -> auto& { return s.workload.model.layers; })
                    .take());
    t.push_back(count("workload.model.hidden", g, "Hidden", 1'000'000)
                    .csv("hidden")
                    .access([](auto& s) -> auto& { return s.workload.model.hidden; })
                    .take());
    t.push_back(count("workload.model.heads", g, "Heads", kMaxExperts)
                    .csv("heads")
                    .access([](auto& s) -> auto& { return s.workload.model.heads; })
                    .take());
    t.push_back(count("workload.model.kv_heads", g, "KV heads", kMaxExperts)
                    .csv("kv_heads")
                    .access([](auto& s) -> auto& { return s.workload.model.kv_heads; })
                    .take());
    t.push_back(count("workload.model.ffn_hidden", g, "FFN hidden", kMaxWidth)
                    .csv("ffn_hidden")
                    .access([](auto& s) -> auto& { return s.workload.model.ffn_hidden; })
                    .take());
    t.push_back(flag("workload.model.ffn_gated", g, "gated (SwiGLU)")
                    .csv("ffn_gated")
                    .access([](auto& s) -> auto& { return s.workload.model.ffn_gated; })
                    .take());
    t.push_back(count("workload.model.vocab", g, "Vocabulary", kMaxSequences)
                    .csv("vocab")
                    .access([](auto& s) -> auto& { return s.workload.model.vocab; })
                    .take());
    t.push_back(count("workload.model.seq_len", g, "Sequence", kMaxSequences)
                    .csv("seq_len")
                    .access([](auto& s) -> auto& { return s.workload.model.seq_len; })
                    .take());
    t.push_back(count("workload.model.head_dim", g, "Head width", kMaxExperts)
                    .range(0, kMaxExperts)
                    .omitted(std::int64_t{0})
                    .unset("hidden / heads")
                    .csv("head_dim")
                    .tip("Width of one attention head, where the model sets it apart from hidden / heads "
                         "(Qwen3: 128, GPT-OSS: 64)")
                    .access([](auto& s) -> auto& { return s.workload.model.head_dim; })
                    .take());
    t.push_back(count("workload.model.kv_latent", g, "KV latent", kMaxExperts)
                    .range(0, kMaxExperts)
                    .omitted(std::int64_t{0})
                    .unset("per KV head")
                    .csv("kv_latent")
                    .tip("Multi-head latent attention: values cached per token and layer, one latent shared "
                         "by all heads (DeepSeek-V3: 512 + 64 = 576). Read by serving's KV cache and decode")
                    .access([](auto& s) -> auto& { return s.workload.model.kv_latent; })
                    .take());
    t.push_back(flag("workload.model.dropout", g, "dropout")
                    .omitted(true)
                    .tip("Hidden and attention dropout in training: its masks are kept for the backward "
                         "(GPT-3; off for Llama, Mixtral, DeepSeek-V3)")
                    .access([](auto& s) -> auto& { return s.workload.model.dropout; })
                    .take());
    t.push_back(flag("workload.model.tied_embeddings", g, "tied embeddings")
                    .omitted(false)
                    .csv("tied_embeddings")
                    .tip("The output layer reuses the input embedding's matrix (Llama 3.2 1B and 3B, Gemma): "
                         "one vocabulary x hidden matrix to hold, reduce and update instead of two")
                    .access([](auto& s) -> auto& { return s.workload.model.tied_embeddings; })
                    .take());
}

void addMoeFields(std::vector<FieldSpec>& t) {
    const std::string g = "Mixture of Experts";
    t.push_back(count("workload.model.moe.experts", g, "Experts", kMaxExperts)
                    .onlyWithMoe()
                    .access([](auto& s) -> auto& { return s.workload.model.moe->experts; })
                    .take());
    t.push_back(count("workload.model.moe.top_k", g, "Top-k", kMaxExperts)
                    .onlyWithMoe()
                    .tip("Experts each token is routed to")
                    .access([](auto& s) -> auto& { return s.workload.model.moe->top_k; })
                    .take());
    t.push_back(count("workload.model.moe.expert_ffn_hidden", g, "Expert FFN", kMaxWidth)
                    .onlyWithMoe()
                    .access([](auto& s) -> auto& { return s.workload.model.moe->expert_ffn_hidden; })
                    .take());
    t.push_back(count("workload.model.moe.shared_experts", g, "Shared", kMaxExperts)
                    .range(0, kMaxExperts)
                    .optional(std::int64_t{0})
                    .onlyWithMoe()
                    .tip("Experts every token goes through")
                    .access([](auto& s) -> auto& { return s.workload.model.moe->shared_experts; })
                    .take());
    t.push_back(count("workload.model.moe.dense_layers", g, "Dense layers", 10'000)
                    .range(0, 10'000)
                    .optional(std::int64_t{0})
                    .onlyWithMoe()
                    .tip("The first layers keep the dense feed-forward")
                    .access([](auto& s) -> auto& { return s.workload.model.moe->dense_layers; })
                    .take());
}

void addParallelFields(std::vector<FieldSpec>& t) {
    const std::string g = "Parallelism";
    t.push_back(count("workload.parallel.tp", g, "TP", kMaxParallel)
                    .csv("tp")
                    .tip("Tensor parallelism: each layer split over tp devices of one node")
                    .access([](auto& s) -> auto& { return s.workload.parallel.tp; })
                    .take());
    t.push_back(count("workload.parallel.pp", g, "PP", kMaxParallel)
                    .csv("pp")
                    .tip("Pipeline parallelism: the layers split into pp stages (1F1B schedule)")
                    .access([](auto& s) -> auto& { return s.workload.parallel.pp; })
                    .take());
    t.push_back(count("workload.parallel.dp", g, "DP", 10'000'000)
                    .csv("dp")
                    .tip("Data parallelism: dp replicas, each on tp*pp*cp devices")
                    .access([](auto& s) -> auto& { return s.workload.parallel.dp; })
                    .take());
    t.push_back(count("workload.parallel.vp", g, "VP", 1'024)
                    .optional(std::int64_t{1})
                    .csv("vp")
                    .tip("Model chunks per pipeline device; more than 1 interleaves the 1F1B schedule")
                    .access([](auto& s) -> auto& { return s.workload.parallel.vp; })
                    .take());
    t.push_back(count("workload.parallel.cp", g, "CP", kMaxParallel)
                    .optional(std::int64_t{1})
                    .csv("cp")
                    .tip("Context parallelism: each sequence split over cp devices (ring attention)")
                    .access([](auto& s) -> auto& { return s.workload.parallel.cp; })
                    .take());
    t.push_back(flag("workload.parallel.sequence_parallel", g, "sequence parallel")
                    .optional(false)
                    .csv("sp")
                    .tip("Norms and dropouts split over the tensor ranks along the sequence (Korthikanti "
                         "et al. 2022)")
                    .access([](auto& s) -> auto& { return s.workload.parallel.sequence_parallel; })
                    .take());
    t.push_back(count("workload.parallel.zero", g, "ZeRO", 3)
                    .range(0, 3)
                    .optional(std::int64_t{0})
                    .choices({{"0", "0 (none)"},
                              {"1", "1 (optimizer states)"},
                              {"2", "2 (+ gradients)"},
                              {"3", "3 (+ parameters)"}})
                    .csv("zero")
                    .tip("What the data-parallel ranks shard: optimizer states, then gradients, then "
                         "parameters")
                    .access([](auto& s) -> auto& { return s.workload.parallel.zero; })
                    .take());
    t.push_back(count("workload.parallel.ep", g, "EP", kMaxExperts)
                    .omitted(std::int64_t{1})
                    .csv("ep")
                    .tip("Expert parallelism (MoE only): each MoE layer's experts split over ep devices, "
                         "taken from the data- and context-parallel ranks (and the tensor ranks when Expert "
                         "TP is below TP)")
                    .access([](auto& s) -> auto& { return s.workload.parallel.ep; })
                    .take());
    t.push_back(count("workload.parallel.etp", g, "Expert TP", kMaxParallel)
                    .range(0, kMaxParallel)
                    .omitted(std::int64_t{0})
                    .unset("= TP")
                    .csv("etp")
                    .tip("Expert tensor parallelism (MoE only): each routed expert's matrices split over "
                         "etp of the tp tensor ranks; 1 folds the tensor ranks into expert ranks "
                         "(Megatron-Core --expert-tensor-parallel-size)")
                    .access([](auto& s) -> auto& { return s.workload.parallel.etp; })
                    .take());
}

// Megatron-Core's --recompute-modules, one flag each (Workload::RecomputeModules), with recompute
// "selective".
void addRecomputeModuleFields(std::vector<FieldSpec>& t) {
    const std::string g = "Training";
    const std::string p = "workload.recompute_modules.";
    t.push_back(
        flag(p + "core_attn", g, "recompute the attention core")
            .omitted(true)
            .tip("Selective recomputation: the attention core runs again in the backward (Megatron-Core "
                 "--recompute-modules core_attn, its default)")
            .access([](auto& s) -> auto& { return s.workload.recompute_modules.core_attn; })
            .take());
    t.push_back(flag(p + "layernorm", g, "recompute the norms")
                    .omitted(false)
                    .tip("Selective recomputation: the two norms' outputs are dropped after use and computed "
                         "again in the backward (--recompute-modules layernorm)")
                    .access([](auto& s) -> auto& { return s.workload.recompute_modules.layernorm; })
                    .take());
    t.push_back(
        flag(p + "mlp", g, "recompute the dense MLP")
            .omitted(false)
            .tip("Selective recomputation: the dense layers' MLP keeps only its input and runs again in "
                 "the backward (--recompute-modules mlp)")
            .access([](auto& s) -> auto& { return s.workload.recompute_modules.mlp; })
            .take());
    t.push_back(flag(p + "moe", g, "recompute the MoE layer")
                    .omitted(false)
                    .tip("Selective recomputation, MoE only: the MoE layer keeps only its input; its router, "
                         "all-to-alls and experts run again in the backward (--recompute-modules moe)")
                    .access([](auto& s) -> auto& { return s.workload.recompute_modules.moe; })
                    .take());
    t.push_back(flag(p + "moe_act", g, "recompute the experts' activation")
                    .omitted(false)
                    .tip("Selective recomputation, MoE only: the routed experts' activation function output "
                         "is dropped after use and computed again (--recompute-modules moe_act)")
                    .access([](auto& s) -> auto& { return s.workload.recompute_modules.moe_act; })
                    .take());
    t.push_back(
        flag(p + "shared_experts", g, "recompute the shared experts")
            .omitted(false)
            .tip("Selective recomputation, MoE only: the shared experts keep only their input and run "
                 "again in the backward (--recompute-modules shared_experts)")
            .access([](auto& s) -> auto& { return s.workload.recompute_modules.shared_experts; })
            .take());
}

void addTrainingChoices(std::vector<FieldSpec>& t) {
    const std::string g = "Training";
    t.push_back(
        choice("workload.recompute", g, "Recompute",
               named({Recompute::None, Recompute::Selective, Recompute::Full, Recompute::SelectiveOps}))
            .tip("Activations recomputed in the backward instead of kept: none, the attention core "
                 "(selective), the whole layer (full), or every op but the matmuls (selective-ops)")
            .access([](auto& s) -> auto& { return s.workload.recompute; })
            .take());
    addRecomputeModuleFields(t);
    t.push_back(
        choice("workload.attention", g, "Attention",
               named({AttentionKernel::Fused, AttentionKernel::Unfused, AttentionKernel::Flash2}))
            .labels({"fused (best kernel)", "unfused (scores in memory)", "FlashAttention-2"})
            .omitted(std::string("fused"))
            .tip("Fused: scores never leave the chip, the device's best kernel. Unfused: the b × heads × s "
                 "× s scores are written and read back, as Megatron-LM did before 2022. FlashAttention-2: "
                 "fused, with the kernels PyTorch's SDPA runs by default, slower on Hopper")
            .access([](auto& s) -> auto& { return s.workload.attention; })
            .take());
    t.push_back(choice("workload.gradient_accumulation", g, "Accumulation",
                       named({GradientAccumulation::Fused, GradientAccumulation::Separate}))
                    .omitted(std::string("fused"))
                    .tip("How each micro-batch's weight gradients reach the gradient buffer. Fused: the "
                         "weight-gradient GEMM accumulates into it (Megatron-LM since 2022, NeMo). "
                         "Separate: an add kernel per parameter tensor reads the gradient and the buffer "
                         "and writes the buffer (PyTorch autograd, Megatron-LM of 2021)")
                    .access([](auto& s) -> auto& { return s.workload.gradient_accumulation; })
                    .take());
    t.push_back(
        choice("workload.ep_dispatcher", g, "Expert dispatcher",
               named({EpDispatcher::AllToAll, EpDispatcher::DeepEp}))
            .labels({"all-to-all (NCCL)", "DeepEP / HybridEP"})
            .omitted(std::string("alltoall"))
            .csv("ep_dispatcher")
            .tip("MoE with expert parallelism. All-to-all: every token-expert pair is sent "
                 "(Megatron-Core's alltoall dispatcher). DeepEP / HybridEP: a token goes once to each "
                 "device holding its experts, and once to another node, forwarded there over the "
                 "scale-up fabric (Megatron-Core's flex dispatcher)")
            .access([](auto& s) -> auto& { return s.workload.ep_dispatcher; })
            .take());
    t.push_back(choice("workload.zero3_engine", g, "ZeRO-3 engine",
                       named({Zero3Engine::Layered, Zero3Engine::DeepSpeed2021}))
                    .omitted(std::string("layered"))
                    .tip("Layered: parameters gathered a layer ahead (FSDP, Megatron-Core). DeepSpeed 2021: "
                         "module by module, synchronised, as DeepSpeed's stage 3 of 2021")
                    .access([](auto& s) -> auto& { return s.workload.zero3_engine; })
                    .take());
    t.push_back(
        choice("workload.fp8_recipe", g, "fp8 scaling", named({Fp8Recipe::Delayed, Fp8Recipe::Current}))
            .omitted(std::string("delayed"))
            .tip("Transformer Engine's recipe: delayed scaling from the amax history, or current "
                 "scaling with an amax pass per cast (ignored outside fp8)")
            .access([](auto& s) -> auto& { return s.workload.fp8_recipe; })
            .take());
    t.push_back(choice("workload.master_weights", g, "Master weights",
                       named({MasterWeights::Fp32, MasterWeights::Remainders}))
                    .omitted(std::string("fp32"))
                    .tip("fp32 master weights beside the 16-bit ones, or only the 16-bit remainders "
                         "(NeMo's distributed optimizer with bf16 working weights)")
                    .access([](auto& s) -> auto& { return s.workload.master_weights; })
                    .take());
    t.push_back(
        Field("workload.framework", FieldKind::Text, g, "Framework")
            .omitted(std::string())
            .csv("framework")
            .tip("The training framework (megatron, nemo, deepspeed, maxtext, torchtitan, llm-foundry): "
                 "its catalog profile sets the kernels and overlaps that release used "
                 "(assets/catalog/frameworks.json); empty: the fields as written")
            .access([](auto& s) -> auto& { return s.workload.framework; })
            .take());
    t.push_back(Field("workload.framework_version", FieldKind::Text, g, "Framework release")
                    .omitted(std::string())
                    .csv("framework_version")
                    .tip("The framework release's month, YYYY-MM (a container 24.07 is 2024-07); empty: the "
                         "newest profile")
                    .access([](auto& s) -> auto& { return s.workload.framework_version; })
                    .take());
}

void addTrainingFields(std::vector<FieldSpec>& t) {
    const std::string g = "Training";
    t.push_back(
        choice("workload.kind", g, "Workload", named({WorkloadKind::Train, WorkloadKind::Serve}))
            .labels({"training", "serving only"})
            .omitted(std::string("train"))
            .tip("Training (the step, and the model's serving beside it when a serve stage is given), or "
                 "serving alone: then the training fields do not apply and a serve stage is required")
            .access([](auto& s) -> auto& { return s.workload.kind; })
            .take());
    t.push_back(count("workload.global_batch", g, "Global batch", kMaxSequences)
                    .csv("global_batch")
                    .tip("Sequences per optimizer step")
                    .access([](auto& s) -> auto& { return s.workload.global_batch; })
                    .take());
    t.push_back(count("workload.micro_batch", g, "Micro-batch", 1'000'000)
                    .csv("micro_batch")
                    .tip("Sequences per micro-batch")
                    .access([](auto& s) -> auto& { return s.workload.micro_batch; })
                    .take());
    t.push_back(number("workload.tokens_to_train", g, "Tokens")
                    .above(0, 1e16)
                    .unit(" B tokens")
                    .shown(1e9, 1)
                    .tip("Tokens to train, in billions")
                    .access([](auto& s) -> auto& { return s.workload.tokens_to_train; })
                    .take());
    t.push_back(
        choice("workload.precision", g, "Precision",
               named({Precision::Bf16, Precision::Fp16, Precision::Fp8, Precision::Fp4, Precision::Int8}))
            .tip("The GEMMs' input precision; master weights and optimizer states stay fp32")
            .access([](auto& s) -> auto& { return s.workload.precision; })
            .take());
}

void addOverlapFields(std::vector<FieldSpec>& t) {
    const std::string g = "Communication overlap";
    t.push_back(flag("workload.overlap.tp_comm", g, "overlap TP communication")
                    .omitted(false)
                    .tip("Tensor-parallel collectives pipelined with the GEMMs they feed (Megatron-Core "
                         "--tp-comm-overlap, NeMo ub_tp_comm_overlap): only the last of 4 splits waits")
                    .access([](auto& s) -> auto& { return s.workload.overlap.tp_comm; })
                    .take());
    t.push_back(flag("workload.overlap.param_gather", g, "overlap parameter gather")
                    .omitted(false)
                    .tip("ZeRO 1/2: the parameter all-gather runs beside the next step's first forward "
                         "instead of after the optimizer (--overlap-param-gather)")
                    .access([](auto& s) -> auto& { return s.workload.overlap.param_gather; })
                    .take());
    t.push_back(flag("workload.overlap.grad_reduce", g, "overlap gradient reduction")
                    .omitted(true)
                    .tip("Data-parallel gradient reduction in buckets during the last backward (PyTorch "
                         "DDP, Megatron-Core); off: after the whole backward (Megatron-LM 2021)")
                    .access([](auto& s) -> auto& { return s.workload.overlap.grad_reduce; })
                    .take());
    t.push_back(flag("workload.overlap.ep_comm", g, "overlap expert all-to-all")
                    .omitted(false)
                    .csv("ep_overlap")
                    .tip("MoE with expert parallelism: one micro-batch's dispatch and combine all-to-alls "
                         "run beside another's computation (Megatron-Core "
                         "--overlap-moe-expert-parallel-comm, combined 1F1B); with pipeline parallelism it "
                         "needs interleaving")
                    .access([](auto& s) -> auto& { return s.workload.overlap.ep_comm; })
                    .take());
    t.push_back(count("workload.activation_offload_layers", "Training", "Offloaded layers", 10'000)
                    .range(0, 10'000)
                    .omitted(std::int64_t{0})
                    .unset("none")
                    .csv("offload_layers")
                    .tip("Layers whose activations go to host memory during the forward and come back for "
                         "the backward (Megatron-Core's CPU offloading; needs PP 1 and no recomputation)")
                    .access([](auto& s) -> auto& { return s.workload.activation_offload_layers; })
                    .take());
}

constexpr double kMaxLinkGbps = 100'000; // a device's NIC or a network link, one direction (100 Tb/s)
constexpr double kMaxLatencyUs = 100'000;
constexpr double kMaxSwitches = 1'000'000; // nodes under a leaf, ports, groups, routers, links

// The network between and inside nodes (cluster.network). Unset figures come from the training device's
// catalog entry or the topology's defaults (models/topology.h, docs/topology.md); the 3D torus's dims (an
// array) are read by hand. The desktop's network box shows them with the catalog's figures beside; the
// report's Network row is this table's, and its "Links (catalog)" row the figures left to the catalog.
void addNetworkFields(std::vector<FieldSpec>& t) {
    const std::string g = "Network";
    const std::string p = "cluster.network.";
    const auto optionalNumber = [&](const std::string& path, std::string label) {
        return Field(p + path, FieldKind::OptionalNumber, g, std::move(label)).optional({}).unset("default");
    };
    const auto optionalCount = [&](const std::string& path, std::string label) {
        return count(p + path, g, std::move(label), kMaxSwitches).optional({}).unset("default");
    };
    t.push_back(Field(p + "scale_up.fabric", FieldKind::Text, g, "Scale-up fabric")
                    .optional({})
                    .unset("catalog")
                    .tip("The fabric inside a node (NVLink, Infinity Fabric, PCIe); unset: the training "
                         "device's")
                    .access([](auto& s) -> auto& { return s.cluster.network.scale_up.fabric; })
                    .take());
    t.push_back(optionalNumber("scale_up.bandwidth_GBps", "Scale-up bandwidth")
                    .above(0, kMaxLinkGbps)
                    .unit(" GB/s")
                    .unset("catalog")
                    .tip("Per device, one direction; unset: the training device's")
                    .access([](auto& s) -> auto& { return s.cluster.network.scale_up.bandwidth_GBps; })
                    .take());
    t.push_back(optionalNumber("scale_up.latency_us", "Scale-up latency")
                    .range(0, kMaxLatencyUs)
                    .unit(" µs")
                    .shown(1, 2)
                    .unset("catalog")
                    .access([](auto& s) -> auto& { return s.cluster.network.scale_up.latency_us; })
                    .take());
    t.push_back(optionalNumber("nic_Gbps", "NIC per device")
                    .above(0, kMaxLinkGbps)
                    .unit(" Gb/s")
                    .unset("catalog")
                    .tip("Scale-out bandwidth per device, one direction; unset: the training device's")
                    .access([](auto& s) -> auto& { return s.cluster.network.nic_Gbps; })
                    .take());
    t.push_back(choice(p + "topology.kind", g, "Topology",
                       named({TopologyKind::FatTree, TopologyKind::RailFatTree, TopologyKind::SingleSwitch,
                              TopologyKind::Dragonfly, TopologyKind::Torus3d}))
                    .tip("How nodes are wired (docs/topology.md)")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.kind; })
                    .take());
    t.push_back(number(p + "topology.oversubscription", g, "Oversubscription")
                    .range(1, 1'000)
                    .optional(1.0)
                    .unit(" : 1")
                    .shown(1, 2)
                    .tip("Leaf downlink to uplink bandwidth; 1 is non-blocking")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.oversubscription; })
                    .take());
    t.push_back(optionalCount("topology.nodes_per_leaf", "Nodes per leaf")
                    .unset("default (" + std::to_string(kDefaultNodesPerLeaf) + ")")
                    .tip("Servers under one leaf switch (fat trees); unset: " +
                         std::to_string(kDefaultNodesPerLeaf) + ", fewer where the radix needs")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.nodes_per_leaf; })
                    .take());
    t.push_back(optionalNumber("topology.latency_us", "Switch hop latency")
                    .range(0, kMaxLatencyUs)
                    .unit(" µs")
                    .shown(1, 2)
                    .unset("default (" + formatNumber(kDefaultSwitchLatencyUs) + " µs)")
                    .tip("One switch hop")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.latency_us; })
                    .take());
    t.push_back(optionalCount("topology.tiers", "Switch tiers")
                    .range(2, 3)
                    .unset("2, or 3 where the leaves outnumber a switch's ports")
                    .tip("Switch tiers of a rail-optimised fat tree: 2 or 3")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.tiers; })
                    .take());
    t.push_back(optionalCount("topology.radix", "Switch radix")
                    .unset("default (" + std::to_string(kDefaultSwitchRadix) + ")")
                    .tip("Ports per switch")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.radix; })
                    .take());
    t.push_back(optionalCount("topology.groups", "Groups")
                    .unset("none (a dragonfly needs it)")
                    .tip("Dragonfly groups")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.groups; })
                    .take());
    t.push_back(optionalCount("topology.routers_per_group", "Routers per group")
                    .unset("none (a dragonfly needs it)")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.routers_per_group; })
                    .take());
    t.push_back(
        optionalCount("topology.global_links_per_router", "Global links per router")
            .unset("a router's terminals, or what joins every group")
            .tip("Dragonfly links between groups")
            .access([](auto& s) -> auto& { return s.cluster.network.topology.global_links_per_router; })
            .take());
    t.push_back(optionalNumber("topology.link_Gbps", "Link bandwidth")
                    .above(0, kMaxLinkGbps)
                    .unit(" Gb/s")
                    .unset("the NIC's")
                    .tip("Dragonfly and torus links, one direction; unset: the NIC's")
                    .access([](auto& s) -> auto& { return s.cluster.network.topology.link_Gbps; })
                    .take());
}

void addCostFields(std::vector<FieldSpec>& t) {
    const std::string g = "Costs";
    t.push_back(
        choice("costs.mode", g, "Cost model", named({CostMode::Rent, CostMode::Buy}))
            .labels({"rent (power and cooling in the hourly price)", "buy (amortised, plus electricity)"})
            .access([](auto& s) -> auto& { return s.costs.mode; })
            .take());
    t.push_back(Field("costs.rent_usd_per_device_hour", FieldKind::OptionalNumber, g, "Rent per device-hour")
                    .above(0, 100'000)
                    .optional({})
                    .unit(" $/h")
                    .unset("catalog")
                    .shown(1, 2)
                    .tip("Scenario-wide rent per device-hour; unset, each pool's or the catalog's")
                    .access([](auto& s) -> auto& { return s.costs.rent_usd_per_device_hour; })
                    .take());
    t.push_back(Field("costs.provider", FieldKind::Text, g, "Provider")
                    .omitted(std::string())
                    .tip("Renting: the cloud whose on-demand prices the pools take (aws, gcp, azure, lambda, "
                         "...; assets/catalog/providers.json), under any price set here or on a pool; empty: "
                         "the catalog's rent prices")
                    .access([](auto& s) -> auto& { return s.costs.provider; })
                    .take());
    t.push_back(Field("costs.buy_usd_per_device", FieldKind::OptionalNumber, g, "Purchase per device")
                    .above(0, 1e9)
                    .optional({})
                    .unit(" $")
                    .unset("catalog")
                    .tip("Scenario-wide purchase price per device; unset, each pool's or the catalog's")
                    .access([](auto& s) -> auto& { return s.costs.buy_usd_per_device; })
                    .take());
    t.push_back(number("costs.amortisation_years", g, "Amortisation")
                    .above(0, 100)
                    .unit(" years")
                    .shown(1, 1)
                    .tip("Years over which a purchase is written off")
                    .access([](auto& s) -> auto& { return s.costs.amortisation_years; })
                    .take());
    t.push_back(number("costs.electricity_usd_per_kWh", g, "Electricity")
                    .range(0, 100)
                    .unit(" $/kWh")
                    .shown(1, 3)
                    .access([](auto& s) -> auto& { return s.costs.electricity_usd_per_kWh; })
                    .take());
    t.push_back(number("costs.pue", g, "PUE")
                    .range(1, 4)
                    .shown(1, 2)
                    .tip("Power usage effectiveness: facility power over IT power")
                    .access([](auto& s) -> auto& { return s.costs.pue; })
                    .take());
    t.push_back(
        Field("costs.site_power_MW", FieldKind::OptionalNumber, g, "Site power")
            .above(0, 100'000)
            .optional({})
            .unit(" MW")
            .unset("no cap")
            .shown(1, 2)
            .tip("The power the site has for this cluster, at the facility (PUE included): the result "
                 "says whether every pool at its rated power fits, and how many training devices do")
            .access([](auto& s) -> auto& { return s.costs.site_power_MW; })
            .take());
}

bool hasDataStage(const Scenario& s) {
    return s.workload.data.has_value();
}

bool hasEvalStage(const Scenario& s) {
    return s.workload.eval.has_value();
}

// The data stage (workload.stages[data]): what a sample holds, where it is read from, how it is prepared.
// Its pool is read by hand (a pool's name).
void addDataStageFields(std::vector<FieldSpec>& t) {
    const std::string g = "Data stage";
    const std::string p = "workload.stages[data].";
    t.push_back(choice(p + "modality", g, "Modality",
                       named({Modality::Text, Modality::Image, Modality::Video, Modality::Audio}))
                    .tip("What a sample holds: text is tokenised; images and video frames are decoded and "
                         "augmented; audio is decoded to a log-mel spectrogram")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->modality; })
                    .take());
    t.push_back(Field(p + "storage", FieldKind::Text, g, "Storage")
                    .optional(std::string("parallel-fs"))
                    .tip("The catalog's storage tier the samples are read from: local-nvme, parallel-fs or "
                         "object-store")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->storage; })
                    .take());
    t.push_back(Field(p + "stored_bytes_per_sample", FieldKind::OptionalNumber, g, "Stored")
                    .above(0, 1e12)
                    .optional({})
                    .unit(" B")
                    .unset("typical")
                    .shown(1, 0)
                    .tip("Bytes read from storage a sample; unset: 4 bytes a text token, 110 kB an image "
                         "(the mean ImageNet JPEG); required for video and audio")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->stored_bytes_per_sample; })
                    .take());
    t.push_back(number(p + "items_per_sample", g, "Items")
                    .above(0, 1e6)
                    .optional(1.0)
                    .shown(1, 1)
                    .tip("Images, video frames or seconds of audio decoded a sample (not for text)")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->items_per_sample; })
                    .take());
    t.push_back(count(p + "image_px", g, "Image side", 65'536)
                    .optional(std::int64_t{224})
                    .unit(" px")
                    .tip("Side of a decoded, augmented image or frame: sets the bytes handed to the devices")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->image_px; })
                    .take());
    t.push_back(count(p + "text_tokens_per_sample", g, "Text tokens", kMaxSequences)
                    .range(0, kMaxSequences)
                    .optional({})
                    .unset("seq_len (text)")
                    .tip("Tokens of text tokenised a sample; unset: the sequence length for text, none "
                         "otherwise")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->text_tokens_per_sample; })
                    .take());
    t.push_back(count(p + "prefetch_batches", g, "Prefetch", 1'000)
                    .optional(std::int64_t{2})
                    .unit(" batches")
                    .tip("Prepared batches the queue between the data stage and the training holds (in the "
                         "CPUs' memory)")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->prefetch_batches; })
                    .take());
    t.push_back(Field(p + "loader_samples_per_s", FieldKind::OptionalNumber, g, "Loader ceiling")
                    .above(0, 1e9)
                    .optional({})
                    .unit(" samples/s")
                    .unset("none")
                    .tip("The most samples a second one loader delivers, however many workers it has (one "
                         "loader per training device). PyTorch's DataLoader with PIL on ImageNet stops near "
                         "3,950 images/s (FFCV's benchmark, 24 to 96 cores); unset: no ceiling")
                    .onlyWith(hasDataStage)
                    .access([](auto& s) -> auto& { return s.workload.data->loader_samples_per_s; })
                    .take());
}

// The evaluation stage (workload.stages[eval]); its pool is read by hand.
void addEvalStageFields(std::vector<FieldSpec>& t) {
    const std::string g = "Evaluation";
    const std::string p = "workload.stages[eval].";
    t.push_back(count(p + "every_steps", g, "Every", 1e9)
                    .optional(std::int64_t{1000})
                    .unit(" steps")
                    .tip("Training steps between two evaluations")
                    .onlyWith(hasEvalStage)
                    .access([](auto& s) -> auto& { return s.workload.eval->every_steps; })
                    .take());
    t.push_back(count(p + "samples", g, "Samples", kMaxSequences)
                    .range(0, kMaxSequences)
                    .omitted(std::int64_t{0})
                    .unset("one batch")
                    .tip("Sequences one evaluation runs forward; unset: one global batch")
                    .onlyWith(hasEvalStage)
                    .access([](auto& s) -> auto& { return s.workload.eval->samples; })
                    .take());
}

// Failures, checkpoints and restarts over the whole run (models/reliability.h).
void addReliabilityFields(std::vector<FieldSpec>& t) {
    const std::string g = "Failures and checkpoints";
    const std::string p = "workload.reliability.";
    t.push_back(
        flag(p + "failures", g, "model failures")
            .omitted(true)
            .tip("Interruptions at the catalog's published rates for the training device, checkpoints "
                 "and restarts; off: the ideal time to train")
            .access([](auto& s) -> auto& { return s.workload.reliability.failures; })
            .take());
    t.push_back(number(p + "checkpoint_interval_s", g, "Checkpoint every")
                    .range(0, 1e9)
                    .omitted(0.0)
                    .unit(" s")
                    .unset("Young/Daly")
                    .shown(1, 0)
                    .tip("Training time between two checkpoints, rounded to whole steps; 0: Young and Daly's "
                         "optimum for the failure rate")
                    .access([](auto& s) -> auto& { return s.workload.reliability.checkpoint_interval_s; })
                    .take());
    t.push_back(flag(p + "async_checkpoint", g, "asynchronous checkpoints")
                    .omitted(false)
                    .tip("The training waits only for the copy to host memory; the write to storage runs "
                         "behind it")
                    .access([](auto& s) -> auto& { return s.workload.reliability.async_checkpoint; })
                    .take());
    t.push_back(Field(p + "checkpoint_storage", FieldKind::Text, g, "Checkpoint storage")
                    .omitted(std::string("parallel-fs"))
                    .tip("The catalog's storage tier checkpoints are written to and read from: local-nvme, "
                         "parallel-fs or object-store")
                    .access([](auto& s) -> auto& { return s.workload.reliability.checkpoint_storage; })
                    .take());
    t.push_back(Field(p + "checkpoint_GBps", FieldKind::OptionalNumber, g, "Checkpoint bandwidth")
                    .above(0, 1e7)
                    .optional({})
                    .unit(" GB/s")
                    .unset("the tier's")
                    .shown(1, 0)
                    .tip("What the whole cluster writes (and reads back) a checkpoint at; unset: the storage "
                         "tier's per-node rate times the nodes, up to its ceiling")
                    .access([](auto& s) -> auto& { return s.workload.reliability.checkpoint_GBps; })
                    .take());
    t.push_back(Field(p + "detection_s", FieldKind::OptionalNumber, g, "Detection")
                    .range(0, 1e7)
                    .optional({})
                    .unit(" s")
                    .unset("catalog")
                    .shown(1, 0)
                    .tip("From a fault until the job is known to have stopped; unset: the failure profile's")
                    .access([](auto& s) -> auto& { return s.workload.reliability.detection_s; })
                    .take());
    t.push_back(Field(p + "restart_s", FieldKind::OptionalNumber, g, "Restart")
                    .range(0, 1e7)
                    .optional({})
                    .unit(" s")
                    .unset("catalog")
                    .shown(1, 0)
                    .tip("Rescheduling and initialising the job, before its checkpoint is read; unset: the "
                         "failure profile's")
                    .access([](auto& s) -> auto& { return s.workload.reliability.restart_s; })
                    .take());
    t.push_back(number(p + "failure_rate_scale", g, "Failure rate")
                    .above(0, 1000)
                    .omitted(1.0)
                    .unit(" x catalog")
                    .shown(1, 2)
                    .tip("Multiplies every cause's published rate (a what-if; 0.5 halves the interruptions)")
                    .access([](auto& s) -> auto& { return s.workload.reliability.failure_rate_scale; })
                    .take());
    t.push_back(count(p + "hot_spare_nodes", g, "Hot spare nodes", 100'000)
                    .range(0, 100'000)
                    .omitted(std::int64_t{0})
                    .tip("Nodes held ready beside the training pool, billed like it and idle: a device's or "
                         "node's fault restarts onto one instead of requeueing the job")
                    .access([](auto& s) -> auto& { return s.workload.reliability.hot_spare_nodes; })
                    .take());
    t.push_back(count(p + "trials", g, "Monte Carlo runs", 100'000)
                    .omitted(std::int64_t{1000})
                    .tip("Runs of the whole training drawn for the spread of the time to train")
                    .access([](auto& s) -> auto& { return s.workload.reliability.trials; })
                    .take());
    t.push_back(count(p + "seed", g, "Seed", 1e9)
                    .range(0, 1e9)
                    .omitted(std::int64_t{1})
                    .tip("The Monte Carlo's draws: the same seed gives the same figures")
                    .access([](auto& s) -> auto& { return s.workload.reliability.seed; })
                    .take());
}

// Fields of the training step alone: a serving workload (workload.kind "serve") neither needs nor takes them.
void markTrainingOnly(std::vector<FieldSpec>& t) {
    const std::vector<std::string> prefixes = {"workload.parallel.", "workload.overlap.",
                                               "workload.reliability.", "workload.recompute_modules."};
    const std::vector<std::string> paths = {"workload.recompute",
                                            "workload.attention",
                                            "workload.gradient_accumulation",
                                            "workload.zero3_engine",
                                            "workload.ep_dispatcher",
                                            "workload.fp8_recipe",
                                            "workload.master_weights",
                                            "workload.framework",
                                            "workload.framework_version",
                                            "workload.global_batch",
                                            "workload.micro_batch",
                                            "workload.tokens_to_train",
                                            "workload.precision",
                                            "workload.activation_offload_layers",
                                            "workload.model.seq_len",
                                            "workload.model.dropout"};
    for (auto& field : t) {
        const bool training = std::find(paths.begin(), paths.end(), field.path) != paths.end() ||
                              std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& prefix) {
                                  return field.path.rfind(prefix, 0) == 0;
                              });
        if (!training)
            continue;
        field.applies = [](const Scenario& s) { return s.workload.trains(); };
        field.inapplicable = "only for training workloads (workload.kind is \"serve\")";
    }
}

// Fields inside an object a scenario may lack (the MoE shape, a stage) read as unset and ignore a value
// where it does not apply, rather than reach into an empty optional.
void guardOptionalObjects(std::vector<FieldSpec>& t) {
    for (auto& field : t) {
        if (!field.applies || (field.path.find("stages[") == std::string::npos &&
                               field.path.find(".moe.") == std::string::npos))
            continue;
        field.get = [get = field.get, applies = field.applies](const Scenario& s) {
            return applies(s) ? get(s) : FieldValue{};
        };
        field.set = [set = field.set, applies = field.applies](Scenario& s, const FieldValue& v) {
            if (applies(s))
                set(s, v);
        };
    }
}

std::vector<FieldSpec> buildTable() {
    std::vector<FieldSpec> t;
    addModelFields(t);
    addMoeFields(t);
    addTrainingFields(t);
    addParallelFields(t);
    addTrainingChoices(t);
    addOverlapFields(t);
    addDataStageFields(t);
    addEvalStageFields(t);
    addReliabilityFields(t);
    addNetworkFields(t);
    addCostFields(t);
    markTrainingOnly(t);
    guardOptionalObjects(t);
    return t;
}

std::string formatLimit(double value) {
    if (std::abs(value) >= 1e6 && std::floor(value) == value && value < 9.2e18)
        return std::to_string(static_cast<std::int64_t>(value));
    return formatNumber(value);
}

FieldValue jsonToValue(const FieldSpec& field, JsonReader& r, const Json& object, const std::string& path) {
    const std::string name = field.key();
    const char* key = name.c_str();
    const bool required = field.required;
    switch (field.kind) {
    case FieldKind::Count: {
        if (auto v = r.integer(object, path, key, static_cast<std::int64_t>(field.minimum), required))
            return *v;
        return {};
    }
    case FieldKind::Number:
    case FieldKind::OptionalNumber:
        if (auto v = r.signedNumber(object, path, key, required && field.kind == FieldKind::Number))
            return *v;
        return {};
    case FieldKind::Flag:
        if (auto v = r.boolean(object, path, key, required))
            return *v;
        return {};
    case FieldKind::Text:
    case FieldKind::Choice:
        if (auto v = r.text(object, path, key, required))
            return *v;
        return {};
    }
    return {};
}

} // namespace

std::string FieldSpec::parentPath() const {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string FieldSpec::key() const {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string FieldSpec::describe(const Scenario& s) const {
    if (!appliesTo(s))
        return {};
    const FieldValue v = get(s);
    if (std::holds_alternative<std::monostate>(v))
        return unset_text;
    if (const auto* n = std::get_if<std::int64_t>(&v)) {
        // A count whose default is a value of its range (0: none) reads as the unset text there.
        if (*n == static_cast<std::int64_t>(minimum) && !unset_text.empty() && !required &&
            !std::holds_alternative<std::monostate>(fallback))
            return unset_text;
        return std::to_string(*n) + unit;
    }
    if (const auto* d = std::get_if<double>(&v))
        return formatNumber(*d / display_scale) + unit;
    if (const auto* b = std::get_if<bool>(&v))
        return *b ? "on" : "off";
    const std::string& name = std::get<std::string>(v);
    for (const auto& c : choices)
        if (c.name == name && !c.label.empty())
            return c.label;
    return name;
}

const std::vector<FieldSpec>& scenarioFields() {
    static const std::vector<FieldSpec> table = buildTable();
    return table;
}

std::vector<std::string> fieldGroups() {
    std::vector<std::string> groups;
    for (const auto& f : scenarioFields())
        if (std::find(groups.begin(), groups.end(), f.group) == groups.end())
            groups.push_back(f.group);
    return groups;
}

const FieldSpec* findField(std::string_view path) {
    for (const auto& f : scenarioFields())
        if (f.path == path)
            return &f;
    return nullptr;
}

int fieldIndex(const FieldSpec& field) {
    return static_cast<int>(&field - scenarioFields().data());
}

std::vector<std::string> fieldKeysOf(std::string_view objectPath) {
    std::vector<std::string> keys;
    const std::string prefix = std::string(objectPath) + ".";
    for (const auto& f : scenarioFields()) {
        if (f.path.rfind(prefix, 0) != 0)
            continue;
        const std::string rest = f.path.substr(prefix.size());
        const std::string key = rest.substr(0, rest.find('.'));
        if (key.find('[') != std::string::npos)
            continue; // an array's entry (a stage): read by its own reader
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
            keys.push_back(key);
    }
    return keys;
}

std::string fieldKeysListed(std::string_view objectPath) {
    std::string listed;
    for (const auto& key : fieldKeysOf(objectPath)) {
        if (!listed.empty())
            listed += ", ";
        listed += key;
    }
    return listed;
}

std::string checkFieldValue(const FieldSpec& field, const FieldValue& value) {
    double v = 0.0;
    if (const auto* n = std::get_if<std::int64_t>(&value))
        v = static_cast<double>(*n);
    else if (const auto* d = std::get_if<double>(&value))
        v = *d;
    else if (const auto* text = std::get_if<std::string>(&value); text && field.kind == FieldKind::Choice) {
        std::string known;
        for (const auto& c : field.choices) {
            if (c.name == *text)
                return {};
            known += (known.empty() ? "" : ", ") + c.name;
        }
        std::string noun = field.label;
        std::transform(noun.begin(), noun.end(), noun.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        return "unknown " + noun + " \"" + *text + "\" (known: " + known + ")";
    } else
        return {};
    if (field.minimum_exclusive && v <= field.minimum)
        return "must be greater than " + formatLimit(field.minimum) + ", got " + formatLimit(v);
    if (!field.minimum_exclusive && v < field.minimum)
        return (field.minimum == 0.0 && field.kind != FieldKind::Count
                    ? std::string("must not be negative")
                    : "must be at least " + formatLimit(field.minimum)) +
               ", got " + formatLimit(v);
    if (field.maximum > 0.0 && v > field.maximum)
        return "must be at most " + formatLimit(field.maximum) + ", got " + formatLimit(v);
    return {};
}

void readFields(JsonReader& r, const Json& object, const std::string& objectPath, Scenario& s,
                const std::string& shownPath) {
    const std::string& shown = shownPath.empty() ? objectPath : shownPath;
    for (const auto& field : scenarioFields()) {
        if (field.parentPath() != objectPath)
            continue;
        const std::string key = field.key();
        if (!field.appliesTo(s)) {
            if (object.contains(key) && !field.inapplicable.empty())
                r.error(JsonReader::join(shown, key.c_str()), field.inapplicable);
            continue;
        }
        if (!object.contains(key)) {
            if (!field.required && !std::holds_alternative<std::monostate>(field.fallback))
                field.set(s, field.fallback);
            else if (field.required) // records "missing required field"
                jsonToValue(field, r, object, shown);
            continue;
        }
        const FieldValue value = jsonToValue(field, r, object, shown);
        if (std::holds_alternative<std::monostate>(value))
            continue; // the reader recorded why
        if (std::string problem = checkFieldValue(field, value); !problem.empty()) {
            r.error(JsonReader::join(shown, key.c_str()), problem);
            continue;
        }
        field.set(s, value);
    }
}

void writeFields(Json& doc, std::string_view prefix, const Scenario& s) {
    const std::string start = std::string(prefix) + ".";
    for (const auto& field : scenarioFields()) {
        if (field.path.rfind(start, 0) != 0 || !field.appliesTo(s) ||
            field.path.find('[', start.size()) != std::string::npos) // a stage's, written with its stage
            continue;
        const FieldValue value = field.get(s);
        if (std::holds_alternative<std::monostate>(value) || (field.omit_default && value == field.fallback))
            continue;
        Json* at = &doc;
        std::string rest = field.path.substr(start.size());
        for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
            at = &(*at)[rest.substr(0, dot)];
            rest = rest.substr(dot + 1);
        }
        std::visit(
            [&](const auto& v) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
                    (*at)[rest] = v;
            },
            value);
    }
}

Diagnostics withStageAliases(const Diagnostics& diagnostics, const Scenario& s) {
    Diagnostics out = diagnostics;
    const std::pair<std::optional<std::size_t>, const std::string*> stages[] = {
        {s.workload.data ? std::optional(s.workload.data->stage_index) : std::nullopt, &kDataStagePath},
        {s.workload.eval ? std::optional(s.workload.eval->stage_index) : std::nullopt, &kEvalStagePath}};
    for (const auto& d : diagnostics)
        for (const auto& [index, alias] : stages) {
            if (!index)
                continue;
            const std::string place = "workload.stages[" + std::to_string(*index) + "]";
            if (d.path.rfind(place, 0) == 0 && (d.path.size() == place.size() || d.path[place.size()] == '.'))
                out.push_back({*alias + d.path.substr(place.size()), d.message});
        }
    return out;
}

std::optional<FieldValue> parseFieldCell(const FieldSpec& field, const std::string& cell,
                                         std::string& error) {
    if (field.kind == FieldKind::Count || field.kind == FieldKind::Flag) {
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
        if (ec != std::errc() || ptr != cell.data() + cell.size()) {
            error = "expected an integer, got \"" + cell + "\"";
            return std::nullopt;
        }
        if (field.kind == FieldKind::Flag)
            return FieldValue{v != 0};
        FieldValue value{v};
        error = checkFieldValue(field, value);
        return error.empty() ? std::optional(value) : std::nullopt;
    }
    if (field.kind == FieldKind::Text || field.kind == FieldKind::Choice) {
        FieldValue value{cell};
        error = checkFieldValue(field, value);
        return error.empty() ? std::optional(value) : std::nullopt;
    }
    try {
        std::size_t used = 0;
        const double v = std::stod(cell, &used);
        if (used == cell.size() && std::isfinite(v)) {
            FieldValue value{v};
            error = checkFieldValue(field, value);
            return error.empty() ? std::optional(value) : std::nullopt;
        }
    } catch (const std::exception&) {
    }
    error = "expected a number, got \"" + cell + "\"";
    return std::nullopt;
}

} // namespace choreo::models
