#include "models/scenarioio.h"
#include "models/servingcase.h"
#include "models/validationcase.h"

#include <QTest>

#include <cmath>
#include <filesystem>
#include <stdexcept>

using namespace choreo::models;

namespace {
// The columns of a dense row (no MoE columns), for CSV text written in a test.
const std::string kDenseHeader =
    "id,source,reliability,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,"
    "accelerator,n_accel,accel_per_node,tp,pp,vp,dp,cp,ep,sp,zero,micro_batch,global_batch,recompute,"
    "precision,finetune,step_time_s,basis\n";

// One Llama 3 8B run in kDenseHeader's columns, data-parallel only over `devices` (8 a node): the source,
// the device, the ZeRO stage, the recompute policy, the precision.
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
// The shipped catalog, loaded once.
const Catalog& shippedCatalog() {
    static const Catalog loaded = [] {
        Diagnostics errors;
        auto c = Catalog::load(std::filesystem::path(CHOREO_TEST_ASSETS) / "catalog", errors);
        if (!c)
            throw std::runtime_error(joinDiagnostics(errors));
        return std::move(*c);
    }();
    return loaded;
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
            // No rule reads the source: the fields are the row's own (profiles: tst_framework).
            QVERIFY(c.scenario.workload.attention == AttentionKernel::Fused);
            QVERIFY(c.assumption.empty());
            if (c.id == "5")
                QVERIFY(p.sequence_parallel);
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
            // Each row names its framework and release (MT-NLG ran the Megatron-LM code of 2021).
            QVERIFY(!c.scenario.workload.framework.empty());
            if (c.id == "H1")
                QCOMPARE(c.scenario.workload.framework_version, std::string("2021-12"));
            if (c.id == "H5") {
                QCOMPARE(c.scenario.workload.model.moe->experts, std::int64_t(256));
                QCOMPARE(c.scenario.workload.model.moe->dense_layers, std::int64_t(3));
                QCOMPARE(c.scenario.workload.parallel.zero, 3);
            }
        }
        QCOMPARE(gb200, 7);
        QCOMPARE(moe, 4);
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

    void recomputeModulesColumn() {
        // Megatron-Core's --recompute-modules, names separated by spaces or '+', in place of the default (the
        // attention core); an unknown name or an unknown recomputation is refused by line and column.
        const std::string head =
            "id,source,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,accelerator,"
            "n_accel,accel_per_node,tp,pp,dp,micro_batch,global_batch,recompute,precision,step_time_s,"
            "recompute_modules\n";
        Diagnostics errors;
        const auto cases = parseValidationCsv(
            head + "a,x,m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,2,4,1,16,selective,bf16,1.0,layernorm mlp\n"
                   "b,y,m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,2,4,1,16,selective,bf16,1.0,core_attn+mlp\n"
                   "c,z,m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,2,4,1,16,selective,bf16,1.0,\n",
            errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(3));
        const RecomputeModules normsAndMlp{false, true, true, false, false, false};
        QVERIFY(cases[0].scenario.workload.recompute_modules == normsAndMlp);
        QVERIFY(cases[1].scenario.workload.recompute_modules.core_attn);
        QVERIFY(cases[1].scenario.workload.recompute_modules.mlp);
        QVERIFY(cases[2].scenario.workload.recompute_modules == RecomputeModules{});
        parseValidationCsv(
            head +
                "a,x,m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,2,4,1,16,selective,bf16,1.0,layernorm moe_att\n"
                "b,y,m,4,64,4,4,256,0,100,32,h100-sxm,8,8,1,2,4,1,16,selectve,bf16,1.0,\n",
            errors);
        const std::string all = joinDiagnostics(errors);
        QVERIFY2(all.find("line 2.recompute_modules: unknown module \"moe_att\"") != std::string::npos,
                 all.c_str());
        QVERIFY2(all.find("line 3.recompute: unknown recomputation \"selectve\" (known: none, selective, "
                          "full)") != std::string::npos,
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

    // The serving file's columns leave out what multi-head latent attention caches and DeepSeek-V3's dense
    // layers and shared expert: the model's own facts fill them (arXiv:2412.19437), or a kv_latent column.
    void servingRowsGetTheArchitectureTheirColumnsLeaveOut() {
        Diagnostics errors;
        const Catalog& catalog = shippedCatalog();
        const std::string header =
            "id,model,accelerator,n_accel,tp,pp,ep,precision,framework,scenario,input_len,output_len,layers,"
            "hidden,heads,kv_heads,ffn_hidden,vocab,moe_experts,moe_topk,metric,value,kv_latent\n";
        const std::string tail =
            ",b200,8,8,1,8,fp8,TensorRT-LLM,offline,1024,1024,61,7168,128,128,2048,129280,"
            "256,8,output_tokens_per_s_total,1000,";
        const auto cases = parseServingCsv(header + "r1,DeepSeek-R1" + tail + "\n" + "r2,DeepSeek-V3-0324" +
                                               tail + "512\n" + "r3,Other" + tail + "\n",
                                           catalog, errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(3));
        const auto& r1 = cases[0].scenario.workload.model;
        QCOMPARE(r1.kv_latent, std::int64_t(576));
        QCOMPARE(r1.ffn_hidden, std::int64_t(18432));
        QCOMPARE(r1.moe->expert_ffn_hidden, std::int64_t(2048));
        QCOMPARE(r1.moe->dense_layers, std::int64_t(3));
        QCOMPARE(r1.moe->shared_experts, std::int64_t(1));
        QCOMPARE(cases[1].scenario.workload.model.kv_latent, std::int64_t(512)); // the column wins
        QCOMPARE(cases[2].scenario.workload.model.kv_latent, std::int64_t(0));   // no facts: per KV head
        QCOMPARE(cases[2].scenario.workload.model.moe->dense_layers, std::int64_t(0));
    }

    // A harness named anywhere in the framework column picks the engine as that harness runs it; otherwise
    // the column's start names the engine. Rows that leave lengths to an MLPerf dataset draw them from its
    // percentiles, the outputs scaled to the row's mean under the harness's cap, or fixed at a mean at the
    // cap.
    void servingRowsTakeTheirHarnessAndDataset() {
        Diagnostics errors;
        const Catalog& catalog = shippedCatalog();
        const std::string header =
            "id,model,accelerator,n_accel,tp,pp,ep,precision,framework,scenario,input_len,"
            "output_len,layers,hidden,heads,kv_heads,ffn_hidden,vocab,metric,value\n";
        const std::string shape = ",80,8192,64,8,28672,32000,output_tokens_per_s_total,1000\n";
        const auto cases = parseServingCsv(
            header +
                "r1,Llama-2-70B,h200-sxm,8,1,1,1,fp8,TensorRT-LLM (NVIDIA MLPerf v5.0 harness),offline,,290" +
                shape + "r2,Llama-2-70B,h200-sxm,8,1,1,1,fp8,TensorRT-LLM 0.17 (trtllm-bench),offline,,290" +
                shape +
                "r3,Llama-3.1-8B,h200-sxm,8,1,1,1,fp8,vLLM 0.6.5 (AMD MLPerf v5.0 harness),offline,,129" +
                shape,
            catalog, errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(3));
        QCOMPARE(cases[0].scenario.workload.serve->engine, std::string("tensorrt-llm-mlperf"));
        QCOMPARE(cases[1].scenario.workload.serve->engine, std::string("tensorrt-llm"));
        QCOMPARE(cases[2].scenario.workload.serve->engine, std::string("vllm-v0"));
        const auto& lengths = cases[0].scenario.workload.serve->requests;
        QVERIFY(lengths.input.shape == LengthShape::Percentiles);
        QCOMPARE(lengths.input.max, std::int64_t(1021)); // OpenOrca's longest prompt
        QVERIFY(lengths.output.shape == LengthShape::Percentiles);
        QVERIFY2(std::abs(lengths.output.mean - 290.0) < 1.0, std::to_string(lengths.output.mean).c_str());
        QCOMPARE(lengths.output.max, std::int64_t(1024)); // the harness's cap
        const auto& capped = cases[2].scenario.workload.serve->requests.output;
        QVERIFY(capped.shape == LengthShape::Fixed);
        QCOMPARE(capped.mean, 129.0);
    }

    void missingColumn() {
        Diagnostics errors;
        parseValidationCsv("id,model\n1,x\n", errors);
        QVERIFY(joinDiagnostics(errors).find("header: missing column \"layers\"") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestValidationCsv)
#include "tst_validationcsv.moc"
