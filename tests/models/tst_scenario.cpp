#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "models/sweep.h"

#include <QTest>

#include <filesystem>
#include <functional>
#include <map>
#include <vector>

#include "tests/fulldisk.h"

using namespace choreo::models;

namespace {

std::string defaultText() {
    std::string text, error;
    if (!readTextFile(std::filesystem::path(CHOREO_TEST_ASSETS) / "scenarios" / "default.json", text, error))
        qFatal("%s", error.c_str());
    return text;
}

const Catalog& catalog() {
    static const Catalog c = [] {
        Diagnostics errors;
        auto loaded = Catalog::load(std::filesystem::path(CHOREO_TEST_ASSETS) / "catalog", errors);
        if (!loaded)
            qFatal("catalog: %s", joinDiagnostics(errors).c_str());
        return *loaded;
    }();
    return c;
}

// Applies `edit` to the default scenario's JSON and returns every diagnostic, structural then semantic.
std::string problemsAfter(const std::function<void(Json&)>& edit) {
    Json doc = Json::parse(defaultText());
    edit(doc);
    Diagnostics errors;
    auto scenario = parseScenario(doc.dump(), errors);
    if (scenario)
        resolveScenario(*scenario, catalog(), errors);
    return joinDiagnostics(errors);
}

// Edits of the data-driven error test, by row index (QTest data columns hold plain values).
std::vector<std::function<void(Json&)>>& edits() {
    static std::vector<std::function<void(Json&)>> all;
    return all;
}

// One row of the data-driven error test: the message expected after `edit` of the default scenario.
void row(const char* name, const char* expected, std::function<void(Json&)> edit) {
    edits().push_back(std::move(edit));
    QTest::newRow(name) << QString::fromUtf8(expected) << static_cast<qulonglong>(edits().size() - 1);
}

void addLayoutErrorRows() {
    row("tp does not divide heads", "workload.parallel.tp: 6 does not divide heads=64",
        [](Json& d) { d["workload"]["parallel"]["tp"] = 6; });
    row("layout vs pool", "cluster: tp*pp*dp = 96 but the pool has 128 devices",
        [](Json& d) { d["workload"]["parallel"]["dp"] = 6; });
    row("memory",
        "memory: 132.4 GB per device needed, h100-sxm has 85.52 GB (weights 9.082 GB, gradients 18.16 "
        "GB,",
        [](Json& d) {
            d["workload"]["recompute"] = "selective";
            d["workload"]["micro_batch"] = 2;
            d["workload"]["model"]["dropout"] = true;
        });
    row("unknown field", "workload.model.experts: unknown field",
        [](Json& d) { d["workload"]["model"]["experts"] = 8; });
    row("unknown top-level field", "colour: unknown field", [](Json& d) { d["colour"] = "blue"; });
    row("dropout not a boolean", "workload.model.dropout: expected true or false, got a number",
        [](Json& d) { d["workload"]["model"]["dropout"] = 0.1; });
    row("negative head width", "workload.model.head_dim: must be at least 0, got -64",
        [](Json& d) { d["workload"]["model"]["head_dim"] = -64; });
    row("heads do not divide hidden", "workload.model.heads: 48 does not divide hidden=8192 (set head_dim",
        [](Json& d) {
            d["workload"]["model"]["heads"] = 48;
            d["workload"]["model"]["kv_heads"] = 8;
            d["workload"]["parallel"]["tp"] = 4;
        });
    row("wrong type", "workload.model.layers: expected an integer, got a string",
        [](Json& d) { d["workload"]["model"]["layers"] = "80"; });
    row("fractional integer", "workload.global_batch: expected an integer, got 128.5",
        [](Json& d) { d["workload"]["global_batch"] = 128.5; });
    row("zero size", "workload.model.layers: must be at least 1, got 0",
        [](Json& d) { d["workload"]["model"]["layers"] = 0; });
    row("negative size", "cluster.pools[0].count: must be at least 1, got -8",
        [](Json& d) { d["cluster"]["pools"][0]["count"] = -8; });
    row("negative bandwidth", "cluster.network.nic_Gbps: must be greater than 0, got -400",
        [](Json& d) { d["cluster"]["network"]["nic_Gbps"] = -400; });
    row("unknown device", "cluster.pools[0].device: unknown device \"h1000\"",
        [](Json& d) { d["cluster"]["pools"][0]["device"] = "h1000"; });
}

void addInputErrorRows() {
    row("missing field", "workload.micro_batch: missing required field",
        [](Json& d) { d["workload"].erase("micro_batch"); });
    row("bad precision", "workload.precision: unknown precision \"fp7\"",
        [](Json& d) { d["workload"]["precision"] = "fp7"; });
    row("unsupported precision", "workload.precision: fp8 is not supported by a100-sxm-80gb", [](Json& d) {
        d["workload"]["precision"] = "fp8";
        d["cluster"]["pools"][0]["device"] = "a100-sxm-80gb";
    });
    row("fp4 without fp4 tensor cores", "workload.precision: fp4 is not supported by h100-sxm", [](Json& d) {
        d["workload"]["precision"] = "fp4";
        d["cluster"]["pools"][0]["device"] = "h100-sxm";
    });
    row("wrong format", "format: unsupported format \"choreo-scenario/9\"",
        [](Json& d) { d["format"] = "choreo-scenario/9"; });
    row("more stages than layers",
        "workload.parallel.pp: 16 pipeline stages for layers=8: every stage but the first and last needs "
        "a "
        "layer",
        [](Json& d) {
            d["workload"]["model"]["layers"] = 8;
            d["workload"]["parallel"]["pp"] = 16;
            d["workload"]["parallel"]["dp"] = 2;
        });
    row("batch split", "workload.global_batch: 100 is not a multiple of micro_batch*dp = 8",
        [](Json& d) { d["workload"]["global_batch"] = 100; });
    row("pue below one", "costs.pue: must be at least 1, got 0.9", [](Json& d) { d["costs"]["pue"] = 0.9; });
    row("pools not an array", "cluster.pools: expected an array, got an object",
        [](Json& d) { d["cluster"]["pools"] = Json::object(); });
    row("bad topology", "cluster.network.topology.kind: unknown topology \"ring\"",
        [](Json& d) { d["cluster"]["network"]["topology"]["kind"] = "ring"; });
    row("unknown overlap field", "workload.overlap.pp_comm: unknown field", [](Json& d) {
        d["workload"]["overlap"] = Json{{"pp_comm", true}};
    });
    // The example is dense, pipelined without interleaving and fully recomputed: three refusals.
    const auto expertOverlap = [](Json& d) { d["workload"]["overlap"] = Json{{"ep_comm", true}}; };
    row("expert overlap without expert parallelism",
        "workload.overlap.ep_comm: overlapping the expert all-to-alls needs a Mixture-of-Experts model "
        "with "
        "expert parallelism (parallel.ep above 1), got ep=1",
        expertOverlap);
    row("expert overlap with pipelining but no interleaving",
        "workload.overlap.ep_comm: with pipeline parallelism (pp=4) it needs interleaving (parallel.vp "
        "above "
        "1), got vp=1, as Megatron-Core",
        expertOverlap);
    row("expert overlap with full recomputation",
        "workload.overlap.ep_comm: needs recompute \"none\" or \"selective\" (Megatron-Core's), got "
        "\"full\"",
        expertOverlap);
}

void addTrainingErrorRows() {
    row("expert overlap under ZeRO-3",
        "workload.overlap.ep_comm: needs parallel.zero 0, 1 or 2 (the combined schedule is "
        "Megatron-Core's), "
        "got zero=3",
        [](Json& d) {
            d["workload"]["overlap"] = Json{{"ep_comm", true}};
            d["workload"]["parallel"]["zero"] = 3;
        });
    row("parameter-gather overlap without ZeRO 1/2",
        "workload.overlap.param_gather: overlapping the parameter gather needs the distributed optimizer "
        "(parallel.zero 1 or 2), got zero=0",
        [](Json& d) {
            d["workload"]["overlap"] = Json{{"param_gather", true}};
            d["workload"]["parallel"]["zero"] = 0;
        });
    row("DeepEP without expert parallelism",
        "workload.ep_dispatcher: DeepEP dispatches to the devices of expert parallelism: it needs a "
        "Mixture-of-Experts model with parallel.ep above 1, got ep=1",
        [](Json& d) { d["workload"]["ep_dispatcher"] = "deepep"; });
    row("unknown expert dispatcher",
        "workload.ep_dispatcher: unknown expert dispatcher \"nvshmem\" (known: alltoall, deepep)",
        [](Json& d) { d["workload"]["ep_dispatcher"] = "nvshmem"; });
    // Megatron-Core's --recompute-modules (the example recomputes fully).
    row("recompute modules without selective recomputation",
        "workload.recompute_modules: the modules apply to recompute \"selective\" (Megatron-Core "
        "--recompute-granularity selective), got recompute \"full\"",
        [](Json& d) {
            d["workload"]["recompute_modules"] = Json{{"layernorm", true}};
        });
    row("selective recomputation of no module",
        "workload.recompute_modules: selective recomputation of no module recomputes nothing: name one "
        "(core_attn, layernorm, mlp, moe, moe_act, shared_experts) or set recompute \"none\"",
        [](Json& d) {
            d["workload"]["recompute"] = "selective";
            d["workload"]["recompute_modules"] = Json{{"core_attn", false}};
        });
    row("MoE layer recomputed on a dense model",
        "workload.recompute_modules.moe: the model has no routed experts (workload.model.moe)", [](Json& d) {
            d["workload"]["recompute"] = "selective";
            d["workload"]["recompute_modules"] = Json{{"moe", true}};
        });
    row("unknown recompute module", "workload.recompute_modules.mla_up_proj: unknown field", [](Json& d) {
        d["workload"]["recompute"] = "selective";
        d["workload"]["recompute_modules"] = Json{{"mla_up_proj", true}};
    });
    row("bad gradient precision",
        "workload.gradient_precision: unsupported gradient precision \"fp8\" (known: fp32, bf16, fp16)",
        [](Json& d) { d["workload"]["gradient_precision"] = "fp8"; });
    row("gradients in the other 16-bit type",
        "workload.gradient_precision: gradients of bf16 training are fp32 or bf16, got fp16",
        [](Json& d) { d["workload"]["gradient_precision"] = "fp16"; });
    row("bad attention kernel",
        "workload.attention: unknown attention \"flash\" (known: fused, unfused, flash2)",
        [](Json& d) { d["workload"]["attention"] = "flash"; });
    row("bad gradient accumulation",
        "workload.gradient_accumulation: unknown accumulation \"lazy\" (known: fused, separate)",
        [](Json& d) { d["workload"]["gradient_accumulation"] = "lazy"; });
    row("bad ZeRO-3 engine",
        "workload.zero3_engine: unknown zero-3 engine \"fsdp\" (known: layered, deepspeed-2021)",
        [](Json& d) { d["workload"]["zero3_engine"] = "fsdp"; });
    row("remainders of fp16 weights",
        "workload.master_weights: remainders complete bf16 working weights; fp16 training keeps fp16 "
        "ones",
        [](Json& d) {
            d["workload"]["master_weights"] = "remainders";
            d["workload"]["precision"] = "fp16";
        });
    row("bad master weights", "workload.master_weights: unknown master weights \"bf16\"",
        [](Json& d) { d["workload"]["master_weights"] = "bf16"; });
    row("offloading more layers than the model has",
        "workload.activation_offload_layers: must be between 0 and layers-1=79, got 80", [](Json& d) {
            d["workload"]["activation_offload_layers"] = 80;
            d["workload"]["parallel"]["pp"] = 1;
            d["workload"]["parallel"]["dp"] = 32;
            d["workload"]["recompute"] = "none";
        });
    row("negative offloaded layers", "workload.activation_offload_layers: must be at least 0, got -1",
        [](Json& d) { d["workload"]["activation_offload_layers"] = -1; });
    row("offloading with pipeline parallelism",
        "workload.activation_offload_layers: activation offloading needs pp=1, got pp=4", [](Json& d) {
            d["workload"]["activation_offload_layers"] = 10;
            d["workload"]["recompute"] = "none";
        });
    row("offloading with recomputation",
        "workload.activation_offload_layers: activation offloading needs recompute none, got full",
        [](Json& d) {
            d["workload"]["activation_offload_layers"] = 10;
            d["workload"]["parallel"]["pp"] = 1;
            d["workload"]["parallel"]["dp"] = 32;
        });
    row("offloading without a host link",
        "workload.activation_offload_layers: l40s has no host-link bandwidth in the catalog", [](Json& d) {
            d["cluster"]["pools"][0]["device"] = "l40s";
            d["workload"]["activation_offload_layers"] = 10;
            d["workload"]["parallel"]["pp"] = 1;
            d["workload"]["parallel"]["dp"] = 32;
            d["workload"]["recompute"] = "none";
        });
}

void addExpertErrorRows() {
    row("bad fp8 recipe", "workload.fp8_recipe: unknown fp8 scaling \"mx\" (known: delayed, current)",
        [](Json& d) { d["workload"]["fp8_recipe"] = "mx"; });
    // Unfused attention keeps 5 a s^2 b / t = 5 * 64 * 8192^2 / 4 B = 5.37 GB per layer: 429.5 GB for the
    // 20 layers x 4 micro-batches stage 0 holds, on top of the 47.65 GB of recompute "none".
    row("unfused attention needs memory", "activations 477.1 GB", [](Json& d) {
        d["workload"]["attention"] = "unfused";
        d["workload"]["recompute"] = "none";
        d["workload"]["model"]["dropout"] = true;
    });
    row("ep without experts",
        "workload.parallel.ep: expert parallelism needs a Mixture-of-Experts model (workload.model.moe), "
        "got ep=2",
        [](Json& d) { d["workload"]["parallel"]["ep"] = 2; });
    row("top_k beyond experts", "workload.model.moe.top_k: must be between 1 and experts=8, got 9",
        [](Json& d) {
            d["workload"]["model"]["moe"] = Json{{"experts", 8}, {"top_k", 9}, {"expert_ffn_hidden", 1024}};
        });
    row("ep does not divide experts", "workload.parallel.ep: 8 does not divide experts=6", [](Json& d) {
        d["workload"]["model"]["moe"] = Json{{"experts", 6}, {"top_k", 2}, {"expert_ffn_hidden", 1024}};
        d["workload"]["parallel"]["ep"] = 8;
    });
    // Expert groups are carved from the data- and context-parallel ranks together (dp 8 x cp 1 here).
    row("ep does not divide dp*cp", "workload.parallel.ep: 16 does not divide dp*cp=8", [](Json& d) {
        d["workload"]["model"]["moe"] = Json{{"experts", 16}, {"top_k", 2}, {"expert_ffn_hidden", 1024}};
        d["workload"]["parallel"]["ep"] = 16;
    });
    row("etp without experts",
        "workload.parallel.etp: expert tensor parallelism needs a Mixture-of-Experts model "
        "(workload.model.moe), got etp=1",
        [](Json& d) { d["workload"]["parallel"]["etp"] = 1; });
    row("etp does not divide tp", "workload.parallel.etp: must divide tp=4, got 3", [](Json& d) {
        d["workload"]["model"]["moe"] = Json{{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 1536}};
        d["workload"]["parallel"]["etp"] = 3;
    });
    // With etp 1 the expert groups come from the tensor ranks too: (4 / 1) x 8 x 1 = 32 devices.
    row("ep does not divide the folded ranks", "workload.parallel.ep: 64 does not divide (tp/etp)*dp*cp=32",
        [](Json& d) {
            d["workload"]["model"]["moe"] = Json{{"experts", 64}, {"top_k", 2}, {"expert_ffn_hidden", 1024}};
            d["workload"]["parallel"]["ep"] = 64;
            d["workload"]["parallel"]["etp"] = 1;
        });
    row("folding needs sequence parallelism",
        "workload.parallel.sequence_parallel: must be true with etp=1 below tp=4", [](Json& d) {
            d["workload"]["model"]["moe"] = Json{{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 1024}};
            d["workload"]["parallel"]["etp"] = 1;
            d["workload"]["parallel"]["sequence_parallel"] = false;
        });
    row("unknown moe field", "workload.model.moe.capacity: unknown field", [](Json& d) {
        d["workload"]["model"]["moe"] =
            Json{{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 1024}, {"capacity", 1.25}};
    });
    row("too many devices",
        "cluster.pools[0].count: 1048576 devices is more than the 131072 a pool can simulate",
        [](Json& d) { d["cluster"]["pools"][0]["count"] = 1048576; });
    row("too many micro-batches", "workload.global_batch: 131072 micro-batches per pipeline and step is more",
        [](Json& d) { d["workload"]["global_batch"] = 1048576; });
    row("tp beyond node", "workload.parallel.tp: 16 exceeds devices_per_node=8", [](Json& d) {
        d["workload"]["parallel"]["tp"] = 16;
        d["workload"]["parallel"]["dp"] = 2;
    });
}

} // namespace

class TestScenario : public QObject {
    Q_OBJECT
private slots:
    void defaultRoundTripsExactly() {
        const std::string text = defaultText();
        Diagnostics errors;
        auto scenario = parseScenario(text, errors);
        QVERIFY2(scenario, joinDiagnostics(errors).c_str());
        QCOMPARE(serializeScenario(*scenario), text); // the file is in canonical form
        auto again = parseScenario(serializeScenario(*scenario), errors);
        QVERIFY(again);
        QVERIFY(*again == *scenario);
    }

    void optionalFieldsStayAbsent() {
        Json doc = Json::parse(defaultText());
        doc["cluster"]["network"]["scale_up"] = Json{{"bandwidth_GBps", 300.0}};
        doc["workload"]["pool"] = "gpus";
        doc["workload"]["attention"] = "unfused";
        doc["workload"]["gradient_accumulation"] = "separate";
        doc["workload"]["zero3_engine"] = "deepspeed-2021";
        doc["workload"]["fp8_recipe"] = "current";
        doc["workload"]["master_weights"] = "remainders";
        doc["workload"]["overlap"] =
            Json{{"tp_comm", true}, {"grad_reduce", false}, {"ep_comm", true}}; // defaults are not written
        doc["workload"]["gradient_precision"] = "bf16";
        doc["workload"]["activation_offload_layers"] = 20;
        doc["workload"]["model"]["head_dim"] = 256;
        doc["workload"]["model"]["moe"] = Json{{"experts", 8},
                                               {"top_k", 2},
                                               {"expert_ffn_hidden", 7168},
                                               {"shared_experts", 1},
                                               {"dense_layers", 2}};
        doc["workload"]["parallel"]["ep"] = 4;
        doc["workload"]["parallel"]["etp"] = 1;
        doc["costs"]["rent_usd_per_device_hour"] = 2.5;
        Diagnostics errors;
        auto scenario = parseScenario(doc.dump(), errors);
        QVERIFY2(scenario, joinDiagnostics(errors).c_str());
        QCOMPARE(scenario->cluster.network.scale_up.bandwidth_GBps.value_or(0), 300.0);
        QVERIFY(!scenario->cluster.network.scale_up.fabric);
        const Json out = Json::parse(serializeScenario(*scenario));
        QVERIFY(nlohmann::json::parse(out.dump()) ==
                nlohmann::json::parse(doc.dump())); // same fields, any order
    }

    void defaultIsValid() {
        Diagnostics errors;
        auto scenario = parseScenario(defaultText(), errors);
        QVERIFY(scenario);
        auto resolved = resolveScenario(*scenario, catalog(), errors);
        QVERIFY2(resolved, joinDiagnostics(errors).c_str());
        QCOMPARE(resolved->pool().count, 128);
        QCOMPARE(resolved->device().id, std::string("h100-sxm"));
        QCOMPARE(resolved->nic_Bps, 400e9 / 8);
    }

    void errors_data() {
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qulonglong>("edit");
        edits().clear();
        addLayoutErrorRows();
        addInputErrorRows();
        addTrainingErrorRows();
        addExpertErrorRows();
    }

    void errors() {
        QFETCH(QString, expected);
        QFETCH(qulonglong, edit);
        const std::string got = problemsAfter(edits().at(edit));
        QVERIFY2(
            QString::fromStdString(got).contains(expected),
            qPrintable(QStringLiteral("expected \"%1\" in:\n%2").arg(expected, QString::fromStdString(got))));
    }

    // ep 32 does not divide dp 8, but with experts whole on each device (etp 1) the 4 tensor ranks join
    // the expert groups: 4 x 8 = 32 devices.
    void expertTensorParallelismWidensExpertGroups() {
        auto moe = [](Json& d, std::optional<int> etp) {
            d["workload"]["model"]["moe"] = Json{{"experts", 64}, {"top_k", 2}, {"expert_ffn_hidden", 1024}};
            d["workload"]["parallel"]["ep"] = 32;
            if (etp)
                d["workload"]["parallel"]["etp"] = *etp;
        };
        QCOMPARE(problemsAfter([&](Json& d) { moe(d, 1); }), std::string());
        QVERIFY(problemsAfter([&](Json& d) {
                    moe(d, std::nullopt);
                }).find("workload.parallel.ep: 32 does not divide dp*cp=8") != std::string::npos);
        QVERIFY(problemsAfter([&](Json& d) {
                    moe(d, 2);
                }).find("workload.parallel.ep: 32 does not divide (tp/etp)*dp*cp=16") != std::string::npos);
    }

    void scalingSweepKeepsTheLayout() {
        Diagnostics errors;
        auto base = parseScenario(defaultText(), errors);
        QVERIFY(base);
        base->workload.parallel.cp = 2; // 4 * 4 * 8 * 2 = 256 devices
        base->cluster.pools[0].count = 256;
        const auto points = scalingSweep(*base);
        QVERIFY(points.size() >= 4);
        bool hasBase = false;
        for (const auto& point : points) {
            const auto& p = point.scenario.workload.parallel;
            QCOMPARE(point.scenario.trainingPool()->count, p.devices());
            QCOMPARE(point.devices, p.devices());
            QCOMPARE(p.cp, std::int64_t(2));
            QCOMPARE(point.scenario.workload.global_batch, base->workload.global_batch);
            hasBase = hasBase || p.dp == base->workload.parallel.dp;
            Diagnostics problems;
            resolveScenario(point.scenario, catalog(), problems, /*checkMemory=*/false);
            QVERIFY2(problems.empty(), joinDiagnostics(problems).c_str());
        }
        QVERIFY(hasBase);
    }

    // A torus is resized with the devices, as TPU slices grow: 64 chips on 4 x 4 x 4 become 32 on 2 x 4 x 4,
    // 8 on 2 x 2 x 2 and 128 on 8 x 4 x 4 (the longest axis halved, the shortest doubled), each valid.
    void scalingSweepResizesATorus() {
        Diagnostics errors;
        auto base = parseScenario(defaultText(), errors);
        QVERIFY(base);
        auto& pool = base->cluster.pools[0];
        pool.device = "tpu-v5p";
        pool.count = 64;
        pool.devices_per_node = 4;
        base->workload.parallel = {};
        base->workload.parallel.dp = 64;
        base->workload.parallel.zero = 3;
        base->workload.global_batch = 512;
        base->cluster.network.topology.kind = TopologyKind::Torus3d;
        base->cluster.network.topology.dims = std::vector<std::int64_t>{4, 4, 4};
        std::map<std::int64_t, std::vector<std::int64_t>> dimsAt;
        for (const auto& point : scalingSweep(*base, 3, 1)) {
            dimsAt[point.devices] = *point.scenario.cluster.network.topology.dims;
            Diagnostics problems;
            resolveScenario(point.scenario, catalog(), problems, /*checkMemory=*/false);
            QVERIFY2(problems.empty(), joinDiagnostics(problems).c_str());
        }
        QCOMPARE(dimsAt.size(), std::size_t(5));
        QCOMPARE(dimsAt[8], (std::vector<std::int64_t>{2, 2, 2}));
        QCOMPARE(dimsAt[32], (std::vector<std::int64_t>{2, 4, 4}));
        QCOMPARE(dimsAt[64], (std::vector<std::int64_t>{4, 4, 4}));
        QCOMPARE(dimsAt[128], (std::vector<std::int64_t>{8, 4, 4}));
    }

    void deviceTypeAndLayoutSweepsResolve() {
        Diagnostics errors;
        auto base = parseScenario(defaultText(), errors);
        QVERIFY(base);
        const auto types = deviceTypeSweep(*base, catalog());
        QVERIFY(types.size() >= 2);
        bool h100 = false;
        for (const auto& point : types) {
            Diagnostics problems;
            QVERIFY2(resolveScenario(point.scenario, catalog(), problems), joinDiagnostics(problems).c_str());
            QCOMPARE(point.scenario.trainingPool()->device, point.label);
            QCOMPARE(point.devices, base->trainingPool()->count);
            h100 = h100 || point.label == base->trainingPool()->device;
        }
        QVERIFY(h100);
        // Fewer candidates than the catalog: some devices cannot hold Llama-3 70B this way.
        QVERIFY(types.size() < catalog().devices().size());

        const auto layouts = layoutSweep(*base, catalog(), 10);
        QVERIFY(layouts.size() >= 2);
        QVERIFY(layouts.size() <= 10);
        std::int64_t previous = 0;
        for (const auto& point : layouts) {
            const auto& p = point.scenario.workload.parallel;
            QCOMPARE(p.devices(), base->trainingPool()->count);
            QVERIFY(p.tp * p.pp >= previous); // smallest model-parallel groups first
            previous = p.tp * p.pp;
            Diagnostics problems;
            QVERIFY2(resolveScenario(point.scenario, catalog(), problems), joinDiagnostics(problems).c_str());
        }
    }

    void topologyForKindFillsWhatTheKindNeeds() {
        const Pool pool{"gpus", "h100-sxm", 128, 8};
        Topology from;
        from.oversubscription = 2.0;
        from.radix = 128;
        from.latency_us = 0.5;
        const auto torus = topologyForKind(TopologyKind::Torus3d, pool, from);
        QCOMPARE(*torus.dims, (std::vector<std::int64_t>{4, 4, 8}));
        QVERIFY(!torus.radix);                 // a torus has no switches
        QCOMPARE(torus.oversubscription, 1.0); // not a fat tree
        QCOMPARE(torus.latency_us, std::optional<double>(0.5));
        const auto dragonfly = topologyForKind(TopologyKind::Dragonfly, pool, from);
        QCOMPARE(*dragonfly.groups * *dragonfly.routers_per_group, std::int64_t(16)); // a router per node
        QCOMPARE(dragonfly.radix, std::optional<std::int64_t>(128));
        QCOMPARE(topologyForKind(TopologyKind::SingleSwitch, pool, {}).radix,
                 std::optional<std::int64_t>(128));
        const auto rail = topologyForKind(TopologyKind::RailFatTree, pool, from);
        QCOMPARE(rail.oversubscription, 2.0);
        QVERIFY(!rail.dims && !rail.groups);
        // Every kind plans for this pool on the catalog's H100.
        for (auto kind : {TopologyKind::FatTree, TopologyKind::RailFatTree, TopologyKind::SingleSwitch,
                          TopologyKind::Dragonfly, TopologyKind::Torus3d}) {
            Scenario s;
            s.cluster.pools.push_back(pool);
            s.cluster.network.topology = topologyForKind(kind, pool, {});
            Diagnostics problems;
            QVERIFY2(planTrainingPoolNetwork(s, catalog(), problems), joinDiagnostics(problems).c_str());
        }
    }

    void malformedJson() {
        Diagnostics errors;
        QVERIFY(!parseScenario("{\"format\": \"choreo-scenario/1\", \"name\": ", errors));
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY(errors[0].text().starts_with("(document): malformed JSON:"));
        errors.clear();
        QVERIFY(!parseScenario("[1, 2]", errors));
        QCOMPARE(errors[0].text(), std::string("(document): expected an object, got an array"));
    }

    void fieldOverridesSetFieldsByPath() {
        std::string error;
        const auto count = parseFieldOverride("cluster.pools[0].count=256", error);
        QVERIFY2(count, error.c_str());
        QCOMPARE(count->path, std::string("cluster.pools[0].count"));
        QVERIFY(count->value == Json(256));
        QVERIFY(parseFieldOverride("workload.recompute=full", error)->value == Json("full")); // a bare word
        QVERIFY(parseFieldOverride("name=\"7\"", error)->value == Json("7"));                 // quoted JSON
        Json doc = Json::parse(defaultText());
        QVERIFY(applyFieldOverride(doc, *count, error));
        QVERIFY(applyFieldOverride(doc, *parseFieldOverride("workload.overlap.tp_comm=true", error), error));
        QVERIFY(doc["cluster"]["pools"][0]["count"] == Json(256));
        QVERIFY(doc["workload"]["overlap"]["tp_comm"] == Json(true));

        // Malformed assignments and paths that lead nowhere say what is wrong.
        const std::pair<const char*, const char*> malformed[] = {
            {"workload.micro_batch", "expected PATH=VALUE"},
            {"=2", "expected PATH=VALUE"},
            {"workload..tp=2", "expected a field name at character 10"},
            {"cluster.pools[-1].count=2",
             "expected [INDEX] with a whole number, or [KIND] with a stage's kind, after \"cluster.pools\""},
            {"workload.=2", "the path ends with \".\""},
            {"cluster.pools[0]x=2", "unexpected \"x\" after \"cluster.pools[0]\""},
        };
        for (const auto& [assignment, message] : malformed) {
            error.clear();
            QVERIFY2(!parseFieldOverride(assignment, error), assignment);
            QVERIFY2(error.find(message) != std::string::npos, error.c_str());
        }
        const std::pair<const char*, const char*> nowhere[] = {
            {"cluster.pools[3].count=2", "cluster.pools has 1 entry; there is no [3]"},
            {"workload.global_batch.size=2", "workload.global_batch is an integer, not an object"},
            {"workload[0]=2", "workload is an object, not an array"},
            {"cluster.pools[data].count=2", "cluster.pools has no entry of kind \"data\""},
        };
        for (const auto& [assignment, message] : nowhere) {
            error.clear();
            Json again = Json::parse(defaultText());
            QVERIFY2(!applyFieldOverride(again, *parseFieldOverride(assignment, error), error), assignment);
            QCOMPARE(error, std::string(message));
        }
    }

    void fieldOverridesGetTheFilesChecks() {
        // The override is read as the file would be: a misspelt key and a bad value name their path.
        const auto file = std::filesystem::path(CHOREO_TEST_ASSETS) / "scenarios" / "default.json";
        std::string error;
        Diagnostics errors;
        QVERIFY(!loadScenarioFile(file, errors, {*parseFieldOverride("workload.paralel.tp=2", error)}));
        QVERIFY2(joinDiagnostics(errors).find("workload.paralel: unknown field") != std::string::npos,
                 joinDiagnostics(errors).c_str());
        errors.clear();
        QVERIFY(
            !loadScenarioFile(file, errors, {*parseFieldOverride("workload.recompute=sometimes", error)}));
        QVERIFY2(joinDiagnostics(errors).find("workload.recompute: unknown recompute \"sometimes\"") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
        errors.clear();
        const auto scenario = loadScenarioFile(file, errors,
                                               {*parseFieldOverride("cluster.pools[0].count=256", error),
                                                *parseFieldOverride("workload.parallel.dp=16", error)});
        QVERIFY2(scenario, joinDiagnostics(errors).c_str());
        QCOMPARE(scenario->cluster.pools[0].count, std::int64_t(256));
        QCOMPARE(scenario->workload.parallel.dp, std::int64_t(16));
    }

    // Degrees and batches beyond the field table's bounds are refused by name before any product of them
    // is formed, so that none can wrap (tp*pp*dp wrapped to the device count before).
    void hugeProductsAreRefusedNotWrapped() {
        const std::string layout =
            problemsAfter([](Json& d) { d["workload"]["parallel"]["dp"] = 4611686018427387904LL; });
        QVERIFY2(layout.find("workload.parallel.dp: must be at most 10000000, got 4611686018427387904") !=
                     std::string::npos,
                 layout.c_str());
        const std::string batch =
            problemsAfter([](Json& d) { d["workload"]["micro_batch"] = 9223372036854775807LL; });
        QVERIFY2(batch.find("workload.micro_batch: must be at most 1000000") != std::string::npos,
                 batch.c_str());
        const std::string chunks = problemsAfter([](Json& d) {
            d["workload"]["parallel"]["pp"] = 3037000500LL;
            d["workload"]["parallel"]["vp"] = 3037000500LL;
        });
        QVERIFY2(chunks.find("workload.parallel.pp: must be at most 4096") != std::string::npos,
                 chunks.c_str());
        QVERIFY2(chunks.find("workload.parallel.vp: must be at most 1024") != std::string::npos,
                 chunks.c_str());
    }

    void numbersOutOfRangeAreInvalidInput() {
        // nlohmann reports 1e400 as out_of_range, not parse_error: still a diagnostic, not an exception.
        Diagnostics errors;
        QVERIFY(!parseScenario("{\"format\": \"choreo-scenario/1\", \"a\": 1e400}", errors));
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY2(errors[0].text().starts_with("(document): malformed JSON: number overflow"),
                 errors[0].text().c_str());
    }

    void hugeInputFilesAreRefused() {
        std::string text, error;
        QVERIFY(!readTextFile("/dev/zero", text, error)); // would grow without end
        QVERIFY2(error.find("larger than 64 MiB") != std::string::npos, error.c_str());
        QVERIFY(text.empty());
    }

    void missingFileIsADiagnostic() {
        Diagnostics errors;
        QVERIFY(!loadScenarioFile("/nonexistent/choreo.json", errors));
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY(errors[0].text().starts_with("(file): cannot open /nonexistent/choreo.json"));
    }

    void saveIsAtomicAndLossless() {
        Diagnostics errors;
        auto scenario = parseScenario(defaultText(), errors);
        QVERIFY(scenario);
        const auto dir = std::filesystem::temp_directory_path() / "choreo-tst-scenario";
        std::filesystem::create_directories(dir);
        const auto file = dir / "s.json";
        std::string error;
        QVERIFY2(saveScenarioFile(file, *scenario, error), error.c_str());
        auto back = loadScenarioFile(file, errors);
        QVERIFY(back && *back == *scenario);
        QVERIFY(!std::filesystem::exists(file.string() + ".tmp-choreo"));
        // A save into a folder that does not exist fails with a message and touches nothing.
        QVERIFY(!saveScenarioFile(dir / "missing" / "s.json", *scenario, error));
        QVERIFY(error.find("cannot write") != std::string::npos);
        std::filesystem::remove_all(dir);
    }

    // The disk fills while a scenario is saved over the file it came from: the save fails, says so and
    // names the file, and the file on disk is still the one saved before, with no temporary left beside it.
    void saveOnAFullDiskKeepsTheFile() {
        Diagnostics errors;
        auto scenario = parseScenario(defaultText(), errors);
        QVERIFY(scenario);
        const auto dir = std::filesystem::temp_directory_path() / "choreo-tst-scenario-full";
        std::filesystem::create_directories(dir);
        const auto file = dir / "s.json";
        std::string error;
        QVERIFY2(saveScenarioFile(file, *scenario, error), error.c_str());
        auto edited = *scenario;
        edited.name = "edited while the disk filled";
        {
            choreo::testing::FullDisk full(64); // a few lines fit, the scenario does not
            if (!full.active())
                QSKIP("cannot limit the file size here");
            QVERIFY(!saveScenarioFile(file, edited, error));
        }
        QVERIFY2(error.find("cannot save " + file.string()) != std::string::npos, error.c_str());
        QVERIFY2(error.find("was not changed") != std::string::npos, error.c_str());
        auto kept = loadScenarioFile(file, errors);
        QVERIFY(kept && *kept == *scenario);
        QVERIFY(!std::filesystem::exists(file.string() + ".tmp-choreo"));
        std::filesystem::remove_all(dir);
    }
};

QTEST_APPLESS_MAIN(TestScenario)
#include "tst_scenario.moc"
