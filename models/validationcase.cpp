#include "models/validationcase.h"

#include "models/csvrecord.h"
#include "models/fieldtable.h"
#include "models/jsonreader.h"
#include "models/topology.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace choreo::models {

namespace {

class Row : public CsvRow {
public:
    using CsvRow::CsvRow;

    // Sets every field the field table maps to a column of this file (models/fieldtable.h). An empty cell
    // leaves the field's default; a required field's empty cell is an error.
    void applyTableColumns(Scenario& s) {
        for (const auto& field : scenarioFields()) {
            if (field.csv_column.empty() || !field.appliesTo(s))
                continue;
            const std::string cell = text(field.csv_column);
            if (cell.empty()) {
                if (field.required)
                    error(field.csv_column, "missing value");
                continue;
            }
            std::string problem;
            if (auto value = parseFieldCell(field, cell, problem))
                field.set(s, *value);
            else
                error(field.csv_column, problem);
        }
    }
};

} // namespace

std::optional<int> publicationYear(const std::string& source) {
    auto digit = [&](std::size_t i) { return i < source.size() && source[i] >= '0' && source[i] <= '9'; };
    for (std::size_t i = 0; i < source.size(); ++i) {
        // "2024" (a whole number, not part of a longer one)
        if (source.compare(i, 2, "20") == 0 && digit(i + 2) && digit(i + 3) && !digit(i + 4) &&
            (i == 0 || !digit(i - 1)))
            return std::stoi(source.substr(i, 4));
        // "SC'21", "'21"
        if (source[i] == '\'' && digit(i + 1) && digit(i + 2) && !digit(i + 3))
            return 2000 + std::stoi(source.substr(i + 1, 2));
    }
    // "(24.07)": a container release, year.month
    if (const auto release = containerRelease(source))
        return 2000 + *release / 100;
    return std::nullopt;
}

namespace {

// Appends one more rule's note to a case's assumption mark.
void addAssumption(ValidationCase& c, const std::string& note) {
    c.assumption += (c.assumption.empty() ? "" : ", ") + note;
}

} // namespace

std::optional<int> publicationMonth(const std::string& source) {
    auto digit = [&](std::size_t i) { return i < source.size() && source[i] >= '0' && source[i] <= '9'; };
    for (std::size_t i = 0; i + 6 < source.size(); ++i)
        if (source.compare(i, 2, "20") == 0 && digit(i + 2) && digit(i + 3) && source[i + 4] == '-' &&
            digit(i + 5) && digit(i + 6) && !digit(i + 7) && (i == 0 || !digit(i - 1))) {
            const int month = std::stoi(source.substr(i + 5, 2));
            if (month >= 1 && month <= 12)
                return std::stoi(source.substr(i, 4)) * 100 + month;
        }
    return std::nullopt;
}

std::optional<int> containerRelease(const std::string& source) {
    auto digit = [&](std::size_t i) { return i < source.size() && source[i] >= '0' && source[i] <= '9'; };
    for (std::size_t i = 0; i + 6 < source.size(); ++i)
        if (source[i] == '(' && digit(i + 1) && digit(i + 2) && source[i + 3] == '.' && digit(i + 4) &&
            digit(i + 5) && source[i + 6] == ')')
            return std::stoi(source.substr(i + 1, 2)) * 100 + std::stoi(source.substr(i + 4, 2));
    return std::nullopt;
}

namespace {

// The scenario of one row: its pool and network, and the fields the row's columns give.
void describeRowScenario(Row& row, ValidationCase& c, const std::string& where, Diagnostics& errors) {
    Scenario& s = c.scenario;
    s.name = "validation case " + c.id + ": " + c.model;
    s.cluster.pools.push_back({"accelerators", c.accelerator, c.devices, row.integer("accel_per_node", 8)});
    // A scale-up domain wider than an 8-GPU node (a GB200 NVL72 rack) has more NICs than one leaf switch
    // takes: such clusters are wired rail-optimised, as NVIDIA's GB200 SuperPOD reference architecture
    // is.
    // A job inside one scale-up domain (a TPU slice, one NVL72 rack) sends nothing over the network: one
    // switch stands for it, whatever the domain's size.
    const auto& pool = s.cluster.pools.back();
    s.cluster.network.topology.kind =
        pool.devices_per_node > 8 ? TopologyKind::RailFatTree : TopologyKind::FatTree;
    if (pool.count <= pool.devices_per_node) // the switch gets the ports it needs, as in the desktop
        s.cluster.network.topology =
            topologyForKind(TopologyKind::SingleSwitch, pool, s.cluster.network.topology);
    s.cluster.network.topology.oversubscription = 1.0;
    Workload& w = s.workload;
    w.model.name = c.model;
    row.applyTableColumns(s);
    w.tokens_to_train = static_cast<double>(w.global_batch * w.model.seq_len) * 1000.0;
    const std::int64_t experts = row.integer("moe_experts", 0, false);
    if (experts > 0) {
        MoeShape moe;
        moe.experts = experts;
        moe.top_k = row.integer("moe_topk", 1, false);
        moe.shared_experts = row.integer("moe_shared_experts", 0, false);
        moe.expert_ffn_hidden = row.integer("moe_ffn_hidden", w.model.ffn_hidden, false);
        moe.dense_layers = row.integer("moe_dense_layers", 0, false);
        w.model.moe = moe;
    }
    // Gated-FFN models (Llama, Mixtral, Qwen, DeepSeek, GPT-OSS) train without dropout, as their
    // released configurations say; ungated ones (GPT-3 shapes, Nemotron-4) are given Megatron's default.
    w.model.dropout = !w.model.ffn_gated;
    const std::string recompute = row.text("recompute");
    w.recompute = recompute == "full"        ? Recompute::Full
                  : recompute == "selective" ? Recompute::Selective
                                             : Recompute::None;
    if (auto p = precisionFromString(row.text("precision")))
        w.precision = *p;
    else
        errors.push_back({where + ".precision", "unknown precision \"" + row.text("precision") + "\""});
    s.costs.mode = CostMode::Rent;
    s.costs.rent_usd_per_device_hour = 1.0; // cost is not validated; avoid depending on a catalog price
}

// What the row's framework did that its columns do not say, read from its source (issue 31: to become
// framework profiles).
void applySourceRules(ValidationCase& c) {
    Workload& w = c.scenario.workload;
    const std::int64_t zero = w.parallel.zero;
    // Fused (Flash) attention appeared in 2022 (Dao et al.); runs published before used the unfused
    // kernels of their framework.
    const auto year = publicationYear(c.source);
    const bool megatron = c.source.find("Megatron") != std::string::npos;
    const bool nemo = c.source.find("NeMo") != std::string::npos;
    if (year && *year < 2022) {
        w.attention = AttentionKernel::Unfused;
        c.assumption = "unfused attention, " + std::to_string(*year);
        // Megatron-LM's training loop of 2021 (DDP-impl local, the default) all-reduced the gradients
        // after forward_backward_func returned: no overlap with the backward. Its DDP hook added every
        // weight gradient into the gradient buffer in a kernel of its own (gradient accumulation fusion
        // was merged on 2022-02-22), and it had no sequence parallelism (merged 2022-05-20, Korthikanti
        // et al. 2022): norms, dropouts and residual adds ran on the whole hidden state on every tensor
        // rank, whatever the row's sp column says.
        if (megatron && zero < 3) {
            w.overlap.grad_reduce = false;
            c.assumption += ", gradient all-reduce after the backward";
            w.gradient_accumulation = GradientAccumulation::Separate;
            c.assumption += ", gradients accumulated by separate kernels";
            if (w.parallel.sequence_parallel) {
                w.parallel.sequence_parallel = false;
                c.assumption += ", no sequence parallelism";
            }
        }
        // ZeRO-3 before 2022 was DeepSpeed's (PyTorch's FSDP came with 1.11 in 2022; the SC'21 paper
        // compares against DeepSpeed's), as released before its late-2021 rework: parameters freed after
        // every module's forward and gathered again for recomputation, gathers and reduce-scatters in
        // turn, gradients reduced in the 16-bit type, and the engine's own gather rate
        // (models::Zero3Engine).
        if (zero >= 3) {
            w.zero3_engine = Zero3Engine::DeepSpeed2021;
            w.gradient_precision = w.sixteenBitPrecision();
            c.assumption += ", DeepSpeed's ZeRO-3 of 2021 (21.3 GB/s gathers, 16-bit gradients)";
        }
    }
    // NVIDIA's Megatron-Core and NeMo performance runs from 2024 state their communication overlap: the
    // Megatron-LM README's scaling runs used --overlap-grad-reduce --overlap-param-gather and
    // --tp-comm-overlap, NeMo's *_performance.yaml configurations ub_tp_comm_overlap and
    // distributed_fused_adam with overlap_param_sync. Overlapping the parameter gather needs the
    // distributed optimizer (Megatron asserts it), i.e. ZeRO 1.
    if ((megatron || nemo) && year && *year >= 2024 && zero <= 2) {
        w.overlap.tp_comm = true;
        w.overlap.param_gather = true;
        if (w.parallel.zero == 0)
            w.parallel.zero = 1;
        c.assumption =
            "tp-comm and param-gather overlap with the distributed optimizer, " + std::to_string(*year);
        // NeMo's performance scripts of 2024 (NeMo-Framework-Launcher 24.07, examples/training/*/h100)
        // pass optim.grad_sync_dtype=bf16 to distributed_fused_adam: bf16 gradient buffers and
        // reduce-scatters. Megatron-LM keeps fp32 for bf16 (accumulate_allreduce_grads_in_fp32).
        if (nemo && w.precision != Precision::Fp16) {
            w.gradient_precision = Precision::Bf16;
            c.assumption += ", bf16 gradients";
            // NeMo 1.x (containers up to 24.07) builds that optimizer with store_param_remainders for a
            // bf16 model and an fp32 optimizer (megatron_base_model.py): 2-byte master remainders. NeMo
            // 2.0 uses Megatron-Core's distributed optimizer, with fp32 master weights.
            if (const auto release = containerRelease(c.source); release && *release <= 2407) {
                w.master_weights = MasterWeights::Remainders;
                c.assumption += ", master-weight remainders";
            }
        }
    }
    // NeMo's performance summaries from the 25.04 container on state their fp8 recipe: "per-tensor FP8
    // quantization, leveraging scaling factors computed in the current step" (Megatron-Bridge's, which
    // follow them, "FP8-CS"); earlier ones ran Transformer Engine's default, delayed scaling.
    if (const auto release = containerRelease(c.source);
        (nemo || megatron) && release && *release >= 2504 && w.precision == Precision::Fp8) {
        w.fp8_recipe = Fp8Recipe::Current;
        addAssumption(c, "fp8 current scaling");
    }
    // MaxText's TPU v5e and v5p launch scripts (MaxText/configs/v5e/*.sh and v5p/*.sh at commit
    // 76bd53b0f, the one the held-out rows cite) set LIBTPU_INIT_ARGS with
    // --xla_tpu_enable_async_collective_fusion (and its fuse_all_gather and multiple_steps variants) and
    // --xla_tpu_overlap_compute_collective_tc: XLA runs the tensor-parallel collectives beside the
    // matmuls they feed, as Megatron's --tp-comm-overlap does. Its v4 scripts set only
    // --xla_enable_async_all_gather and shard nothing by tensor.
    const bool maxtextTp = c.source.find("MaxText") != std::string::npos && w.parallel.tp > 1;
    if (maxtextTp && (c.accelerator == "tpu-v5e" || c.accelerator == "tpu-v5p")) {
        w.overlap.tp_comm = true;
        addAssumption(c, "XLA's async collective fusion: tp-comm overlap");
    }
    // MaxText's logical axis rules (MaxText/configs/base.yml) shard activation_embed, the residual
    // stream's hidden dimension, over the tensor axis: between the matmuls each tensor rank keeps and
    // normalises 1/tp of every token, and the matmuls' inputs and outputs are all-gathered and
    // reduce-scattered. That is Megatron's sequence parallelism along the hidden dimension instead of the
    // sequence: the same bytes kept, moved and streamed, whatever the row's sp column says. (Choreo's
    // sequence parallelism splits the sequence, so it needs seq_len divisible by tp; a row where it is
    // not is simulated without the rule rather than refused for a split it never asked for.)
    if (maxtextTp && !w.parallel.sequence_parallel && w.model.seq_len % w.parallel.tp == 0) {
        w.parallel.sequence_parallel = true;
        addAssumption(c, "activations sharded over tensor ranks (as sequence parallelism)");
    }
    const bool torchtitan = c.source.find("torchtitan") != std::string::npos;
    // torchtitan's "selective" is its op-level policy (selective_ac_option = "op" in every Llama
    // configuration it publishes runs of, 2024-2026): every matmul output kept except every second one,
    // attention's output kept, everything else recomputed
    // (torchtitan/distributed/activation_checkpoint.py).
    if (torchtitan && w.recompute == Recompute::Selective) {
        w.recompute = Recompute::SelectiveOps;
        addAssumption(c, "torchtitan's op-level selective recompute (every second matmul)");
    }
    // PyTorch-native frameworks call fused attention through scaled_dot_product_attention (or the
    // flash-attn package), whose default priority puts FlashAttention-2 first; on Hopper that is well
    // below cuDNN's kernels, which Transformer Engine (Megatron, NeMo) runs. torchtitan put cuDNN first
    // on Blackwell in 2025-05 and on every GPU in 2025-10 (its PRs 1196 and 1776); llm-foundry's MPT runs
    // use the flash-attn package (attn_impl: flash).
    const bool foundry = c.source.find("llm-foundry") != std::string::npos;
    const bool blackwell = c.accelerator == "b200" || c.accelerator == "gb200" || c.accelerator == "b300" ||
                           c.accelerator == "gb300";
    // A source with a year but no month counts as that year's December.
    const int month = publicationMonth(c.source).value_or(year ? *year * 100 + 12 : 0);
    if (w.attention == AttentionKernel::Fused &&
        (foundry || (torchtitan && month < (blackwell ? 202505 : 202510)))) {
        w.attention = AttentionKernel::Flash2;
        addAssumption(c, "FlashAttention-2 kernels");
    }
}

// The header row: each column's index (the overridden column appended when absent); nullopt with an error
// per missing column.
std::optional<std::map<std::string, std::size_t>>
readCsvHeader(std::istream& in, const std::optional<CsvOverride>& override, Diagnostics& errors) {
    std::string line;
    if (!std::getline(in, line)) {
        errors.push_back({"line 1", "empty file: a header row is needed"});
        return std::nullopt;
    }
    std::map<std::string, std::size_t> columns;
    const auto header = splitCsvRecord(line);
    for (std::size_t i = 0; i < header.size(); ++i)
        columns[header[i]] = i;
    if (override && !columns.count(override->column))
        columns[override->column] = header.size();
    std::vector<std::string> needed{"id",        "model",     "accelerator", "n_accel", "accel_per_node",
                                    "recompute", "precision", "step_time_s"};
    for (const auto& field : scenarioFields())
        if (field.required && !field.csv_column.empty())
            needed.push_back(field.csv_column);
    const std::size_t before = errors.size();
    for (const auto& column : needed)
        if (!columns.count(column))
            errors.push_back({"header", "missing column \"" + column + "\""});
    if (errors.size() != before)
        return std::nullopt;
    return columns;
}

} // namespace

std::vector<ValidationCase> parseValidationCsv(const std::string& text, Diagnostics& errors,
                                               const std::optional<CsvOverride>& override) {
    std::vector<ValidationCase> cases;
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string::npos) {
        const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n') + 1;
        errors.push_back({"line " + std::to_string(line),
                          "not UTF-8 text (byte " + std::to_string(bad + 1) + "); save the file as UTF-8"});
        return cases;
    }
    std::istringstream in(text);
    const auto columnsRead = readCsvHeader(in, override, errors);
    if (!columnsRead || !errors.empty())
        return cases;
    const auto& columns = *columnsRead;
    std::string line;
    int lineNo = 1;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line == "\r")
            continue;
        const std::size_t before = errors.size();
        auto cells = splitCsvRecord(line);
        if (override) {
            const std::size_t at = columns.at(override->column);
            if (cells.size() <= at)
                cells.resize(at + 1);
            cells[at] = override->value;
        }
        Row row(columns, std::move(cells), "line " + std::to_string(lineNo), errors);
        ValidationCase c;
        c.id = row.text("id");
        c.source = row.text("source");
        c.reliability = row.text("reliability");
        c.model = row.text("model");
        c.accelerator = row.text("accelerator");
        c.basis = row.text("basis");
        c.devices = row.integer("n_accel", 0);
        c.measured_step_time_s = row.number("step_time_s");
        if (c.measured_step_time_s <= 0.0 && !row.text("step_time_s").empty())
            errors.push_back(
                {"line " + std::to_string(lineNo) + ".step_time_s",
                 "must be a positive number of seconds, got \"" + row.text("step_time_s") + "\""});

        describeRowScenario(row, c, "line " + std::to_string(lineNo), errors);
        applySourceRules(c);
        if (!row.text("finetune").empty())
            c.skip = "fine-tuning runs are not modelled yet";
        if (errors.size() != before)
            continue;
        cases.push_back(std::move(c));
    }
    return cases;
}

} // namespace choreo::models
