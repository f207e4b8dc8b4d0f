#include "models/catalog.h"
#include "models/framework.h"
#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "models/validationcase.h"

#include <QTest>

#include <filesystem>

using namespace choreo::models;
namespace fs = std::filesystem;

namespace {

const fs::path kCatalog = fs::path(CHOREO_TEST_ASSETS) / "catalog";

const Catalog& catalog() {
    static const Catalog loaded = [] {
        Diagnostics errors;
        auto c = Catalog::load(kCatalog, errors);
        if (!c)
            qFatal("catalog: %s", joinDiagnostics(errors).c_str());
        return *c;
    }();
    return loaded;
}

// The columns of a dense row with its framework, for CSV text written in a test.
const std::string kHeader =
    "id,source,reliability,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,"
    "accelerator,n_accel,accel_per_node,tp,pp,vp,dp,cp,ep,sp,zero,micro_batch,global_batch,recompute,"
    "precision,finetune,step_time_s,basis,framework,framework_version\n";

// One Llama 3 8B run in kHeader's columns over `devices` (8 a node), with what the profiles read: the
// framework and its release, the device, the ZeRO stage, the tensor ranks, the recompute policy, the
// precision. The source says nothing a rule could read.
struct Row {
    std::string id;
    std::string framework = {}, version = {};
    std::string accelerator = "h100-sxm";
    int devices = 64, tp = 1, zero = 3, nodeSize = 8;
    std::string recompute = "none", precision = "bf16";
};
std::string csvRow(const Row& r) {
    return r.id + ",a run,A,Llama-3-8B,32,4096,32,8,14336,1,128256,8192," + r.accelerator + "," +
           std::to_string(r.devices) + "," + std::to_string(r.nodeSize) + "," + std::to_string(r.tp) +
           ",1,1," + std::to_string(r.devices / r.tp) + ",1,1,0," + std::to_string(r.zero) + ",1," +
           std::to_string(r.devices) + "," + r.recompute + "," + r.precision + ",,2.0,measured," +
           r.framework + "," + r.version + "\n";
}

// The rows as the simulator runs them: parsed, then resolved with their framework's profile.
std::vector<ResolvedScenario> resolvedRows(const std::vector<Row>& rows) {
    std::string text = kHeader;
    for (const auto& r : rows)
        text += csvRow(r);
    Diagnostics errors;
    const auto cases = parseValidationCsv(text, errors);
    if (!errors.empty())
        qFatal("rows: %s", joinDiagnostics(errors).c_str());
    std::vector<ResolvedScenario> out;
    for (const auto& c : cases) {
        auto r = resolveScenario(c.scenario, catalog(), errors, /*checkMemory=*/false);
        if (!r)
            qFatal("%s: %s", c.id.c_str(), joinDiagnostics(errors).c_str());
        out.push_back(std::move(*r));
    }
    return out;
}

// A scratch catalog: the real one with `profile` added in a file of its own.
fs::path scratchCatalog(const Json& profile) {
    const fs::path dir = fs::temp_directory_path() / "choreo-tst-framework";
    fs::remove_all(dir);
    fs::copy(kCatalog, dir);
    std::string error;
    writeTextFileAtomically(
        dir / "zz-test.json",
        Json{{"format", "choreo-catalog/1"}, {"training_frameworks", Json::array({profile})}}.dump(2), error);
    return dir;
}

} // namespace

class TestFramework : public QObject {
    Q_OBJECT
private slots:
    // The published file lacks framework columns; validation/published-runs-frameworks.csv gives them.
    void publishedRunsWithTheirFrameworks() {
        std::string text, extra, error;
        if (!readTextFile(CHOREO_TEST_VALIDATION_CSV, text, error))
            QSKIP("shared/validation/published-runs.csv is not beside the checkout");
        const fs::path frameworks =
            fs::path(CHOREO_TEST_HOLDOUT_CSV).parent_path() / "published-runs-frameworks.csv";
        QVERIFY2(readTextFile(frameworks, extra, error), error.c_str());
        Diagnostics errors;
        const auto joined = joinCsvColumns(text, extra, errors);
        QVERIFY2(joined, joinDiagnostics(errors).c_str());
        const auto cases = parseValidationCsv(*joined, errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(43));
        for (const auto& c : cases) {
            const auto r = resolveScenario(c.scenario, catalog(), errors, /*checkMemory=*/false);
            QVERIFY2(r, joinDiagnostics(errors).c_str());
            const auto& w = r->workload();
            const int id = std::stoi(c.id);
            const bool early = id <= 22;                 // Megatron-LM and DeepSpeed of 2021
            const bool deepSpeed = id >= 11 && id <= 16; // SC'21 Table 2's ZeRO-3 rows
            const bool megatron2021 = early && !deepSpeed;
            QCOMPARE(w.attention == AttentionKernel::Unfused, early);
            // Megatron-Core and NeMo of 2024 overlap with the distributed optimizer (ZeRO 1).
            QCOMPARE(w.overlap.tp_comm, !early);
            QCOMPARE(w.overlap.param_gather, !early);
            QCOMPARE(w.overlap.grad_reduce, !megatron2021);
            QCOMPARE(w.parallel.zero >= 1, !megatron2021);
            QCOMPARE(w.gradient_accumulation == GradientAccumulation::Separate, megatron2021);
            if (megatron2021) // whatever the sp column says (rows 2-10 and 17-22 say 1)
                QVERIFY(!w.parallel.sequence_parallel);
            if (c.id == "24" || c.id == "40")
                QVERIFY(w.parallel.sequence_parallel);
            QCOMPARE(w.zero3_engine == Zero3Engine::DeepSpeed2021, deepSpeed);
            const bool nemo = id >= 34;
            QVERIFY(w.gradientPrecision() == (nemo || deepSpeed ? Precision::Bf16
                                              : id <= 10        ? Precision::Fp16
                                                                : Precision::Fp32));
            QCOMPARE(w.master_weights == MasterWeights::Remainders, nemo);
            QVERIFY(!r->framework.empty());
            if (c.id == "5")
                QVERIFY(r->framework.find("sequence parallel: off") != std::string::npos);
        }
    }

    // Without the join the rows name no framework: their fields as written.
    void rowsWithoutAFrameworkKeepTheirFields() {
        const auto rs = resolvedRows({{.id = "a", .zero = 0}});
        QCOMPARE(rs[0].framework, std::string());
        QVERIFY(rs[0].workload().attention == AttentionKernel::Fused);
        QCOMPARE(rs[0].workload().parallel.zero, 0);
    }

    void nemoReleases() {
        // NeMo 1.x (to 24.07) keeps master-weight remainders; current fp8 scaling from 25.04; a bf16 run
        // keeps delayed scaling.
        const auto rs = resolvedRows(
            {{.id = "a", .framework = "nemo", .version = "2024-07", .zero = 1, .precision = "fp8"},
             {.id = "b", .framework = "nemo", .version = "2025-02", .zero = 1, .precision = "fp8"},
             {.id = "c", .framework = "NeMo", .version = "2025-04", .zero = 0, .precision = "fp8"},
             {.id = "d", .framework = "nemo", .version = "2025-07", .zero = 1}});
        QVERIFY(rs[0].workload().master_weights == MasterWeights::Remainders);
        QVERIFY(rs[0].framework.find("Master weights") != std::string::npos);
        QVERIFY(rs[1].workload().master_weights == MasterWeights::Fp32);
        QVERIFY(rs[1].workload().fp8_recipe == Fp8Recipe::Delayed);
        QVERIFY(rs[2].workload().fp8_recipe == Fp8Recipe::Current);
        QCOMPARE(rs[2].workload().parallel.zero, 1); // the distributed optimizer
        QVERIFY(rs[2].workload().gradientPrecision() == Precision::Bf16);
        QVERIFY(rs[3].workload().fp8_recipe == Fp8Recipe::Delayed);
        QVERIFY(rs[3].workload().overlap.tp_comm);
    }

    void torchtitanRecomputesByOpsAndRunsFlashAttention2() {
        const auto rs = resolvedRows(
            {{.id = "a", .framework = "torchtitan", .version = "2024-04", .recompute = "selective"},
             {.id = "b", .framework = "torchtitan", .version = "2024-04", .recompute = "full"},
             {.id = "c", .framework = "nemo", .version = "2024-07", .recompute = "selective"},
             {.id = "d", .framework = "torchtitan", .version = "2025-06", .accelerator = "b200"},
             {.id = "e", .framework = "torchtitan", .version = "2025-06"},
             {.id = "f", .framework = "torchtitan", .version = "2025-10"},
             {.id = "g", .framework = "llm-foundry", .version = "2023-10", .devices = 8}});
        QVERIFY(rs[0].workload().recompute == Recompute::SelectiveOps);
        QVERIFY(rs[1].workload().recompute == Recompute::Full);
        QVERIFY(rs[2].workload().recompute == Recompute::Selective);
        QVERIFY(rs[0].workload().attention == AttentionKernel::Flash2);
        QVERIFY(rs[2].workload().attention == AttentionKernel::Fused);
        QVERIFY(rs[3].workload().attention ==
                AttentionKernel::Fused); // cuDNN first on Blackwell from 2025-05
        QVERIFY(rs[4].workload().attention == AttentionKernel::Flash2);
        QVERIFY(rs[5].workload().attention == AttentionKernel::Fused); // and everywhere from 2025-10
        QVERIFY(rs[6].workload().attention == AttentionKernel::Flash2);
    }

    // MaxText's v5e and v5p scripts overlap tensor collectives (not v4's); it shards the residual stream over
    // the tensor ranks on every TPU, simulated as sequence parallelism where the sequence divides.
    void maxtextShardsAndOverlapsTensorWork() {
        auto row = [](const char* id, const char* accelerator, int tp) {
            return Row{.id = id,
                       .framework = "maxtext",
                       .version = "2023-12",
                       .accelerator = accelerator,
                       .devices = 256,
                       .tp = tp,
                       .nodeSize = 256};
        };
        auto odd = row("e", "tpu-v5e", 16);
        odd.framework = "torchtitan";
        odd.version = "2024-12";
        const auto rs = resolvedRows({row("a", "tpu-v5e", 16), row("b", "tpu-v5p", 8), row("c", "tpu-v4", 4),
                                      row("d", "tpu-v5e", 1), odd});
        QVERIFY(rs[0].workload().overlap.tp_comm);
        QVERIFY(rs[1].workload().overlap.tp_comm);
        QVERIFY(!rs[2].workload().overlap.tp_comm);
        QVERIFY(!rs[4].workload().overlap.tp_comm);
        QVERIFY(rs[0].workload().parallel.sequence_parallel);
        QVERIFY(rs[2].workload().parallel.sequence_parallel);
        QVERIFY(!rs[3].workload().parallel.sequence_parallel); // no tensor ranks
        QVERIFY(!rs[4].workload().parallel.sequence_parallel);
    }

    void unknownFrameworksAndReleasesAreNamed() {
        Scenario s = resolvedRows({{.id = "a"}})[0].scenario;
        Diagnostics errors;
        s.workload.framework = "jax-magic";
        QVERIFY(!resolveScenario(s, catalog(), errors, false));
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].path, std::string("workload.framework"));
        QVERIFY(errors[0].message.find("known: megatron") != std::string::npos);
        errors.clear();
        s.workload.framework = "megatron";
        s.workload.framework_version = "24.07";
        QVERIFY(!resolveScenario(s, catalog(), errors, false));
        QCOMPARE(errors[0].path, std::string("workload.framework_version"));
        QVERIFY(errors[0].message.find("YYYY-MM") != std::string::npos);
        errors.clear();
        s.workload.framework_version = "2018-01";
        QVERIFY(!resolveScenario(s, catalog(), errors, false));
        QVERIFY(errors[0].message.find("before the first megatron profile") != std::string::npos);
        errors.clear();
        s.workload.framework_version.clear(); // the newest profile
        const auto r = resolveScenario(s, catalog(), errors, false);
        QVERIFY2(r, joinDiagnostics(errors).c_str());
        QVERIFY(r->framework.rfind("megatron-core-2025-04", 0) == 0);
    }

    // A scenario file names its framework; the result says what the profile set.
    void scenarioFilesNameTheirFramework() {
        Scenario s = resolvedRows({{.id = "a", .zero = 0}})[0].scenario;
        s.workload.framework = "megatron";
        s.workload.framework_version = "2021-04";
        Diagnostics errors;
        const auto back = parseScenario(serializeScenario(s), errors);
        QVERIFY2(back, joinDiagnostics(errors).c_str());
        QCOMPARE(back->workload.framework, std::string("megatron"));
        QCOMPARE(back->workload.framework_version, std::string("2021-04"));
        const auto r = resolveScenario(*back, catalog(), errors, false);
        QVERIFY2(r, joinDiagnostics(errors).c_str());
        QVERIFY(!r->workload().overlap.grad_reduce);
        QVERIFY(r->framework.find("megatron-2019") == 0);
    }

    void catalogEntriesAreChecked() {
        const auto loadWith = [](const Json& profile) {
            Diagnostics errors;
            const auto loaded = Catalog::load(scratchCatalog(profile), errors);
            return loaded ? std::string() : joinDiagnostics(errors);
        };
        const Json good = {
            {"id", "x-2024"},
            {"framework", "x"},
            {"name", "X"},
            {"from", "2024-01"},
            {"behaviours",
             Json::array({{{"field", "overlap.tp_comm"}, {"value", true}, {"source", "FLASHATTN-2022"}}})}};
        QCOMPARE(loadWith(good), std::string());
        auto bad = good;
        bad["behaviours"][0]["field"] = "overlap.everything";
        QVERIFY(loadWith(bad).find("not a field of the workload") != std::string::npos);
        bad = good;
        bad["behaviours"][0]["value"] = "yes";
        QVERIFY(loadWith(bad).find("expected a value of workload.overlap.tp_comm") != std::string::npos);
        bad = good;
        bad["behaviours"][0]["source"] = "NOWHERE";
        QVERIFY(loadWith(bad).find("source \"NOWHERE\"") != std::string::npos);
        bad = good;
        bad["behaviours"][0]["devices"] = Json::array({"h900"});
        QVERIFY(loadWith(bad).find("unknown device \"h900\"") != std::string::npos);
        bad = good;
        bad["extends"] = "megatron-2019";
        QVERIFY(loadWith(bad).find("is not an earlier x profile") != std::string::npos);
        bad = good;
        bad["from"] = "2024";
        QVERIFY(loadWith(bad).find("YYYY-MM") != std::string::npos);
        bad = good;
        bad["behaviours"][0]["when"] = {{"parallel.zero", Json::array({"one"})}};
        QVERIFY(loadWith(bad).find("when.parallel.zero") != std::string::npos);
    }

    void joinAddsColumnsById() {
        const std::string text = "id,model\n1,a\n\n2,\"b, c\"\n";
        Diagnostics errors;
        const auto joined = joinCsvColumns(text, "id,framework,framework_version\n2,nemo,2024-07\n", errors);
        QVERIFY2(joined, joinDiagnostics(errors).c_str());
        QCOMPARE(*joined,
                 std::string("id,model,framework,framework_version\n1,a,,\n\n2,\"b, c\",nemo,2024-07\n"));
        QCOMPARE(*joinCsvColumns(text, "id,model\n1,x\n", errors), text); // it has them: read as it is
        QVERIFY(!joinCsvColumns(text, "id,model,framework\n1,x,y\n", errors));
        QVERIFY(joinDiagnostics(errors).find("column \"model\" is already") != std::string::npos);
        errors.clear();
        QVERIFY(!joinCsvColumns(text, "id,framework\n3,nemo\n", errors));
        QVERIFY(joinDiagnostics(errors).find("id 3") != std::string::npos);
        errors.clear();
        QVERIFY(!joinCsvColumns(text, "framework\nnemo\n", errors));
        QVERIFY(joinDiagnostics(errors).find("missing column \"id\"") != std::string::npos);
        errors.clear();
        QVERIFY(!joinCsvColumns(text, "id,framework\n1,a\n1,b\n", errors));
        QVERIFY(joinDiagnostics(errors).find("repeats") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestFramework)
#include "tst_framework.moc"
