#include "models/calibration.h"
#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/profile.h"
#include "models/profilefit.h"
#include "models/result.h"
#include "models/scenarioio.h"
#include "models/stepcost.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

using namespace choreo::models;
namespace fs = std::filesystem;

namespace {

const Catalog& catalog() {
    static const Catalog c = [] {
        Diagnostics errors;
        auto loaded = Catalog::load(fs::path(CHOREO_TEST_ASSETS) / "catalog", errors);
        if (!loaded)
            qFatal("catalog: %s", joinDiagnostics(errors).c_str());
        return *loaded;
    }();
    return c;
}

std::vector<GemmPoint> curvePoints(double rate, double half, double noise = 0.0) {
    std::vector<GemmPoint> points;
    int i = 0;
    for (double n : {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0}) {
        const double gflop = 2.0 * n * n * n / 1e9;
        const double wobble = noise * ((i++ % 2) ? 1.0 : -1.0);
        points.push_back({n, n, n, rate * gflop / (gflop + half) * (1.0 + wobble)});
    }
    return points;
}

// A GPU profile of an H100-like device, as a calibration would fit it.
Profile h100Profile() {
    Profile p;
    p.name = "h100-test";
    p.date = "2026-11-30T04:00:00Z";
    p.tool = "choreo-sim test";
    p.mode = "quick";
    p.kind = "gpu";
    p.device = "h100-sxm";
    p.identity = {{"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}};
    p.figures = {{"gpu.memory.copy_kernel", "copy", 2.9, "TB/s"}};
    p.fit.gemm[Precision::Bf16] = fitGemmCurve(curvePoints(700.0, 2.0));
    p.fit.memory_TBps = 2.9;
    p.fit.attention_TFLOPs = 420.0;
    p.fit.kernel_overhead_us = 2.5;
    p.fit.idle_W = 70.0;
    p.fit.compute_W = 650.0;
    p.fit.memory_W = 400.0;
    p.notes = {"synthetic"};
    return p;
}

const Device& h100() {
    return *catalog().find("h100-sxm");
}

// choreo-calibrate-gpu's document for an H100, trimmed to a few figures (docs/calibration.md).
Json gpuDocument() {
    Json gemm = Json::array();
    for (const auto& p : curvePoints(700.0, 2.0))
        gemm.push_back(Json{{"precision", "bf16"},
                            {"m", p.m},
                            {"n", p.n},
                            {"k", p.k},
                            {"shape", "square"},
                            {"time_s", p.gflop() / p.tflops / 1e3},
                            {"tflops", p.tflops},
                            {"max_rel_error", 1e-4},
                            {"library", "cublasLt"}});
    return Json{
        {"format", "choreo-gpu-measurements/1"},
        {"tool", "choreo-calibrate-gpu 0.1.0"},
        {"mode", "quick"},
        {"date", "2026-11-30T04:00:00Z"},
        {"device",
         {{"index", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}, {"sm_count", 132}}},
        {"gemm", gemm},
        {"memory",
         {{"bytes", 1 << 30},
          {"copy_kernel_TBps", 2.95},
          {"triad_kernel_TBps", 2.9},
          {"memcpy_d2d_TBps", 2.97}}},
        {"attention", Json::array({Json{{"batch", 1},
                                        {"heads", 32},
                                        {"seq_len", 4096},
                                        {"head_dim", 128},
                                        {"time_s", 0.01},
                                        {"tflops", 400.0}}})},
        {"launch", {{"plain_us", 2.4}, {"graph_us", 0.9}}},
        {"host_copy", {{"bytes", 1 << 28}, {"h2d_GBps", 52.0}, {"d2h_GBps", 50.0}}},
        {"power",
         {{"method", "nvml"}, {"idle_W", 72.0}, {"compute_W", 660.0}, {"memory_W", 420.0}, {"samples", 450}}},
        {"layer",
         {{"hidden", 4096},
          {"heads", 32},
          {"kv_heads", 8},
          {"ffn_hidden", 14336},
          {"ffn_gated", true},
          {"seq_len", 2048},
          {"micro_batch", 1},
          {"tp", 1},
          {"precision", "bf16"},
          {"forward_s", 0.004},
          {"backward_s", 0.008}}},
        {"failures", Json::array({"skipped: GEMM fp8 16384: time budget spent"})}};
}

// The diagnostics of fitting `doc` as the GPU document of `in`, joined; empty when it fits.
std::string fitErrors(CalibrationInputs in, const Json& doc) {
    in.gpu = doc;
    Diagnostics errors;
    if (buildProfile(in, catalog(), errors))
        return {};
    return joinDiagnostics(errors).empty() ? std::string("(no profile, no diagnostics)")
                                           : joinDiagnostics(errors);
}

std::string defaultScenarioText() {
    std::string text, error;
    readTextFile(fs::path(CHOREO_TEST_ASSETS) / "scenarios" / "default.json", text, error);
    return text;
}

ResolvedScenario resolvedDefault() {
    Diagnostics errors;
    auto s = parseScenario(defaultScenarioText(), errors);
    auto r = resolveScenario(*s, catalog(), errors);
    if (!r)
        qFatal("%s", joinDiagnostics(errors).c_str());
    return *r;
}

} // namespace

class TestProfile : public QObject {
    Q_OBJECT
private slots:
    void fitRecoversAKnownCurve() {
        const GemmCurve c = fitGemmCurve(curvePoints(700.0, 2.0));
        QVERIFY2(std::fabs(c.rate_TFLOPs - 700.0) < 0.01, std::to_string(c.rate_TFLOPs).c_str());
        QVERIFY2(std::fabs(c.half_gflop - 2.0) < 0.001, std::to_string(c.half_gflop).c_str());
        QVERIFY(c.rms_relative_error < 1e-6);
        QCOMPARE(c.points.size(), std::size_t{6});
        QVERIFY(std::fabs(c.tflopsAt(2.0) - 350.0) < 0.01);
        // Measurement noise of +-2% moves the fit by little, and the fit is the same every time.
        const GemmCurve noisy = fitGemmCurve(curvePoints(700.0, 2.0, 0.02));
        QVERIFY(std::fabs(noisy.rate_TFLOPs / 700.0 - 1.0) < 0.03);
        QVERIFY(noisy.rms_relative_error > 0.005 && noisy.rms_relative_error < 0.03);
        QCOMPARE(fitGemmCurve(curvePoints(700.0, 2.0, 0.02)), noisy);
    }

    void fitOfOneSizeIsFlat() {
        const GemmCurve c = fitGemmCurve({{4096, 4096, 4096, 650.0}, {4096, 4096, 4096, 660.0}});
        QCOMPARE(c.half_gflop, 0.0);
        QVERIFY(std::fabs(c.rate_TFLOPs - 655.0) < 0.1);
        // Flat data stays flat rather than inventing a size dependence.
        const GemmCurve flat = fitGemmCurve(curvePoints(500.0, 0.0));
        QCOMPARE(flat.half_gflop, 0.0);
        QVERIFY(std::fabs(flat.rate_TFLOPs - 500.0) < 1e-6);
        QVERIFY(fitGemmCurve({}).points.empty());
    }

    void profileRoundTrips() {
        Profile p = h100Profile();
        p.layer = LayerCheck{4096, 32, 8, 14336, 2048, 1, 1, true, Precision::Bf16, 0.012, 0.011};
        const std::string text = serializeProfile(p);
        Diagnostics errors;
        auto back = parseProfile(text, errors);
        QVERIFY2(back, joinDiagnostics(errors).c_str());
        QCOMPARE(*back, p);
        QCOMPARE(serializeProfile(*back), text);
    }

    void invalidProfilesNameThePath_data() {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("expected");
        QTest::newRow("malformed") << QStringLiteral("malformed")
                                   << QStringLiteral("(document): malformed JSON");
        QTest::newRow("format") << QStringLiteral("format")
                                << QStringLiteral("format: unsupported format \"choreo-profile/9\"");
        QTest::newRow("negative rate")
            << QStringLiteral("rate") << QStringLiteral("fit.gemm.bf16.rate_TFLOPs: must be greater than 0");
        QTest::newRow("precision") << QStringLiteral("precision")
                                   << QStringLiteral("fit.gemm.fp7: unknown precision");
        QTest::newRow("unknown field")
            << QStringLiteral("field") << QStringLiteral("fit.gemm.bf16.speed: unknown field");
        QTest::newRow("kind") << QStringLiteral("kind")
                              << QStringLiteral("kind: expected \"gpu\" or \"cpu\"");
        QTest::newRow("figures") << QStringLiteral("figures")
                                 << QStringLiteral("figures: missing required field");
        QTest::newRow("point") << QStringLiteral("point")
                               << QStringLiteral("fit.gemm.bf16.points[2].tflops: expected a number");
    }

    void invalidProfilesNameThePath() {
        QFETCH(QString, edit);
        QFETCH(QString, expected);
        Json doc = Json::parse(serializeProfile(h100Profile()));
        std::string text;
        if (edit == QStringLiteral("malformed"))
            text = "{\"format\": ";
        if (edit == QStringLiteral("format"))
            doc["format"] = "choreo-profile/9";
        if (edit == QStringLiteral("rate"))
            doc["fit"]["gemm"]["bf16"]["rate_TFLOPs"] = -5;
        if (edit == QStringLiteral("precision"))
            doc["fit"]["gemm"]["fp7"] = doc["fit"]["gemm"]["bf16"];
        if (edit == QStringLiteral("field"))
            doc["fit"]["gemm"]["bf16"]["speed"] = 1;
        if (edit == QStringLiteral("kind"))
            doc["kind"] = "tpu";
        if (edit == QStringLiteral("figures"))
            doc.erase("figures");
        if (edit == QStringLiteral("point"))
            doc["fit"]["gemm"]["bf16"]["points"][2]["tflops"] = "fast";
        if (text.empty())
            text = doc.dump();
        Diagnostics errors;
        QVERIFY(!parseProfile(text, errors));
        const std::string all = joinDiagnostics(errors);
        QVERIFY2(all.find(expected.toStdString()) != std::string::npos, all.c_str());
    }

    void applyRefinesTheDevice() {
        Device d = h100();
        Diagnostics errors;
        std::vector<std::string> skipped;
        QVERIFY2(applyProfile(h100Profile(), d, errors, &skipped), joinDiagnostics(errors).c_str());
        const auto& bf16 = d.efficiency.gemm_by_precision.at(Precision::Bf16);
        QCOMPARE(bf16.source, std::string("PROFILE:h100-test"));
        QVERIFY(std::fabs(bf16.value - 700.0 / 989.4) < 1e-4);
        QVERIFY(std::fabs(d.efficiency.gemm_half_gflop_by_precision.at(Precision::Bf16).value - 2.0) < 1e-3);
        QVERIFY(std::fabs(d.efficiency.memory.value - 2.9 / 3.35) < 1e-9);
        // The profile's attention is unfused (batched GEMMs and softmax): the fused rate stays the catalog's.
        QCOMPARE(d.efficiency.attention, h100().efficiency.attention);
        QCOMPARE(d.efficiency.kernel_overhead_us.value, 2.5);
        QCOMPARE(d.idle_W.value, 70.0);
        QCOMPARE(d.tdp_W.value, 650.0);
        QCOMPARE(d.tdp_W.source, std::string("PROFILE:h100-test"));
        // What was not measured keeps its catalog value and source.
        QCOMPARE(d.efficiency.network, h100().efficiency.network);
        QCOMPARE(d.efficiency.gemm_by_precision.at(Precision::Fp8),
                 h100().efficiency.gemm_by_precision.at(Precision::Fp8));
        // A small GEMM runs below the large-GEMM rate, by the fitted curve.
        QVERIFY(std::fabs(d.efficiency.gemmFraction(Precision::Bf16, 2e9) - 350.0 / 989.4) < 1e-3);
        QCOMPARE(skipped.size(), std::size_t{1});
        QVERIFY2(skipped[0].rfind("fused attention: not measured", 0) == 0, skipped[0].c_str());
        const Source s = profileSource(h100Profile());
        QCOMPARE(s.key, std::string("PROFILE:h100-test"));
        QCOMPARE(s.as_of, std::string("2026-11-30"));
    }

    void applyRejectsAProfileThatDoesNotFit() {
        Profile p = h100Profile();
        p.fit.gemm[Precision::Bf16].rate_TFLOPs = 1200.0; // above the H100's 989 TFLOP/s
        Device d = h100();
        Diagnostics errors;
        QVERIFY(!applyProfile(p, d, errors));
        QCOMPARE(errors.size(), std::size_t{1});
        QCOMPARE(errors[0].path, std::string("fit.gemm.bf16.rate_TFLOPs"));
        QVERIFY(errors[0].message.find("exceeds h100-sxm") != std::string::npos);
        QCOMPARE(d.efficiency.memory, h100().efficiency.memory); // unchanged
        QCOMPARE(d.efficiency.gemm_by_precision, h100().efficiency.gemm_by_precision);
        Device cpu = *catalog().find("epyc-9654");
        errors.clear();
        QVERIFY(!applyProfile(h100Profile(), cpu, errors));
        QCOMPARE(errors[0].path, std::string("kind"));
        // A precision the device lacks is skipped and said so.
        Profile fp8 = h100Profile();
        fp8.fit.gemm[Precision::Fp8] = fitGemmCurve(curvePoints(300.0, 4.0));
        Device a100 = *catalog().find("a100-sxm-80gb");
        std::vector<std::string> skipped;
        errors.clear();
        fp8.fit.gemm.erase(Precision::Bf16);
        fp8.fit.attention_TFLOPs = 200.0;
        fp8.fit.memory_TBps = 1.8;
        QVERIFY2(applyProfile(fp8, a100, errors, &skipped), joinDiagnostics(errors).c_str());
        QCOMPARE(skipped.size(), std::size_t{2}); // fp8, and the fused attention it did not measure
        QVERIFY(skipped[0].find("fp8") != std::string::npos);
        QVERIFY(skipped[1].find("fused attention") != std::string::npos);
    }

    void scenarioWithAProfileGivesOtherNumbersAndSaysSo() {
        const ResolvedScenario plain = resolvedDefault();
        ResolvedScenario calibrated = plain;
        Diagnostics errors;
        QVERIFY2(applyCalibrationProfile(calibrated, h100Profile(), std::nullopt, errors),
                 joinDiagnostics(errors).c_str());
        QCOMPARE(calibrated.calibration, std::string("h100-test"));
        QCOMPARE(calibrated.calibration_source->key, std::string("PROFILE:h100-test"));
        QCOMPARE(calibrated.device().efficiency.kernel_overhead_us.value, 2.5);
        QCOMPARE(plain.device().efficiency.kernel_overhead_us.value, 4.0); // the catalog is untouched
        const StageCost a = stageCost(plain, 0), b = stageCost(calibrated, 0);
        QVERIFY(std::fabs(a.forward_s - b.forward_s) > 1e-3 * a.forward_s);
        QVERIFY(std::fabs(a.gemm_s - b.gemm_s) > 1e-3 * a.gemm_s);
        StepMeasurement step;
        step.step_time_s = 10.0;
        step.calibration = "none (the catalog's figures, each with its source)";
        QCOMPARE(finishResult(calibrated, step).calibration, std::string("h100-test"));
        QCOMPARE(finishResult(plain, step).calibration, step.calibration); // the H100's figures are measured
        // Without a profile, a device whose efficiencies are assumptions says so.
        // (The catalog's A100 has a GEMM figure derived from measurements and an assumed attention figure.)
        ResolvedScenario a100 = plain;
        const Device catalogA100 = *catalog().find("a100-sxm-80gb");
        a100.pools[a100.training_pool].device = &catalogA100;
        QCOMPARE(finishResult(a100, step).calibration,
                 step.calibration +
                     "; a100-sxm-80gb's attention efficiency is assumed (CHOREO-DEFAULT), not measured");
        Device assumed = catalogA100;
        assumed.efficiency.gemm.source = "CHOREO-DEFAULT";
        a100.pools[a100.training_pool].device = &assumed;
        QCOMPARE(finishResult(a100, step).calibration,
                 step.calibration + "; a100-sxm-80gb's GEMM and attention efficiencies are assumed "
                                    "(CHOREO-DEFAULT), not measured");
        // Copies of a calibrated scenario keep pointing at a live calibrated device.
        const ResolvedScenario copy = calibrated;
        QCOMPARE(copy.device().efficiency.kernel_overhead_us.value, 2.5);
    }

    void scenarioCalibrationFieldIsReadWrittenAndChecked() {
        Json doc = Json::parse(defaultScenarioText());
        doc["calibration"] = Json{{"profile", "h100-test"}, {"device", "h100-sxm"}};
        Diagnostics errors;
        auto s = parseScenario(doc.dump(), errors);
        QVERIFY2(s, joinDiagnostics(errors).c_str());
        QCOMPARE(s->calibration->profile, std::string("h100-test"));
        QCOMPARE(*s->calibration->device, std::string("h100-sxm"));
        auto again = parseScenario(serializeScenario(*s), errors);
        QCOMPARE(*again, *s);
        doc["calibration"] = Json{{"profil", "x"}};
        QVERIFY(!parseScenario(doc.dump(), errors));
        QVERIFY(joinDiagnostics(errors).find("calibration.profil: unknown field") != std::string::npos);

        // Found next to the scenario; a missing profile or an unused device is an error naming the field.
        const fs::path dir = fs::temp_directory_path() / "choreo-tst-profile";
        fs::remove_all(dir);
        fs::create_directories(dir);
        std::string error;
        QVERIFY(writeTextFileAtomically(dir / "h100-test.json", serializeProfile(h100Profile()), error));
        ResolvedScenario rs = resolvedDefault();
        rs.scenario.calibration = CalibrationRef{"h100-test", std::nullopt};
        errors.clear();
        QVERIFY2(applyScenarioCalibration(rs, {dir}, errors), joinDiagnostics(errors).c_str());
        QCOMPARE(rs.calibration, std::string("h100-test"));
        ResolvedScenario missing = resolvedDefault();
        missing.scenario.calibration = CalibrationRef{"nowhere", std::nullopt};
        QVERIFY(!applyScenarioCalibration(missing, {dir}, errors));
        QCOMPARE(errors.back().path, std::string("calibration.profile"));
        QVERIFY(missing.calibration.empty());
        ResolvedScenario other = resolvedDefault();
        other.scenario.calibration = CalibrationRef{"h100-test", std::string("b200")};
        errors.clear();
        QVERIFY(!applyScenarioCalibration(other, {dir}, errors));
        QCOMPARE(errors.back().path, std::string("calibration.device"));
        // A broken profile file is reported with its own JSON path.
        QVERIFY(writeTextFileAtomically(dir / "broken.json", "{\"format\": \"choreo-profile/1\"}", error));
        ResolvedScenario broken = resolvedDefault();
        broken.scenario.calibration = CalibrationRef{"broken", std::nullopt};
        errors.clear();
        QVERIFY(!applyScenarioCalibration(broken, {dir}, errors));
        QVERIFY2(joinDiagnostics(errors).find("name: missing required field") != std::string::npos,
                 joinDiagnostics(errors).c_str());
        fs::remove_all(dir);
    }

    void specAgainstMeasuredRows() {
        const auto rows = compareWithSpec(h100Profile(), &h100());
        auto find = [&](const std::string& figure) -> const ComparisonRow* {
            for (const auto& r : rows)
                if (r.figure == figure)
                    return &r;
            return nullptr;
        };
        const auto* rate = find("GEMM bf16, large: rate");
        QVERIFY(rate);
        QCOMPARE(*rate->spec, 989.4);
        QVERIFY(std::fabs(*rate->measured - 700.0) < 0.01);
        QCOMPARE(rate->unit, std::string("TFLOP/s"));
        QCOMPARE(rate->spec_source, std::string("S03"));
        const auto* eff = find("GEMM bf16, large: fraction of peak");
        QVERIFY(eff);
        QCOMPARE(*eff->spec, 0.698);
        QCOMPARE(eff->spec_source, std::string("CHOREO-CAL-H200"));
        // Unfused attention has no spec-sheet figure beside it.
        const auto* attention = find("Attention, unfused (batched GEMMs, softmax): rate");
        QVERIFY(attention && !attention->spec && *attention->measured == 420.0);
        const auto* bw = find("Memory bandwidth");
        QVERIFY(bw && *bw->spec == 3.35 && *bw->measured == 2.9);
        QVERIFY(find("Power at idle") && find("Kernel launch overhead"));
        // Without a catalog device the measured column stands alone.
        for (const auto& r : compareWithSpec(h100Profile(), nullptr))
            QVERIFY(!r.spec);
    }

    void gpuDocumentBecomesAProfile() {
        CalibrationInputs in;
        in.name = "h100-run";
        in.date = "2026-11-30T04:00:00Z";
        in.mode = "quick";
        in.gpu = gpuDocument();
        Diagnostics errors;
        auto p = buildProfile(in, catalog(), errors);
        QVERIFY2(p, joinDiagnostics(errors).c_str());
        QCOMPARE(p->kind, std::string("gpu"));
        QCOMPARE(p->device, std::string("h100-sxm")); // matched by the name CUDA reports
        QCOMPARE(p->identity.at("name"), std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(p->identity.at("power_method"), std::string("nvml"));
        QVERIFY(std::fabs(p->fit.gemm.at(Precision::Bf16).rate_TFLOPs - 700.0) < 0.01);
        QCOMPARE(*p->fit.memory_TBps, 2.95);
        QCOMPARE(*p->fit.attention_TFLOPs, 400.0);
        QCOMPARE(*p->fit.kernel_overhead_us, 2.4);
        QCOMPARE(*p->fit.compute_W, 660.0);
        QVERIFY(p->layer);
        QCOMPARE(p->layer->measured_s, 0.012);
        QVERIFY(p->layer->predicted_s > 0.0);
        QVERIFY(p->notes.back().find("time budget") != std::string::npos);
        QCOMPARE(p->figures.size(), std::size_t{6 + 3 + 1 + 2 + 2 + 3 + 2});
        // The fitted profile applies to the device it matched.
        Device d = h100();
        QVERIFY(applyProfile(*p, d, errors));

        Json bad = gpuDocument();
        bad["gemm"][1]["tflops"] = -3;
        bad["memory"]["copy_kernel_GBps"] = 1;
        const std::string all = fitErrors(in, bad);
        QVERIFY2(all.find("gpu.gemm[1].tflops: must be greater than 0") != std::string::npos, all.c_str());
        QVERIFY2(all.find("gpu.memory.copy_kernel_GBps: unknown field") != std::string::npos, all.c_str());
    }

    // The document choreo-calibrate-gpu wrote on a real H200 (docs/calibration.md) fits into a profile that
    // meets the checks: the layer predicted within 10 %, NVML within 10 % of nvidia-smi over the same
    // intervals, the chosen GEMM algorithms within 5 % of cuBLASLt's own first choice at the median.
    void measuredH200DocumentMeetsItsTargets() {
        std::string text, error;
        const fs::path file =
            fs::path(CHOREO_TEST_ASSETS) / ".." / "docs" / "calibration" / "h200-2026-11-30" / "full.json";
        QVERIFY2(readTextFile(file, text, error), error.c_str());
        const Json doc = Json::parse(text);
        CalibrationInputs in;
        in.name = "nvidia-h200-2026-11-30";
        in.date = doc.at("date").get<std::string>();
        in.mode = "full";
        in.gpu = doc;
        Diagnostics errors;
        auto p = buildProfile(in, catalog(), errors);
        QVERIFY2(p, joinDiagnostics(errors).c_str());
        QCOMPARE(p->device, std::string("h200-sxm"));
        QVERIFY(p->layer);
        const double layerError = p->layer->predicted_s / p->layer->measured_s - 1.0;
        QVERIFY2(std::fabs(layerError) <= 0.10, std::to_string(layerError).c_str());
        std::map<std::string, double> figures;
        for (const auto& f : p->figures)
            figures[f.key] = f.value;
        for (const char* phase : {"idle", "compute", "memory"}) {
            const double nvml = figures.at(std::string("gpu.power.") + phase);
            const double smi = figures.at(std::string("gpu.power.") + phase + "_smi");
            QVERIFY2(std::fabs(nvml / smi - 1.0) <= 0.10, phase);
        }
        // The fitted bandwidth (the better of the copy and triad kernels) within 5 % of cudaMemcpy.
        QVERIFY(*p->fit.memory_TBps >= 0.95 * figures.at("gpu.memory.memcpy_d2d"));
        std::vector<double> ratios;
        for (const auto& g : doc.at("gemm"))
            ratios.push_back(g.at("tflops").get<double>() / g.at("heuristic_tflops").get<double>());
        std::sort(ratios.begin(), ratios.end());
        QVERIFY(ratios[ratios.size() / 2] >= 0.95);
        // The measured curves are those the catalog's h200-sxm now carries.
        const Device* h200 = catalog().find("h200-sxm");
        QVERIFY(std::fabs(h200->efficiency.gemm.value - p->fit.gemm.at(Precision::Bf16).rate_TFLOPs / 989.4) <
                1e-3);

        // The tool's own fields are checked like any other: a clock that is not a number is an error.
        Json bad = doc;
        bad["gemm"][0]["sm_clock_MHz"] = "fast";
        bad["power"]["idle_smi_W"] = -1;
        const std::string all = fitErrors(in, bad);
        QVERIFY2(all.find("gpu.gemm[0].sm_clock_MHz") != std::string::npos, all.c_str());
        QVERIFY2(all.find("gpu.power.idle_smi_W") != std::string::npos, all.c_str());
    }

    void cpuMeasurementsBecomeAProfileWithoutAGpu() {
        CalibrationInputs in;
        in.name = "host";
        in.date = "2026-11-30T04:00:00Z";
        in.mode = "quick";
        in.gpu_absent_reason = "no CUDA-capable GPU or driver found";
        CpuMeasurements cpu;
        cpu.model = "AMD EPYC 9654 96-Core Processor";
        cpu.cores = 96;
        cpu.blas = "OpenBLAS 0.3.21";
        cpu.sgemm = {{1024, 1024, 1024, 2.0}, {2048, 2048, 2048, 3.0}, {4096, 4096, 4096, 3.5}};
        cpu.triad_GBps = 350.0;
        cpu.tokens_per_s_per_core = 2.5e6;
        in.cpu = cpu;
        Diagnostics errors;
        auto p = buildProfile(in, catalog(), errors);
        QVERIFY2(p, joinDiagnostics(errors).c_str());
        QCOMPARE(p->kind, std::string("cpu"));
        QCOMPARE(p->device, std::string("epyc-9654"));
        QVERIFY(p->fit.gemm.contains(Precision::Fp32));
        QCOMPARE(*p->fit.memory_TBps, 0.35);
        QVERIFY(p->notes.front().find("no GPU measured: no CUDA-capable GPU") == 0);
        Device d = *catalog().find("epyc-9654");
        QVERIFY2(applyProfile(*p, d, errors), joinDiagnostics(errors).c_str());
        QVERIFY(std::fabs(d.efficiency.memory.value - 350.0 / 460.8) < 1e-9);
        // An unknown mapping is refused.
        in.device = "epyc-1";
        QVERIFY(!buildProfile(in, catalog(), errors));
        QCOMPARE(errors.back().path, std::string("device"));
    }

    void matchesCatalogDevices_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("id");
        QTest::newRow("h100 sxm") << QStringLiteral("NVIDIA H100 80GB HBM3") << QStringLiteral("h100-sxm");
        QTest::newRow("h100 pcie") << QStringLiteral("NVIDIA H100 PCIe") << QString();
        QTest::newRow("h200") << QStringLiteral("NVIDIA H200") << QStringLiteral("h200-sxm");
        QTest::newRow("a100 80") << QStringLiteral("NVIDIA A100-SXM4-80GB")
                                 << QStringLiteral("a100-sxm-80gb");
        QTest::newRow("a100 40") << QStringLiteral("NVIDIA A100-SXM4-40GB")
                                 << QStringLiteral("a100-sxm-40gb");
        QTest::newRow("gb200") << QStringLiteral("NVIDIA GB200") << QStringLiteral("gb200");
        QTest::newRow("b200") << QStringLiteral("NVIDIA B200") << QStringLiteral("b200");
        QTest::newRow("4090") << QStringLiteral("NVIDIA GeForce RTX 4090") << QStringLiteral("rtx-4090");
        QTest::newRow("unknown") << QStringLiteral("NVIDIA T4") << QString();
    }

    void matchesCatalogDevices() {
        QFETCH(QString, name);
        QFETCH(QString, id);
        QCOMPARE(QString::fromStdString(matchCatalogDevice(name.toStdString(), catalog())), id);
    }

    void matchesCatalogCpus() {
        QCOMPARE(matchCatalogCpu("AMD EPYC 9654 96-Core Processor", catalog()), std::string("epyc-9654"));
        QCOMPARE(matchCatalogCpu("Intel(R) Xeon(R) Platinum 8480+", catalog()), std::string("xeon-8480"));
        QCOMPARE(matchCatalogCpu("AMD EPYC 96543", catalog()), std::string());
        QCOMPARE(matchCatalogCpu("AMD EPYC", catalog()), std::string());
    }

    void layerPredictionFollowsTheDevice() {
        const LayerCheck layer{4096, 32, 8, 14336, 2048, 1, 1, true, Precision::Bf16, 0, 0};
        const double spec = predictLayerSeconds(h100(), layer);
        QVERIFY(spec > 1e-4 && spec < 0.1);
        Device faster = h100();
        Diagnostics errors;
        Profile p = h100Profile();
        p.fit.gemm[Precision::Bf16] = fitGemmCurve(curvePoints(900.0, 0.5));
        QVERIFY(applyProfile(p, faster, errors));
        QVERIFY(predictLayerSeconds(faster, layer) < spec);
        // Twice the tokens, about twice the time (attention grows faster).
        LayerCheck longer = layer;
        longer.seq_len = 4096;
        const double ratio = predictLayerSeconds(h100(), longer) / spec;
        QVERIFY2(ratio > 1.9 && ratio < 2.6, std::to_string(ratio).c_str());
    }
};

QTEST_APPLESS_MAIN(TestProfile)
#include "tst_profile.moc"
