#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/scenarioio.h"

#include <QTest>

#include <cmath>
#include <filesystem>

using namespace choreo::models;
namespace fs = std::filesystem;

namespace {

const fs::path kCatalog = fs::path(CHOREO_TEST_ASSETS) / "catalog";

// A scratch catalog folder with one file holding `entry` in the list `key` (a device by default) plus the
// real sources.
fs::path scratchCatalog(const Json& entry, const char* key = "devices") {
    const fs::path dir = fs::temp_directory_path() / "choreo-tst-catalog";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(kCatalog / "sources.json", dir / "sources.json");
    std::string error;
    writeTextFileAtomically(dir / "test.json",
                            Json{{"format", "choreo-catalog/1"}, {key, Json::array({entry})}}.dump(2), error);
    return dir;
}

Json h100() {
    std::string text, error;
    readTextFile(kCatalog / "nvidia.json", text, error);
    const Json doc = Json::parse(text);
    for (const auto& d : doc["devices"])
        if (d["id"] == "h100-sxm")
            return d;
    return {};
}

} // namespace

class TestCatalog : public QObject {
    Q_OBJECT
private slots:
    void loadsAndKnowsRequiredDevices() {
        Diagnostics errors;
        auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY2(catalog, joinDiagnostics(errors).c_str());
        for (const char* id :
             {"a100-sxm-80gb", "h100-sxm", "h200-sxm",  "b200",  "mi300x", "gaudi3",  "tpu-v5p",
              "a100-sxm-40gb", "h800-sxm", "gb200",     "gb300", "tpu-v4", "tpu-v5e", "gaudi2",
              "mi325x",        "mi355x",   "trainium2", "b300",  "l40s",   "rtx-4090"})
            QVERIFY2(catalog->find(id), id);
        bool cpu = false;
        for (const auto& d : catalog->devices())
            cpu = cpu || d.kind == DeviceKind::Cpu;
        QVERIFY2(cpu, "the catalog needs at least one server CPU");
    }

    void everyNumberHasADatedSource() {
        Diagnostics errors;
        auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY(catalog);
        for (const auto& d : catalog->devices()) {
            std::vector<const Sourced*> numbers = {&d.memory_GB,
                                                   &d.memory_bandwidth_TBps,
                                                   &d.tdp_W,
                                                   &d.idle_W,
                                                   &d.nic_Gbps,
                                                   &d.efficiency.gemm,
                                                   &d.efficiency.attention,
                                                   &d.efficiency.memory,
                                                   &d.efficiency.network,
                                                   &d.efficiency.kernel_overhead_us};
            for (const auto& [p, v] : d.peak_tflops)
                numbers.push_back(&v);
            for (const Sourced* n : numbers) {
                QVERIFY2(n->present(), d.id.c_str());
                const Source* s = catalog->source(n->source);
                QVERIFY2(s, (d.id + ": " + n->source).c_str());
                QVERIFY2(!s->as_of.empty(), (d.id + ": source " + n->source + " has no date").c_str());
            }
        }
    }

    void h100Figures() {
        Diagnostics errors;
        auto catalog = Catalog::load(kCatalog, errors);
        const Device* d = catalog->find("h100-sxm");
        QCOMPARE(d->peakFlops(Precision::Bf16).value_or(0), 989.4e12);
        QCOMPARE(d->memory_GB.value, 85.52); // 81,559 MiB, as nvidia-smi reports it
        QVERIFY(!catalog->find("a100-sxm-80gb")->peakFlops(Precision::Fp8));
    }

    // Blackwell's GEMM rates are the H200's sustained rates scaled by each chip's ratio to the H200 of
    // maximum achievable matmul FLOPS measured with one tool on all (MAMF-B200, MAMF-TABLE), with a size
    // curve per precision. Fused attention: GB200 is the H200's sustained curve scaled by NVIDIA's GB200/H200
    // kernel times with the same cuDNN (CUDNN-SDPA-919), B200 the GB200 rate scaled by their matmul ratio.
    // FlashAttention-2 on Hopper, measured in the same sweep as cuDNN on the H200 (CHOREO-CAL-H200-FA2):
    // 277 TFLOP/s asymptote, 0.280 of the 989 TFLOP/s bf16 peak, half rate at 25.9 GFLOP a call; the H100
    // and H800 share the H200's compute and take the same curve. Other devices have none (fused is used).
    void flashAttention2OnHopper() {
        Diagnostics errors;
        auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY2(catalog, joinDiagnostics(errors).c_str());
        for (const char* id : {"h100-sxm", "h800-sxm", "h200-sxm"}) {
            const DeviceEfficiency& e = catalog->find(id)->efficiency;
            QCOMPARE(e.attention_flash2.value, 0.280);
            QCOMPARE(e.attention_flash2.source, std::string("CHOREO-CAL-H200-FA2"));
            QCOMPARE(e.attention_flash2_half_gflop.value, 25.9);
            // Below cuDNN's at every size: at 137 GFLOP (32 heads of 128 at 4,096 tokens) 0.235 against
            // 0.398.
            QVERIFY(e.attentionFraction(137.4e9, true) < 0.6 * e.attentionFraction(137.4e9));
        }
        QVERIFY(!catalog->find("a100-sxm-80gb")->efficiency.attention_flash2.present());
        QVERIFY(!catalog->find("b200")->efficiency.attention_flash2.present());
    }

    void blackwellIsDerivedFromTheH200() {
        Diagnostics errors;
        auto catalog = Catalog::load(kCatalog, errors);
        const Device* h200 = catalog->find("h200-sxm");
        const double h200Bf16 =
            h200->efficiency.gemmAt(Precision::Bf16).value * *h200->peakFlops(Precision::Bf16);
        const double h200Fp8 =
            h200->efficiency.gemmAt(Precision::Fp8).value * *h200->peakFlops(Precision::Fp8);
        struct Chip {
            const char* id;
            double bf16Mamf, fp8Mamf;
        };
        // The share of a short run's rate that a GB200 keeps sustained, relative to an H200's: Azure's
        // cuBLASLt e4m3 rates after 10,000 warm-ups over four shapes (GB200 2,788.75, H200 1,333.6 TFLOP/s in
        // the mean) against the short runs' 3,615.6 and 1,453.4.
        const double sustained = (2788.75 / 3615.6) / (1333.6 / 1453.4);
        QVERIFY(std::fabs(sustained - 0.841) < 1e-3);
        for (const Chip& chip : {Chip{"b200", 1745.0, 3432.5}, Chip{"gb200", 1822.0, 3615.6}}) {
            const Device* d = catalog->find(chip.id);
            const DeviceEfficiency& e = d->efficiency;
            QCOMPARE(e.gemmAt(Precision::Bf16).source, std::string("AZURE-GEMM-GB200"));
            QCOMPARE(e.gemmAt(Precision::Fp8).source, std::string("AZURE-GEMM-GB200"));
            QCOMPARE(e.attention.source, std::string("CUDNN-SDPA-919"));
            // The fraction of the device's own peak: 691 x MAMF / 794.5 bf16, 1,168 x MAMF / 1,453.4 fp8,
            // each times the sustained share (rounded to three digits in the catalog).
            const double bf16Peak = *d->peakFlops(Precision::Bf16), fp8Peak = *d->peakFlops(Precision::Fp8);
            QVERIFY(std::fabs(e.gemmAt(Precision::Bf16).value -
                              h200Bf16 * chip.bf16Mamf / 794.5 * sustained / bf16Peak) < 1e-3);
            QVERIFY(std::fabs(e.gemmAt(Precision::Fp8).value -
                              h200Fp8 * chip.fp8Mamf / 1453.4 * sustained / fp8Peak) < 1e-3);
            // At its half-rate size a GEMM runs at half the large-GEMM fraction: 8.9 GFLOP bf16, 18.2 fp8.
            QVERIFY(std::fabs(e.gemmFraction(Precision::Bf16, 8.9e9) - e.gemmAt(Precision::Bf16).value / 2) <
                    1e-9);
            QVERIFY(std::fabs(e.gemmFraction(Precision::Fp8, 18.2e9) - e.gemmAt(Precision::Fp8).value / 2) <
                    1e-9);
            QCOMPARE(e.attention_half_gflop.value, 55.5);
        }
        // Attention in TFLOP/s: B200 = GB200 x 1,745.0 / 1,822.0; GB200 at 32,768 tokens (17,592 GFLOP a
        // call) = the H200's curve there x 2.526, NVIDIA's kernel-time ratio at that size, within the fit's 5
        // %.
        const auto attention = [&](const char* id, double gflop) {
            const Device* d = catalog->find(id);
            return d->efficiency.attentionFraction(gflop * 1e9) * *d->peakFlops(Precision::Bf16);
        };
        QVERIFY(std::fabs(attention("b200", 1e6) / attention("gb200", 1e6) - 1745.0 / 1822.0) < 2e-3);
        const double ratio = attention("gb200", 17592.2) / attention("h200-sxm", 17592.2);
        QVERIFY2(std::fabs(ratio / 2.526 - 1.0) < 0.05, qPrintable(QString::number(ratio)));

        // Blackwell Ultra: B300 from its own maximum achievable matmul FLOPS (1,769.0 bf16, 3,353.3 fp8) as
        // the B200 was; GB300, which the table lacks, is to GB200 as B300 is to B200. Neither takes the
        // GB200's sustained share: nothing was measured on Blackwell Ultra. Rates in TFLOP/s.
        const auto rate = [&](const char* id, Precision p) {
            const Device* d = catalog->find(id);
            return d->efficiency.gemmAt(p).value * *d->peakFlops(p);
        };
        QVERIFY(std::fabs(rate("b300", Precision::Bf16) / (h200Bf16 * 1769.0 / 794.5) - 1.0) < 1e-3);
        QVERIFY(std::fabs(rate("b300", Precision::Fp8) / (h200Fp8 * 3353.3 / 1453.4) - 1.0) < 1e-3);
        QVERIFY(std::fabs(rate("gb300", Precision::Bf16) /
                              (rate("gb200", Precision::Bf16) / sustained * 1769.0 / 1745.0) -
                          1.0) < 2e-3);
        QVERIFY(std::fabs(rate("gb300", Precision::Fp8) /
                              (rate("gb200", Precision::Fp8) / sustained * 3353.3 / 3432.5) -
                          1.0) < 2e-3);
        for (const char* id : {"b300", "gb300"}) {
            const DeviceEfficiency& e = catalog->find(id)->efficiency;
            QCOMPARE(e.gemmAt(Precision::Bf16).source, std::string("MAMF-TABLE"));
            QCOMPARE(e.memory.value, 0.84);
            // No measured fp4 rate: fp4 GEMMs take the fp8 fraction.
            QCOMPARE(e.gemmAt(Precision::Fp4).value, e.gemmAt(Precision::Fp8).value);
        }
    }

    void numberWithoutSourceIsRejected() {
        Json d = h100();
        d["id"] = "test-gpu";
        d["aliases"] = Json::array();
        d["tdp_W"].erase("source");
        Diagnostics errors;
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find("test.json: devices[0].tdp_W.source: missing required field") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    // Each device gives its purchase and rent price or why it has none; not both, not neither.
    void everyDeviceIsPricedOrSaysWhyNot() {
        Diagnostics errors;
        const auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY2(catalog, joinDiagnostics(errors).c_str());
        for (const auto& d : catalog->devices()) {
            QVERIFY2(d.buy_usd.present() != !d.no_buy_price.empty(), d.id.c_str());
            QVERIFY2(d.rent_usd_per_hour.present() != !d.no_rent_price.empty(), d.id.c_str());
        }
        Json d = h100();
        d["id"] = "test-gpu";
        d["aliases"] = Json::array();
        d["price"].erase("rent_usd_per_hour");
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find(
                     "devices[0].price.rent_usd_per_hour: missing: give rent_usd_per_hour "
                     "or no_rent_price") != std::string::npos,
                 joinDiagnostics(errors).c_str());
        errors.clear();
        d["price"]["no_rent_price"] = "not sourced yet";
        d["price"]["no_buy_price"] = "twice";
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find("price.no_buy_price: a device with buy_usd needs no reason") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
        errors.clear();
        d.erase("price");
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY(joinDiagnostics(errors).find("devices[0].price: missing") != std::string::npos);
    }

    // A figure a vendor only announced carries "announced": true; the device lists where, block by block, and
    // the flag is refused where no device's figure carries it (an engine's) or when it is not a boolean.
    void announcedFiguresAreListed() {
        Diagnostics errors;
        const auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY2(catalog, joinDiagnostics(errors).c_str());
        const Device* rubin = catalog->find("vr200");
        QVERIFY(rubin && rubin->announced() && rubin->peak_tflops.at(Precision::Bf16).announced);
        QVERIFY(!rubin->idle_W.announced); // an assumption of Choreo's, not the vendor's
        QVERIFY(!catalog->find("h100-sxm")->announced());
        Json d = h100();
        d["id"] = "test-gpu";
        d["aliases"] = Json::array();
        d["peak_tflops"]["bf16"]["announced"] = true;
        d["peak_tflops"]["fp8"]["announced"] = true;
        d["tdp_W"]["announced"] = true;
        d.erase("host"); // the scratch catalog has no CPUs
        auto loaded = Catalog::load(scratchCatalog(d), errors);
        QVERIFY2(loaded, joinDiagnostics(errors).c_str());
        const Device* test = loaded->find("test-gpu");
        QCOMPARE(test->announced_figures,
                 (std::vector<std::string>{"peak_tflops.bf16", "peak_tflops.fp8", "tdp_W"}));
        QCOMPARE(announcedFigureList(*test), std::string("peak_tflops (bf16, fp8) and tdp_W"));
        d["tdp_W"]["announced"] = "yes";
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find(
                     "devices[0].tdp_W.announced: expected true or false, got a string") != std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    // A device streams its weights (Cerebras) or holds them in SRAM and computes in supersteps (Graphcore),
    // never both: the two step models exclude each other.
    void aDeviceHasOneExecutionModel() {
        Diagnostics errors;
        const auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY2(catalog, joinDiagnostics(errors).c_str());
        const Device* ipu = catalog->find("bow-2000");
        QVERIFY(ipu && ipu->bulk_synchronous && !ipu->weight_streaming);
        QCOMPARE(ipu->bulk_synchronous->streaming_memory_GB.value, 64.0);
        Json d = h100();
        d["id"] = "test-chip";
        d["aliases"] = Json::array();
        d.erase("host");
        const Json figure = {{"value", 1}, {"source", "CHOREO-DEFAULT"}};
        d["weight_streaming"] = {
            {"bandwidth_GBps", figure}, {"max_systems", figure}, {"hop_latency_us", figure}};
        d["bulk_synchronous"] = {{"exchange_TBps", figure},        {"sync_us", figure},
                                 {"supersteps_per_layer", figure}, {"code_GB", figure},
                                 {"streaming_memory_GB", figure},  {"streaming_GBps", figure}};
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(
            joinDiagnostics(errors).find("devices[0].bulk_synchronous: a device either streams its weights "
                                         "or holds them") != std::string::npos,
            joinDiagnostics(errors).c_str());
    }

    void unknownSourceIsRejected() {
        Json d = h100();
        d["id"] = "test-gpu";
        d["aliases"] = Json::array();
        d["memory_GB"]["source"] = "S999";
        Diagnostics errors;
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find("source \"S999\" is not in any catalog file's sources") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    // An engine's scheduling order: mixed_batches is 0 or 1, decode_steps a whole number from 1 to 64; each
    // refused by its path.
    void engineSchedulingIsBounded() {
        std::string text, error;
        readTextFile(kCatalog / "engines.json", text, error);
        const Json doc = Json::parse(text);
        Json engine;
        for (const auto& e : doc["serving_engines"])
            if (e["id"] == "vllm-v0")
                engine = e;
        QVERIFY(!engine.is_null());
        const auto refused = [&](const char* key, double value, const char* message) {
            Json e = engine;
            e[key]["value"] = value;
            Diagnostics errors;
            QVERIFY(!Catalog::load(scratchCatalog(e, "serving_engines"), errors));
            const std::string expected = std::string("serving_engines[0].") + key + ": " + message;
            QVERIFY2(joinDiagnostics(errors).find(expected) != std::string::npos,
                     joinDiagnostics(errors).c_str());
        };
        refused("decode_steps", 2.5, "a whole number of iterations from 1 to 64, got 2.5");
        refused("decode_steps", 65, "a whole number of iterations from 1 to 64, got 65");
        refused("mixed_batches", 0.5, "1 (decodes and prefills share an iteration) or 0, got 0.5");
        Json e = engine;
        e["harness_markers"] = Json::array({"AMD"});
        Diagnostics errors;
        QVERIFY(!Catalog::load(scratchCatalog(e, "serving_engines"), errors));
        QVERIFY2(joinDiagnostics(errors).find("serving_engines[0].harness_markers: a marker of under 4 "
                                              "characters (\"AMD\") would match too much") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    void flashAttention2HalfSizeNeedsItsRate() {
        Json d = h100();
        d["id"] = "test-gpu";
        d["aliases"] = Json::array();
        d["efficiency"].erase("attention_flash2");
        Diagnostics errors;
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find(
                     "efficiency.attention_flash2_half_gflop: needs attention_flash2") != std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    // assets/catalog/accuracy.json (choreo-sim accuracy) attaches to the devices it names, by id or alias;
    // a device the catalog lacks, a count of too-fast rows above the rows, or a percentage that is not a
    // number is an error naming its path.
    void hostCpuMustBeInTheCatalog() {
        Json d = h100();
        QVERIFY(d.contains("host"));
        Diagnostics errors;
        QVERIFY(!Catalog::load(scratchCatalog(d), errors));
        QVERIFY2(joinDiagnostics(errors).find("host.cpu: \"xeon-8480\" is not a catalog CPU") !=
                     std::string::npos,
                 joinDiagnostics(errors).c_str());
    }

    void accuracyAttachesToDevices() {
        Diagnostics errors;
        auto catalog = Catalog::load(kCatalog, errors);
        QVERIFY2(catalog, joinDiagnostics(errors).c_str());
        const auto& onH100 = catalog->find("h100-sxm")->accuracy;
        QVERIFY(onH100 && onH100->runs >= 43 && onH100->too_fast <= onH100->runs &&
                onH100->fidelity == "analytical");
        QVERIFY(!catalog->find("rtx-4090")->accuracy); // no run on it

        Json d = h100();
        d["id"] = "test-gpu";
        d["aliases"] = Json::array({"tg"});
        d.erase("host"); // its host CPU is not in the scratch catalog (hostCpuMustBeInTheCatalog)
        const fs::path dir = scratchCatalog(d);
        const Json entry = {{"runs", 3},
                            {"too_fast", 2},
                            {"median_error_pct", -4.25},
                            {"p90_abs_error_pct", 9.0},
                            {"worst_error_pct", 12.5},
                            {"worst_run", "x.csv 7"}};
        auto write = [&](const Json& devices) {
            std::string error;
            writeTextFileAtomically(dir / "accuracy.json",
                                    Json{{"format", "choreo-catalog/1"},
                                         {"accuracy",
                                          {{"fidelity", "flow"},
                                           {"as_of", "2026-12-02"},
                                           {"command", "choreo-sim accuracy x.csv"},
                                           {"devices", devices}}}}
                                        .dump(),
                                    error);
        };
        write({{"tg", entry}});
        errors.clear();
        auto scratch = Catalog::load(dir, errors);
        QVERIFY2(scratch, joinDiagnostics(errors).c_str());
        const auto& a = scratch->find("test-gpu")->accuracy;
        QVERIFY(a && a->runs == 3 && a->too_fast == 2 && a->median_error_pct == -4.25 &&
                a->worst_run == "x.csv 7");
        QCOMPARE(
            describeAccuracy(*a),
            std::string("median 4.2 % too fast on 3 published runs (2 of them too fast), 90 % within 9.0 %, "
                        "the worst 12.5 % too slow (x.csv 7); flow fidelity, 2026-12-02"));
        QCOMPARE(accuracyHeadline(describeAccuracy(*a)), std::string("median 4.2 % too fast"));
        QCOMPARE(accuracyHeadline("no published run on x compared yet"),
                 std::string("no published run on x compared yet"));

        auto rejects = [&](const Json& devices, const std::string& expected) {
            write(devices);
            Diagnostics e;
            QVERIFY(!Catalog::load(dir, e));
            QVERIFY2(joinDiagnostics(e).find(expected) != std::string::npos, joinDiagnostics(e).c_str());
        };
        rejects({{"no-such-gpu", entry}},
                "accuracy.json: accuracy.devices.no-such-gpu: unknown device (known:");
        Json tooMany = entry;
        tooMany["too_fast"] = 4;
        rejects({{"tg", tooMany}}, "accuracy.devices.tg.too_fast: 4 is more than the 3 runs");
        Json text = entry;
        text["median_error_pct"] = "-4";
        rejects({{"tg", text}}, "accuracy.devices.tg.median_error_pct: expected a number, got a string");
        Json missing = entry;
        missing.erase("worst_error_pct");
        rejects({{"tg", missing}}, "accuracy.devices.tg.worst_error_pct: missing");
    }

    void duplicateIdIsRejected() {
        Json d = h100(); // same id as nvidia.json's, but the scratch folder has only this file: add it twice
        const fs::path dir = scratchCatalog(d);
        std::string error;
        writeTextFileAtomically(dir / "again.json",
                                Json{{"format", "choreo-catalog/1"}, {"devices", Json::array({d})}}.dump(),
                                error);
        Diagnostics errors;
        QVERIFY(!Catalog::load(dir, errors));
        QVERIFY(joinDiagnostics(errors).find("\"h100-sxm\" is defined twice") != std::string::npos);
    }

    void missingFolder() {
        Diagnostics errors;
        QVERIFY(!Catalog::load("/nonexistent/catalog", errors));
        QCOMPARE(errors[0].text(), std::string("catalog: folder not found: /nonexistent/catalog"));
    }
};

QTEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
