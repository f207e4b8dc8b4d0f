#include "models/scenarioio.h"
#include "models/validationcase.h"

#include <QTest>

using namespace choreo::models;

namespace {
// The columns of a dense row (no MoE columns), for CSV text written in a test.
const std::string kDenseHeader =
    "id,source,reliability,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,"
    "accelerator,n_accel,accel_per_node,tp,pp,vp,dp,cp,ep,sp,zero,micro_batch,global_batch,recompute,"
    "precision,finetune,step_time_s,basis\n";

// One Llama 3 8B run in kDenseHeader's columns, data-parallel only over `devices` (8 a node), with what the
// rules under test read: the source, the device, the ZeRO stage, the recompute policy, the precision.
struct LlamaRow {
    std::string id, source;
    std::string accelerator = "h100-sxm";
    int devices = 64, zero = 3, microBatch = 1, globalBatch = 64;
    std::string recompute = "none", precision = "bf16";
};
std::string llamaRow(const LlamaRow& r) {
    const std::string n = std::to_string(r.devices);
    return r.id + ",\"" + r.source + "\",A,Llama-3-8B,32,4096,32,8,14336,1,128256,8192," + r.accelerator +
           "," + n + ",8,1,1,1," + n + ",1,1,0," + std::to_string(r.zero) + "," +
           std::to_string(r.microBatch) + "," + std::to_string(r.globalBatch) + "," + r.recompute + "," +
           r.precision + ",,2.0,measured\n";
}
} // namespace

class TestValidationCsv : public QObject {
    Q_OBJECT
private slots:
    void parsesThePublishedRuns() {
        std::string text, error;
        if (!readTextFile(CHOREO_TEST_VALIDATION_CSV, text, error))
            QSKIP("shared/validation/published-runs.csv is not beside the checkout");
        Diagnostics errors;
        const auto cases = parseValidationCsv(text, errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(43));
        const auto& first = cases.front();
        QCOMPARE(first.id, std::string("1"));
        QCOMPARE(first.scenario.workload.model.hidden, 2304);
        QVERIFY(first.scenario.workload.recompute == Recompute::Full);
        QCOMPARE(first.measured_step_time_s, 3.528);
        QVERIFY(!first.skip);
        for (const auto& c : cases) {
            const auto& p = c.scenario.workload.parallel;
            if (c.id == "11")
                QCOMPARE(p.zero, 3);
            if (c.id == "36")
                QCOMPARE(p.vp, std::int64_t(6));
            if (c.id == "44")
                QCOMPARE(p.cp, std::int64_t(2));
            // Rows published before FlashAttention (2022) run unfused attention, and say so.
            const bool early = std::stoi(c.id) <= 22;
            QCOMPARE(c.scenario.workload.attention == AttentionKernel::Unfused, early);
            // Megatron-Core and NeMo runs of 2024 state their communication overlap, which needs the
            // distributed optimizer (ZeRO 1).
            QCOMPARE(c.scenario.workload.overlap.tp_comm, !early);
            QCOMPARE(c.scenario.workload.overlap.param_gather, !early);
            const int id = std::stoi(c.id);
            // Megatron-LM of 2021 all-reduced gradients after the backward (rows 11-16 ran DeepSpeed ZeRO-3).
            QCOMPARE(c.scenario.workload.overlap.grad_reduce, !early || (id >= 11 && id <= 16));
            QCOMPARE(p.zero >= 1, !early || (id >= 11 && id <= 16)); // rows 11-16: ZeRO-3 as published
            // Megatron-LM of 2021 accumulated gradients in separate kernels and had no sequence
            // parallelism, whatever the sp column says (rows 2-10 and 17-22 say 1); 2024 rows keep theirs.
            const bool megatron2021 = early && !(id >= 11 && id <= 16);
            QCOMPARE(c.scenario.workload.gradient_accumulation == GradientAccumulation::Separate,
                     megatron2021);
            if (megatron2021)
                QVERIFY(!p.sequence_parallel);
            if (c.id == "24" || c.id == "40")
                QVERIFY(p.sequence_parallel);
            if (c.id == "5")
                QVERIFY(c.assumption.find(", no sequence parallelism") != std::string::npos);
            // NeMo's 2024 scripts reduce gradients in bf16 (grad_sync_dtype); Megatron-LM keeps fp32.
            const bool nemo = c.source.find("NeMo") != std::string::npos;
            // Rows 11-16 ran DeepSpeed's ZeRO-3 of 2021, which reduces gradients in the 16-bit type.
            const bool deepSpeed = id >= 11 && id <= 16;
            QCOMPARE(c.scenario.workload.zero3_engine == Zero3Engine::DeepSpeed2021, deepSpeed);
            if (deepSpeed)
                QVERIFY(c.assumption.find("DeepSpeed's ZeRO-3 of 2021") != std::string::npos);
            QVERIFY(c.scenario.workload.gradientPrecision() == (nemo || deepSpeed ? Precision::Bf16
                                                                : id <= 10        ? Precision::Fp16
                                                                                  : Precision::Fp32));
            QVERIFY(!c.assumption.empty());
            QCOMPARE(p.devices(), c.devices);
        }
    }

    void parsesTheHeldOutRuns() {
        // validation/holdout-runs.csv is in the repository: it must always parse, every row simulable.
        std::string text, error;
        QVERIFY2(readTextFile(CHOREO_TEST_HOLDOUT_CSV, text, error), error.c_str());
        Diagnostics errors;
        const auto cases = parseValidationCsv(text, errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(14));
        int gb200 = 0, moe = 0;
        for (const auto& c : cases) {
            QVERIFY2(!c.skip, c.id.c_str());
            QCOMPARE(c.scenario.workload.parallel.devices(), c.devices);
            const auto& pool = c.scenario.cluster.pools.front();
            // An NVLink domain wider than an 8-GPU node (64 GPUs of an NVL72 rack) is wired rail-optimised, a
            // job inside one domain as one switch.
            const bool wide = pool.devices_per_node > 8;
            const bool inside = pool.count <= pool.devices_per_node;
            QCOMPARE(c.scenario.cluster.network.topology.kind == TopologyKind::RailFatTree, wide && !inside);
            QCOMPARE(c.scenario.cluster.network.topology.kind == TopologyKind::SingleSwitch, inside);
            gb200 += c.accelerator == "gb200";
            moe += c.scenario.workload.model.moe.has_value();
            if (c.id == "H1") // MT-NLG ran the Megatron-LM code of 2021
                QVERIFY(c.assumption.find("unfused attention, 2021") != std::string::npos);
            // NeMo 25.04's GB200 runs state per-tensor current scaling; the 2026 H100 runs are bf16.
            QCOMPARE(c.scenario.workload.fp8_recipe == Fp8Recipe::Current, c.accelerator == "gb200");
            if (c.id == "H5") {
                QCOMPARE(c.scenario.workload.model.moe->experts, std::int64_t(256));
                QCOMPARE(c.scenario.workload.model.moe->dense_layers, std::int64_t(3));
                QCOMPARE(c.scenario.workload.parallel.zero, 3);
            }
        }
        QCOMPARE(gb200, 7);
        QCOMPARE(moe, 4);
    }

    void publicationYears() {
        QCOMPARE(publicationYear("Narayanan et al. SC'21 (Megatron-LM PTD-P) / Table 1"),
                 std::optional<int>(2021));
        QCOMPARE(publicationYear("NVIDIA Megatron-LM README (H100 weak scaling, 2024) / x"),
                 std::optional<int>(2024));
        QCOMPARE(publicationYear("NVIDIA NeMo performance summary (24.07) / DGX-H100, FP8"),
                 std::optional<int>(2024));
        QCOMPARE(publicationYear("a blog post on 4096 H100"), std::optional<int>());
        QCOMPARE(publicationYear("run 120245"), std::optional<int>());
        QCOMPARE(
            publicationMonth("torchtitan benchmarks/llama3_h100_202412_torchtitan.md (2024-12, Grand Teton)"),
            std::optional<int>(202412));
        QCOMPARE(publicationMonth("benchmarks/llama3_8b_h200_2025-06_torchtitan_trainy.md"),
                 std::optional<int>(202506));
        QCOMPARE(publicationMonth("a table of 2024-13"), std::optional<int>());
        QCOMPARE(publicationMonth("NVIDIA NeMo performance summary (24.07)"), std::optional<int>());
        QCOMPARE(containerRelease("NVIDIA NeMo performance summary (25.04) / Pre-training"),
                 std::optional<int>(2504));
        QCOMPARE(containerRelease("NVIDIA Megatron-LM README (H100 weak scaling, 2024)"),
                 std::optional<int>());
    }

    void fp8RecipeFollowsTheContainer() {
        // Delayed scaling before NeMo 25.04, current scaling from it on; never for bf16 rows.
        auto row = [](const char* id, const char* container, const char* precision) {
            return llamaRow(
                {.id = id,
                 .source = std::string("NVIDIA NeMo performance summary (") + container + ") / Pre-training",
                 .accelerator = "b200",
                 .devices = 8,
                 .zero = 0,
                 .microBatch = 2,
                 .globalBatch = 128,
                 .precision = precision});
        };
        Diagnostics errors;
        const auto cases = parseValidationCsv(kDenseHeader + row("a", "25.02", "fp8") +
                                                  row("b", "25.04", "fp8") + row("c", "25.07", "bf16"),
                                              errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(3));
        QVERIFY(cases[0].scenario.workload.fp8_recipe == Fp8Recipe::Delayed);
        QVERIFY(cases[1].scenario.workload.fp8_recipe == Fp8Recipe::Current);
        QVERIFY(cases[1].assumption.find("fp8 current scaling") != std::string::npos);
        QVERIFY(cases[2].scenario.workload.fp8_recipe == Fp8Recipe::Delayed);
        QVERIFY(cases[0].assumption.find("current scaling") == std::string::npos);
    }

    void torchtitanSelectiveIsItsOpLevelPolicy() {
        // torchtitan's "selective" is its op-level policy; another source's stays Megatron's.
        auto row = [](const char* id, const char* source, const char* recompute) {
            return llamaRow({.id = id, .source = source, .recompute = recompute});
        };
        Diagnostics errors;
        const auto cases =
            parseValidationCsv(kDenseHeader + row("a", "PyTorch torchtitan docs (2024-04)", "selective") +
                                   row("b", "PyTorch torchtitan docs (2024-04)", "full") +
                                   row("c", "NVIDIA NeMo performance summary (24.07)", "selective"),
                               errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(3));
        QVERIFY(cases[0].scenario.workload.recompute == Recompute::SelectiveOps);
        QVERIFY(cases[0].assumption.find("op-level selective recompute") != std::string::npos);
        QVERIFY(cases[1].scenario.workload.recompute == Recompute::Full);
        QVERIFY(cases[2].scenario.workload.recompute == Recompute::Selective);
    }

    // PyTorch-native frameworks run FlashAttention-2 (SDPA's default priority, the flash-attn package):
    // llm-foundry always, torchtitan until it put cuDNN first (2025-10); Transformer Engine's frameworks
    // their best fused kernel. And a job inside one scale-up domain is wired as one switch with a port per
    // device, however large the domain (a 256-chip TPU slice).
    void pytorchNativeFrameworksRunFlashAttention2() {
        auto row = [](const char* id, const char* source, const char* devices) {
            return llamaRow({.id = id, .source = source, .devices = std::stoi(devices)});
        };
        Diagnostics errors;
        const auto cases =
            parseValidationCsv(kDenseHeader + row("a", "PyTorch torchtitan benchmarks (2024-12)", "64") +
                                   row("b", "PyTorch torchtitan benchmarks (2025-10)", "64") +
                                   row("c", "MosaicML llm-foundry benchmarking README (2023-10)", "8") +
                                   row("d", "NVIDIA NeMo performance summary (24.07)", "64"),
                               errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(4));
        QVERIFY(cases[0].scenario.workload.attention == AttentionKernel::Flash2);
        QVERIFY(cases[0].assumption.find("FlashAttention-2 kernels") != std::string::npos);
        QVERIFY(cases[1].scenario.workload.attention == AttentionKernel::Fused);
        QVERIFY(cases[2].scenario.workload.attention == AttentionKernel::Flash2);
        QVERIFY(cases[3].scenario.workload.attention == AttentionKernel::Fused);
        QVERIFY(cases[0].scenario.cluster.network.topology.kind == TopologyKind::FatTree);
        QVERIFY(cases[2].scenario.cluster.network.topology.kind == TopologyKind::SingleSwitch);
        // torchtitan put cuDNN first on Blackwell in 2025-05; a source with a year only counts as its
        // December.
        const std::string blackwell =
            llamaRow({.id = "e", .source = "PyTorch torchtitan benchmarks (2025-06)", .accelerator = "b200"});
        const auto later = parseValidationCsv(kDenseHeader + blackwell +
                                                  row("f", "PyTorch torchtitan benchmarks, 2026", "64") +
                                                  row("g", "PyTorch torchtitan benchmarks, 2024", "64"),
                                              errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(later.size(), std::size_t(3));
        QVERIFY(later[0].scenario.workload.attention == AttentionKernel::Fused);
        QVERIFY(later[1].scenario.workload.attention == AttentionKernel::Fused);
        QVERIFY(later[2].scenario.workload.attention == AttentionKernel::Flash2);
    }

    // MaxText's v5e and v5p launch scripts turn on XLA's async collective fusion: tensor collectives run
    // beside the matmuls. Not on v4 (its scripts do not), not without tensor parallelism, not for another
    // framework. And MaxText shards the residual stream over the tensor axis on every TPU: simulated as
    // sequence parallelism, unless the sequence does not split over the tensor ranks.
    void maxtextShardsAndOverlapsTensorWork() {
        auto row = [](const char* id, const char* source, const char* accelerator, int tp) {
            const int devices = 256;
            return std::string(id) + ",\"" + source + "\",B,MaxText-32B,32,10240,32,32,32768,0,32768,2048," +
                   accelerator + "," + std::to_string(devices) + "," + std::to_string(devices) + "," +
                   std::to_string(tp) + ",1,1," + std::to_string(devices / tp) +
                   ",1,1,0,3,4,1024,full,bf16,,12.3," + "measured\n";
        };
        const char* maxtext = "Google MaxText MaxText/configs/v5e/README.md (2023-12, commit 76bd53b0f)";
        Diagnostics errors;
        const auto cases = parseValidationCsv(
            kDenseHeader + row("a", maxtext, "tpu-v5e", 16) + row("b", maxtext, "tpu-v5p", 8) +
                row("c", maxtext, "tpu-v4", 4) + row("d", maxtext, "tpu-v5e", 1) +
                row("e", "PyTorch torchtitan benchmarks (2024-12)", "tpu-v5e", 16),
            errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(5));
        QVERIFY(cases[0].scenario.workload.overlap.tp_comm);
        QVERIFY(cases[0].assumption.find("async collective fusion") != std::string::npos);
        QVERIFY(cases[1].scenario.workload.overlap.tp_comm);
        QVERIFY(!cases[2].scenario.workload.overlap.tp_comm);
        QVERIFY(!cases[3].scenario.workload.overlap.tp_comm);
        QVERIFY(cases[3].assumption.find("async collective fusion") == std::string::npos);
        QVERIFY(!cases[4].scenario.workload.overlap.tp_comm);
        // MaxText shards the residual stream's hidden dimension over the tensor axis on every TPU (base.yml's
        // logical axis rules): sequence parallelism's bytes.
        QVERIFY(cases[0].scenario.workload.parallel.sequence_parallel);
        QVERIFY(cases[0].assumption.find("as sequence parallelism") != std::string::npos);
        QVERIFY(cases[1].scenario.workload.parallel.sequence_parallel);
        QVERIFY(cases[2].scenario.workload.parallel.sequence_parallel);
        QVERIFY(!cases[3].scenario.workload.parallel.sequence_parallel);
        QVERIFY(!cases[4].scenario.workload.parallel.sequence_parallel);
        // 2,048 tokens do not split over 3 tensor ranks: no sequence parallelism, so the row stays valid.
        const auto odd = parseValidationCsv(kDenseHeader + row("f", maxtext, "tpu-v5e", 3), errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(odd.size(), std::size_t(1));
        QVERIFY(!odd[0].scenario.workload.parallel.sequence_parallel);
        QVERIFY(odd[0].scenario.workload.overlap.tp_comm);
    }

    // NeMo 1.x (containers up to 24.07) keeps master-weight remainders; NeMo 2.0 and Megatron-LM fp32 ones.
    void nemo1KeepsMasterWeightRemainders() {
        auto row = [](const char* id, const char* source, const char* precision) {
            return llamaRow({.id = id, .source = source, .zero = 1, .precision = precision});
        };
        Diagnostics errors;
        const auto cases = parseValidationCsv(
            kDenseHeader + row("a", "NVIDIA NeMo performance summary (24.07) / DGX-H100", "fp8") +
                row("b", "NVIDIA NeMo performance summary (25.04) / DGX-H100", "fp8") +
                row("c", "NVIDIA Megatron-LM README (H100 weak scaling, 2024)", "bf16"),
            errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(3));
        QVERIFY(cases[0].scenario.workload.master_weights == MasterWeights::Remainders);
        QVERIFY(cases[0].assumption.find("master-weight remainders") != std::string::npos);
        QVERIFY(cases[1].scenario.workload.master_weights == MasterWeights::Fp32);
        QVERIFY(cases[2].scenario.workload.master_weights == MasterWeights::Fp32);
    }

    void skipReasons() {
        const std::string csv =
            "id,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,moe_experts,"
            "accelerator,"
            "n_accel,accel_per_node,tp,pp,vp,dp,cp,ep,sp,zero,micro_batch,global_batch,recompute,precision,"
            "finetune,"
            "step_time_s\n"
            "a,m,2,64,4,4,256,0,100,32,8,h100-sxm,8,8,1,1,1,8,1,8,0,0,1,8,none,bf16,,1.0\n"
            "b,m,2,64,4,4,256,0,100,32,0,h100-sxm,8,8,1,1,1,8,1,1,0,0,1,8,none,bf16,sft,1.0\n"
            "c,m,2,64,4,4,256,0,100,32,0,h100-sxm,8,8,1,2,2,4,1,1,0,3,1,8,none,bf16,,1.0\n";
        Diagnostics errors;
        const auto cases = parseValidationCsv(csv, errors);
        QCOMPARE(cases.size(), std::size_t(3));
        QVERIFY(!cases[0].skip); // Mixture-of-Experts is modelled
        QVERIFY(cases[0].scenario.workload.model.moe);
        QCOMPARE(cases[0].scenario.workload.model.moe->experts, std::int64_t(8));
        QCOMPARE(cases[0].scenario.workload.parallel.ep, std::int64_t(8));
        QVERIFY(cases[1].skip->find("fine-tuning") != std::string::npos);
        QVERIFY(!cases[2].skip); // interleaving and ZeRO-3 are modelled
    }

    // The optional columns: head_dim (empty keeps hidden / heads, a number sets the head width) and
    // offload_layers (the layers a recipe offloads, as Megatron-Bridge's GB200 Llama 3 70B FP8-CS recipe's
    // 40; empty: none) and ep_overlap (1 where the recipe overlaps the expert all-to-alls, as
    // Megatron-Bridge's H100 Qwen3 235B recipe's moe_a2a_overlap; empty: no); not a number: the line and
    // column named.
    void optionalColumns() {
        const std::string csv =
            "id,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,accelerator,"
            "n_accel,accel_per_node,tp,pp,dp,micro_batch,global_batch,recompute,precision,step_time_s,"
            "head_dim,offload_layers,ep_overlap\n"
            "a,m,2,2880,64,8,2880,1,100,32,h100-sxm,8,8,1,1,8,1,8,none,bf16,1.0,64,1,1\n"
            "b,m,2,64,4,4,256,0,100,32,h100-sxm,8,8,1,1,8,1,8,none,bf16,1.0,,,\n"
            "c,m,2,64,4,4,256,0,100,32,h100-sxm,8,8,1,1,8,1,8,none,bf16,1.0,wide,many,yes\n";
        Diagnostics errors;
        const auto cases = parseValidationCsv(csv, errors);
        QCOMPARE(cases.size(), std::size_t(2));
        QCOMPARE(cases[0].scenario.workload.model.head_dim, std::int64_t(64));
        QCOMPARE(cases[0].scenario.workload.model.queryWidth(), 4096.0);
        QCOMPARE(cases[0].scenario.workload.activation_offload_layers, std::int64_t(1));
        QCOMPARE(cases[1].scenario.workload.model.head_dim, std::int64_t(0));
        QCOMPARE(cases[1].scenario.workload.activation_offload_layers, std::int64_t(0));
        QVERIFY(cases[0].scenario.workload.overlap.ep_comm);
        QVERIFY(!cases[1].scenario.workload.overlap.ep_comm);
        const std::string all = joinDiagnostics(errors);
        QVERIFY2(all.find("line 4.head_dim: expected an integer, got \"wide\"") != std::string::npos,
                 all.c_str());
        QVERIFY2(all.find("line 4.offload_layers: expected an integer, got \"many\"") != std::string::npos,
                 all.c_str());
        QVERIFY2(all.find("line 4.ep_overlap: expected an integer, got \"yes\"") != std::string::npos,
                 all.c_str());
    }

    void overrideSetsOneColumnEverywhere() {
        // `validate --vary` re-reads the file with one column set for every row: an existing column is
        // replaced, a missing one (vp here) added; the rest of each row, and the rules that read it, stay.
        const std::string csv =
            "id,source,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,accelerator,"
            "n_accel,accel_per_node,tp,pp,dp,micro_batch,global_batch,recompute,precision,step_time_s\n"
            "a,\"x, 2024\",m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,2,4,1,16,none,bf16,1.0\n"
            "b,\"y, 2024\",m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,1,8,2,16,full,bf16,2.0\n";
        Diagnostics errors;
        const auto plain = parseValidationCsv(csv, errors);
        const auto micro = parseValidationCsv(csv, errors, CsvOverride{"micro_batch", "4"});
        const auto vp = parseValidationCsv(csv, errors, CsvOverride{"vp", "2"});
        const auto recompute = parseValidationCsv(csv, errors, CsvOverride{"recompute", "selective"});
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(micro.size(), std::size_t(2));
        QCOMPARE(plain[1].scenario.workload.micro_batch, std::int64_t(2));
        QCOMPARE(micro[0].scenario.workload.micro_batch, std::int64_t(4));
        QCOMPARE(micro[1].scenario.workload.micro_batch, std::int64_t(4));
        QCOMPARE(micro[1].scenario.workload.global_batch, std::int64_t(16));
        QCOMPARE(micro[1].measured_step_time_s, 2.0);
        QCOMPARE(plain[0].scenario.workload.parallel.vp, std::int64_t(1));
        QCOMPARE(vp[0].scenario.workload.parallel.vp, std::int64_t(2));
        QCOMPARE(vp[0].scenario.workload.parallel.pp, std::int64_t(2));
        QVERIFY(recompute[1].scenario.workload.recompute == Recompute::Selective);
        // Only that column differs.
        Scenario same = micro[0].scenario;
        same.workload.micro_batch = plain[0].scenario.workload.micro_batch;
        QCOMPARE(serializeScenario(same), serializeScenario(plain[0].scenario));
        // A value the column cannot hold is the same diagnostic as in the file.
        parseValidationCsv(csv, errors, CsvOverride{"micro_batch", "two"});
        QVERIFY2(joinDiagnostics(errors).find("line 2.micro_batch: expected an integer, got \"two\"") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    void malformedRowsNameTheLine() {
        const std::string csv =
            "id,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,accelerator,"
            "n_accel,accel_per_node,tp,pp,dp,micro_batch,global_batch,recompute,precision,"
            "step_time_s\n"
            "x,m,two,64,4,4,256,0,100,32,h100-sxm,8,8,1,1,8,1,8,none,bf16,fast\n";
        Diagnostics errors;
        const auto cases = parseValidationCsv(csv, errors);
        QVERIFY(cases.empty());
        const std::string all = joinDiagnostics(errors);
        QVERIFY2(all.find("line 2.layers: expected an integer, got \"two\"") != std::string::npos,
                 all.c_str());
        QVERIFY2(all.find("line 2.step_time_s: expected a number, got \"fast\"") != std::string::npos,
                 all.c_str());
    }

    void measuredStepTimesAreFinitePositiveSeconds() {
        // nan, inf and negative times would make every error statistic meaningless (issue: "median nan%").
        for (const char* bad : {"nan", "inf", "-2.0", "0"}) {
            std::string row = llamaRow({"r1", "src"});
            row.replace(row.find(",2.0,"), 5, std::string(",") + bad + ",");
            Diagnostics errors;
            parseValidationCsv(kDenseHeader + row, errors);
            const std::string all = joinDiagnostics(errors);
            QVERIFY2(all.find("line 2.step_time_s: ") != std::string::npos, (bad + (": " + all)).c_str());
        }
    }

    void textThatIsNotUtf8IsRefusedWithItsLine() {
        std::string row = llamaRow({"r1", "Caf\xe9 cluster"}); // Latin-1
        Diagnostics errors;
        QVERIFY(parseValidationCsv(kDenseHeader + row, errors).empty());
        QVERIFY2(joinDiagnostics(errors).find("line 2: not UTF-8 text") != std::string::npos,
                 joinDiagnostics(errors).c_str());
        errors.clear();
        parseValidationCsv(kDenseHeader + llamaRow({"r1", "Caf\xc3\xa9 cluster"}),
                           errors); // the same in UTF-8
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
    }

    void missingColumn() {
        Diagnostics errors;
        parseValidationCsv("id,model\n1,x\n", errors);
        QVERIFY(joinDiagnostics(errors).find("header: missing column \"layers\"") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestValidationCsv)
#include "tst_validationcsv.moc"
