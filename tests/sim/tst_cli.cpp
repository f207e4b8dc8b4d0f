// choreo-sim end to end: run, validate and the worker protocol, as separate processes.
#include "models/jsonreader.h"
#include "models/profile.h"
#include "models/profilefit.h"
#include "models/scenarioio.h"
#include "models/servingresult.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tests/testshard.h"

using choreo::models::Json;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run choreoSim(const QStringList& args, const QByteArray& input = {},
              const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(environment);
    p.setProgram(QStringLiteral(CHOREO_SIM_EXE));
    p.setArguments(QStringList{} << args << QStringLiteral("--assets") << QStringLiteral(CHOREO_TEST_ASSETS));
    p.start();
    p.waitForStarted();
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(240000)) {
        // A run past the limit is a failure with a message, not an empty output read as success.
        p.kill();
        p.waitForFinished();
        return {-1, p.readAllStandardOutput(),
                "choreo-sim ran past 240 s and was killed\n" + p.readAllStandardError()};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// `--join` with the framework of each published run (validation/published-runs-frameworks.csv).
QStringList joinPublishedFrameworks() {
    return {QStringLiteral("--join"), QFileInfo(QStringLiteral(CHOREO_TEST_HOLDOUT_CSV))
                                          .dir()
                                          .filePath(QStringLiteral("published-runs-frameworks.csv"))};
}

QString defaultScenario() {
    return QStringLiteral(CHOREO_TEST_ASSETS "/scenarios/default.json");
}

// An H100 profile as a calibration would write it, faster than the catalog's assumptions.
choreo::models::Profile h100Profile() {
    using namespace choreo::models;
    Profile p;
    p.name = "h100-cli-test";
    p.date = "2026-11-30T04:00:00Z";
    p.tool = "test";
    p.mode = "quick";
    p.kind = "gpu";
    p.device = "h100-sxm";
    p.identity = {{"name", "NVIDIA H100 80GB HBM3"}};
    p.figures = {{"gpu.memory.copy_kernel", "copy", 3.0, "TB/s"}};
    p.fit.gemm[Precision::Bf16] =
        fitGemmCurve({{2048, 2048, 2048, 500.0}, {4096, 4096, 4096, 700.0}, {8192, 8192, 8192, 780.0}});
    p.fit.memory_TBps = 3.0;
    p.fit.attention_TFLOPs = 700.0;
    p.fit.kernel_overhead_us = 2.0;
    p.fit.idle_W = 75.0;
    p.fit.compute_W = 640.0;
    return p;
}

// What choreo-calibrate-gpu writes for an H100 (docs/calibration.md), with made-up figures.
Json gpuDocument() {
    Json gemm = Json::array();
    for (double n : {1024.0, 2048.0, 4096.0, 8192.0}) {
        const double gflop = 2.0 * n * n * n / 1e9;
        const double tflops = 720.0 * gflop / (gflop + 3.0);
        gemm.push_back(Json{{"precision", "bf16"},
                            {"m", n},
                            {"n", n},
                            {"k", n},
                            {"shape", "square"},
                            {"time_s", gflop / tflops / 1e3},
                            {"tflops", tflops},
                            {"max_rel_error", 2e-4},
                            {"library", "cublasLt"}});
    }
    return Json{
        {"format", "choreo-gpu-measurements/1"},
        {"tool", "fake"},
        {"mode", "quick"},
        {"date", "2026-11-30T04:00:00Z"},
        {"device", {{"index", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}}},
        {"gemm", gemm},
        {"memory", {{"bytes", 1 << 30}, {"copy_kernel_TBps", 3.0}, {"memcpy_d2d_TBps", 3.05}}},
        {"attention", Json::array({Json{{"batch", 1},
                                        {"heads", 32},
                                        {"seq_len", 4096},
                                        {"head_dim", 128},
                                        {"time_s", 0.01},
                                        {"tflops", 450.0}}})},
        {"launch", {{"plain_us", 2.2}, {"graph_us", 0.8}}},
        {"power", {{"method", "nvidia-smi"}, {"idle_W", 71.0}, {"compute_W", 655.0}, {"samples", 40}}},
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
          {"forward_s", 0.0045},
          {"backward_s", 0.0095}}},
        {"failures", Json::array()}};
}

// The default scenario, and the profile it names, in `dir`; returns the scenario's path.
QString calibratedScenario(const QTemporaryDir& dir, const std::string& profileRef) {
    std::string text, error;
    choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
    Json doc = Json::parse(text);
    doc["calibration"] = Json{{"profile", profileRef}};
    const QString file = dir.filePath(QStringLiteral("calibrated.json"));
    choreo::models::writeTextFileAtomically(file.toStdString(), doc.dump(2), error);
    choreo::models::writeTextFileAtomically(dir.filePath(QStringLiteral("h100-cli-test.json")).toStdString(),
                                            choreo::models::serializeProfile(h100Profile()), error);
    return file;
}

// The fixture GPU document written into `dir`; its path.
QString writeGpuDocument(const QTemporaryDir& dir) {
    std::string error;
    const QString path = dir.filePath(QStringLiteral("measurements.json"));
    choreo::models::writeTextFileAtomically(path.toStdString(), gpuDocument().dump(2), error);
    return path;
}

// `file` with `sets` (--set PATH=VALUE) run at analytical and at flow fidelity, as JSON (empty on failure);
// the test stops unless the two steps agree within 0.1 %.
std::pair<Json, Json> closedFormAndFlow(const char* file, const QStringList& sets) {
    auto step = [&](const char* fidelity) {
        QStringList args{QStringLiteral("run"), QString::fromUtf8(file), QStringLiteral("--json"),
                         QStringLiteral("--fidelity"), QString::fromUtf8(fidelity)};
        for (const QString& set : sets)
            args << QStringLiteral("--set") << set;
        const Run r = choreoSim(args);
        if (r.exitCode != 0)
            qWarning("%s", r.err.constData());
        return r.exitCode == 0 ? Json::parse(r.out.toStdString()) : Json{};
    };
    return {step("analytical"), step("flow")};
}

bool stepsAgree(const Json& closed, const Json& flow) {
    if (closed.empty() || flow.empty())
        return false;
    const double a = closed["step_time_s"].get<double>(), f = flow["step_time_s"].get<double>();
    if (std::fabs(a - f) / a < 1e-3)
        return true;
    qWarning("flow %g s, closed form %g s", f, a);
    return false;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void runPrintsEveryFieldAndIsDeterministic() {
        const Run a = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--json")});
        QCOMPARE(a.exitCode, 0);
        const Json j = Json::parse(a.out.toStdString());
        for (const char* key :
             {"step_time_s", "tokens_per_s", "mfu", "time_to_train_s", "energy_kWh", "average_power_kW",
              "cost_usd", "memory_per_device_GB", "breakdown_s", "fidelity", "calibration"})
            QVERIFY2(j.contains(key), key);
        const auto& b = j["breakdown_s"];
        const double sum = b["compute"].get<double>() + b["exposed_communication"].get<double>() +
                           b["pipeline_bubble"].get<double>();
        QVERIFY(std::fabs(sum - j["step_time_s"].get<double>()) < 1e-6 * j["step_time_s"].get<double>());
        QCOMPARE(j["fidelity"].get<std::string>(), std::string("flow"));
        QVERIFY(j["mfu"].get<double>() > 0.05 && j["mfu"].get<double>() < 0.9);
        const Run b2 = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--json")});
        QCOMPARE(b2.out, a.out); // identical JSON, byte for byte
    }

    void invalidScenarioExitsTwoWithThePath() {
        QTemporaryDir dir;
        std::string text, error;
        choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
        Json doc = Json::parse(text);
        doc["workload"]["parallel"]["tp"] = 6;
        const QString file = dir.filePath(QStringLiteral("bad.json"));
        choreo::models::writeTextFileAtomically(file.toStdString(), doc.dump(), error);
        const Run r = choreoSim({QStringLiteral("run"), file});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("workload.parallel.tp: 6 does not divide heads=64"), r.err.constData());
    }

    // plan: an option, written as a scenario and run again with `run`, gives the step and time to train that
    // plan gave, at the fidelity that produced them (the fastest confirmed at flow, the rest analytical).
    void planOptionsRunAgainTheSame() {
        QTemporaryDir dir;
        const Run r = choreoSim(
            {QStringLiteral("plan"), defaultScenario(), QStringLiteral("--json"), QStringLiteral("--device"),
             QStringLiteral("h100-sxm,h200-sxm"), QStringLiteral("--max-devices"), QStringLiteral("512"),
             QStringLiteral("--confirm"), QStringLiteral("1"), QStringLiteral("--options"),
             QStringLiteral("3"), QStringLiteral("--start"), QStringLiteral("2027-01-04"),
             QStringLiteral("--budget"), QStringLiteral("30e6"), QStringLiteral("--scenarios"), dir.path()});
        QCOMPARE(r.exitCode, 0);
        const Json plan = Json::parse(r.out.toStdString());
        QVERIFY(plan["searched"].get<std::int64_t>() > 100);
        QVERIFY(plan["rejected"].contains("does not fit in memory"));
        const auto& options = plan["options"];
        QVERIFY(!options.empty() && options.size() <= 3);
        QCOMPARE(options[0]["fidelity"].get<std::string>(), std::string("flow"));
        for (std::size_t i = 0; i < options.size(); ++i) {
            const auto& o = options[i];
            QVERIFY(o["cost_usd"].get<double>() <= 30e6);
            for (const char* key : {"scenario", "device", "count", "layout", "time_to_train_s", "cost_usd",
                                    "energy_MWh", "binding_constraint"})
                QVERIFY2(o.contains(key), key);
            const QString file = dir.filePath(QStringLiteral("option-%1.json").arg(i + 1));
            const Run again = choreoSim({QStringLiteral("run"), file, QStringLiteral("--json"),
                                         QStringLiteral("--fidelity"),
                                         QString::fromStdString(o["fidelity"].get<std::string>())});
            QCOMPARE(again.exitCode, 0);
            const Json result = Json::parse(again.out.toStdString());
            QCOMPARE(result["step_time_s"].get<double>(), o["step_time_s"].get<double>());
            QCOMPARE(result["time_to_train_s"].get<double>(), o["time_to_train_s"].get<double>());
        }
    }

    // plan --slurm writes a job array that a real Slurm cluster runs (the CTest fixture
    // scripts/slurm-cluster.sh starts); merge takes its results, and each confirmed option is what `run
    // --fidelity flow` gives. A task without a result is named, and its option keeps the analytical figures.
    void planArrayRunsOnSlurm() {
        if (qEnvironmentVariableIsSet("CHOREO_SLOW_TESTS_APART"))
            QSKIP("runs as slurm.plan_array, against the cluster its fixture starts");
        if (!qEnvironmentVariableIsSet("SLURM_CONF"))
            QFAIL("no Slurm cluster: run the CTest test slurm.plan_array, whose fixture starts one");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("array"));
        const Run plan =
            choreoSim({QStringLiteral("plan"), defaultScenario(), QStringLiteral("--device"),
                       QStringLiteral("h100-sxm,h200-sxm"), QStringLiteral("--max-devices"),
                       QStringLiteral("512"), QStringLiteral("--confirm"), QStringLiteral("2"),
                       QStringLiteral("--options"), QStringLiteral("3"), QStringLiteral("--start"),
                       QStringLiteral("2027-01-04"), QStringLiteral("--slurm"), out});
        QVERIFY2(plan.exitCode == 0, plan.err.constData());
        QVERIFY(plan.err.contains("2 flow confirmations as a Slurm job array"));
        QProcess sbatch;
        sbatch.start(QStringLiteral("sbatch"),
                     {QStringLiteral("--wait"), out + QStringLiteral("/confirm.sbatch")});
        QVERIFY(sbatch.waitForFinished(300000));
        QVERIFY2(sbatch.exitCode() == 0, sbatch.readAllStandardError().constData());
        const Run merged = choreoSim({QStringLiteral("merge"), out, QStringLiteral("--json")});
        QVERIFY2(merged.exitCode == 0, merged.err.constData());
        const Json j = Json::parse(merged.out.toStdString());
        QCOMPARE(j["confirm"].get<int>(), 2);
        for (int k = 1; k <= 2; ++k) {
            const auto& o = j["options"][static_cast<std::size_t>(k - 1)];
            QCOMPARE(o["fidelity"].get<std::string>(), std::string("flow"));
            const Run again =
                choreoSim({QStringLiteral("run"), out + QStringLiteral("/option-%1.json").arg(k),
                           QStringLiteral("--json")});
            QCOMPARE(again.exitCode, 0);
            const Json result = Json::parse(again.out.toStdString());
            QCOMPARE(result["step_time_s"].get<double>(), o["step_time_s"].get<double>());
            QCOMPARE(result["time_to_train_s"].get<double>(), o["time_to_train_s"].get<double>());
        }
        QVERIFY(QFile::remove(out + QStringLiteral("/result-2.json")));
        const Run partial = choreoSim({QStringLiteral("merge"), out});
        QCOMPARE(partial.exitCode, 0);
        QVERIFY2(partial.out.contains("option 2: no result in") &&
                     partial.out.contains("analytical figures kept"),
                 partial.out.constData());
        const Run notAPlan = choreoSim({QStringLiteral("merge"), dir.path()});
        QCOMPARE(notAPlan.exitCode, 4);
        QVERIFY(notAPlan.err.contains("plan.json"));
    }

    // An impossible request names the limit and by how much, exit 2; bad options are refused by name.
    void planSaysWhatCannotBeMet() {
        const Run r = choreoSim({QStringLiteral("plan"), defaultScenario(), QStringLiteral("--device"),
                                 QStringLiteral("h100-sxm"), QStringLiteral("--max-devices"),
                                 QStringLiteral("256"), QStringLiteral("--deadline"), QStringLiteral("30"),
                                 QStringLiteral("--confirm"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.contains("no option: the deadline cannot be met") &&
                     r.out.contains("days past the deadline"),
                 r.out.constData());
        const Run badDate = choreoSim({QStringLiteral("plan"), defaultScenario(),
                                       QStringLiteral("--deadline"), QStringLiteral("2027-02-30")});
        QCOMPARE(badDate.exitCode, 1);
        QVERIFY2(
            badDate.err.contains("--deadline: expected a date (YYYY-MM-DD) or a positive number of days"),
            badDate.err.constData());
        const Run badDevice = choreoSim(
            {QStringLiteral("plan"), defaultScenario(), QStringLiteral("--device"), QStringLiteral("h1OO")});
        QCOMPARE(badDevice.exitCode, 1);
        QVERIFY(badDevice.err.contains("--device: unknown device or vendor \"h1OO\""));
        const Run cpu = choreoSim({QStringLiteral("plan"), defaultScenario(), QStringLiteral("--device"),
                                   QStringLiteral("epyc-9654")});
        QCOMPARE(cpu.exitCode, 1);
        QVERIFY(cpu.err.contains("epyc-9654 is a CPU"));
        const Run badLimit = choreoSim({QStringLiteral("plan"), defaultScenario(),
                                        QStringLiteral("--power-limit"), QStringLiteral("70%,120%")});
        QCOMPARE(badLimit.exitCode, 1);
        QVERIFY2(
            badLimit.err.contains("--power-limit: expected watts (500) or a percent of the device's busy "
                                  "power up to 100 (80%), got \"120%\""),
            badLimit.err.constData());
        const Run badProvider = choreoSim({QStringLiteral("plan"), defaultScenario(),
                                           QStringLiteral("--provider"), QStringLiteral("aws,awz")});
        QCOMPARE(badProvider.exitCode, 1);
        QVERIFY2(badProvider.err.contains("--provider: unknown provider \"awz\" (known: aws, gcp"),
                 badProvider.err.constData());
        const Run buying =
            choreoSim({QStringLiteral("plan"), defaultScenario(), QStringLiteral("--provider"),
                       QStringLiteral("all"), QStringLiteral("--mode"), QStringLiteral("buy")});
        QCOMPARE(buying.exitCode, 1);
        QVERIFY2(buying.err.contains("--provider: providers rent; this plan buys"), buying.err.constData());
    }

    // A pool's power limit: run says what it leaves the clock, slower and cooler than the rated pool; a limit
    // the device cannot take names the field.
    void runUnderAPowerLimit() {
        const Run rated = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                     QStringLiteral("analytical"), QStringLiteral("--json")});
        const Run limited =
            choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                       QStringLiteral("analytical"), QStringLiteral("--json"), QStringLiteral("--set"),
                       QStringLiteral("cluster.pools[0].power_limit_W=500")});
        QCOMPARE(rated.exitCode, 0);
        QCOMPARE(limited.exitCode, 0);
        const Json a = Json::parse(rated.out.toStdString());
        const Json b = Json::parse(limited.out.toStdString());
        QVERIFY(b["step_time_s"].get<double>() > a["step_time_s"].get<double>());
        QVERIFY(b["it_power_kW"].get<double>() < a["it_power_kW"].get<double>());
        QCOMPARE(b["pools"][0]["power_limit_W"].get<double>(), 500.0);
        QVERIFY(!a["pools"][0].contains("power_limit_W"));
        const double clock = std::sqrt((500.0 - 84.0) / (700.0 - 84.0));
        QVERIFY(std::abs(b["pools"][0]["clock_fraction"].get<double>() - clock) < 1e-12);
        const Run text = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                    QStringLiteral("analytical"), QStringLiteral("--set"),
                                    QStringLiteral("cluster.pools[0].power_limit_W=500")});
        QVERIFY2(text.out.contains("limited to 500 W (compute clock 82 %)"), text.out.constData());
        const Run tooLow = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--set"),
                                      QStringLiteral("cluster.pools[0].power_limit_W=50")});
        QCOMPARE(tooLow.exitCode, 2);
        QVERIFY2(
            tooLow.err.contains("cluster.pools[0].power_limit_W: 50 W is at or below h100-sxm's idle power"),
            tooLow.err.constData());
    }

    void missingFileExitsFour() {
        const Run r = choreoSim({QStringLiteral("run"), QStringLiteral("/nonexistent.json")});
        QCOMPARE(r.exitCode, 4);
        QVERIFY(r.err.contains("cannot open /nonexistent.json"));
    }

    // The field table, listed: every scalar path --set takes, with its range and default.
    void fieldsListsTheTable() {
        const Run r = choreoSim({QStringLiteral("fields"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const Json fields = Json::parse(r.out.toStdString());
        QVERIFY(fields.is_array() && fields.size() > 40);
        bool tp = false;
        for (const auto& f : fields)
            tp = tp || (f["path"] == "workload.parallel.tp" && f["range"] == "1 to 4096" &&
                        f["csv_column"] == "tp");
        QVERIFY(tp);
        const Run text = choreoSim({QStringLiteral("fields")});
        QVERIFY(text.out.contains("workload.model.tied_embeddings  (true/false; default false"));
    }

    // Every device with its figures' sources and dates, and each price or the reason there is none.
    void catalogListsDevicesAndPrices() {
        const Run r = choreoSim({QStringLiteral("catalog"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        const Json j = Json::parse(r.out.toStdString());
        QVERIFY(j["devices"].size() >= 28);
        QVERIFY(j["training_frameworks"].size() >= 14);
        for (const auto& d : j["devices"])
            for (const char* mode : {"buy_usd", "rent_usd_per_hour"}) {
                const Json& price = d["price"][mode];
                QVERIFY2(price.contains("value") ? !price["source"].get<std::string>().empty()
                                                 : !price["none"].get<std::string>().empty(),
                         d["id"].get<std::string>().c_str());
            }
        bool tpu = false;
        for (const auto& d : j["devices"])
            if (d["id"] == "tpu-v5p") {
                tpu = d["price"]["buy_usd"]["none"].get<std::string>().find("cloud service") !=
                      std::string::npos;
                QVERIFY(!d["figures"]["peak_tflops"]["bf16"]["as_of"].get<std::string>().empty());
            }
        QVERIFY(tpu);
        // Announced figures are marked in their place and listed by the device; in the text, a star and a
        // list.
        for (const auto& d : j["devices"])
            if (d["id"] == "rubin") {
                QVERIFY(d["figures"]["peak_tflops"]["bf16"]["announced"].get<bool>());
                QVERIFY(d["announced"].size() >= 10);
            } else if (d["id"] == "h100-sxm") {
                QVERIFY(!d.contains("announced") && !d["figures"]["tdp_W"].contains("announced"));
            }
        // Each device lists the sources its figures cite, once each, with title and date.
        for (const auto& d : j["devices"]) {
            std::set<std::string> listed;
            for (const auto& s : d["sources"]) {
                QVERIFY2(listed.insert(s["key"].get<std::string>()).second,
                         d["id"].get<std::string>().c_str());
                QVERIFY(!s["title"].get<std::string>().empty() && !s["as_of"].get<std::string>().empty());
            }
            QVERIFY(listed.count(d["figures"]["memory_GB"]["source"].get<std::string>()));
        }
        const Run text = choreoSim({QStringLiteral("catalog")});
        QVERIFY2(text.out.contains("h800-sxm rent: an export part for China"), text.out.constData());
        QVERIFY2(text.out.contains("\nrubin*") && text.out.contains("  rubin: peak_tflops (fp64, fp32,"),
                 text.out.constData());
        // A cost mode the device has no price for says why.
        const Run buy = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--set"),
                                   QStringLiteral("cluster.pools[0].device=tpu-v5p"), QStringLiteral("--set"),
                                   QStringLiteral("costs.mode=buy"), QStringLiteral("--fidelity"),
                                   QStringLiteral("analytical")});
        QVERIFY2(buy.err.contains("no purchase price for tpu-v5p (sold only as a cloud service"),
                 buy.err.constData());
        QCOMPARE(choreoSim({QStringLiteral("catalog"), QStringLiteral("x")}).exitCode, 1);
    }

    void usageErrors() {
        const Run unknown = choreoSim({QStringLiteral("fly")});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(
            unknown.err.contains(
                "unknown command \"fly\" (commands: run, plan, merge, validate, accuracy, report, bench, "
                "calibrate, fields, catalog, worker)"),
            unknown.err.constData());
        const Run level = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                     QStringLiteral("quantum")});
        QCOMPARE(level.exitCode, 1);
        QVERIFY2(level.err.contains("--fidelity: unknown level \"quantum\""), level.err.constData());
        // An option of another command is refused, not ignored, and nothing runs.
        const Run foreign = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--vary"),
                                       QStringLiteral("micro_batch=1,2")});
        QCOMPARE(foreign.exitCode, 1);
        QVERIFY2(foreign.err.contains("run does not take --vary"), foreign.err.constData());
        QVERIFY(foreign.out.isEmpty());
        const Run jobs =
            choreoSim({QStringLiteral("bench"), QStringLiteral("--jobs"), QStringLiteral("two")});
        QCOMPARE(jobs.exitCode, 1);
        QVERIFY2(jobs.err.contains("--jobs: needs a positive number, got \"two\""), jobs.err.constData());
        QCOMPARE(choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--bogus")}).exitCode,
                 1);
    }

    void unphysicalResultsAreFailedSimulations() {
        // A PUE beyond the field table's bound is refused up front, naming the field.
        const Run pue = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--set"),
                                   QStringLiteral("costs.pue=1e308")});
        QCOMPARE(pue.exitCode, 2);
        QVERIFY2(pue.err.contains("costs.pue: must be at most 4, got 1e+308"), pue.err.constData());
        // A NIC of 1e-300 Gbit/s over 1e16 tokens overflows the time to train: exit 3 naming the quantity,
        // never exit 0 with "inf".
        const Run r = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--set"),
                                 QStringLiteral("cluster.network.nic_Gbps=1e-300"), QStringLiteral("--set"),
                                 QStringLiteral("workload.tokens_to_train=1e16"),
                                 QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("time_to_train_s is infinite"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        const Run huge = choreoSim({QStringLiteral("run"), QStringLiteral("/dev/zero")});
        QCOMPARE(huge.exitCode, 4);
        QVERIFY2(huge.err.contains("larger than 64 MiB"), huge.err.constData());
    }

    void workerEndsWithAnErrorLineOnNumbersOutOfRange() {
        const Run r = choreoSim({QStringLiteral("worker")},
                                QByteArray("{\"type\": \"run\", \"scenario\": {\"a\": 1e400}}"));
        QCOMPARE(r.exitCode, 6);
        const auto lines = r.out.trimmed().split('\n');
        const Json last = Json::parse(lines.last().toStdString());
        QCOMPARE(last["type"].get<std::string>(), std::string("error"));
        QVERIFY2(last["message"].get<std::string>().find("number overflow") != std::string::npos,
                 lines.last().constData());
    }

    void runSetsFieldsByPath() {
        const QString scenario = defaultScenario();
        const Run base = choreoSim({QStringLiteral("run"), scenario, QStringLiteral("--json"),
                                    QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        const Run doubled = choreoSim({QStringLiteral("run"), scenario, QStringLiteral("--json"),
                                       QStringLiteral("--fidelity"), QStringLiteral("analytical"),
                                       QStringLiteral("--set"), QStringLiteral("cluster.pools[0].count=256"),
                                       QStringLiteral("--set"), QStringLiteral("workload.parallel.dp=16")});
        QCOMPARE(base.exitCode, 0);
        QVERIFY2(doubled.exitCode == 0, doubled.err.constData());
        const Json one = Json::parse(base.out.toStdString()), two = Json::parse(doubled.out.toStdString());
        QCOMPARE(two["devices"].get<int>(), 256);
        QVERIFY(two["step_time_s"].get<double>() < one["step_time_s"].get<double>());
        // The file's own checks, with its messages; an override that leads nowhere names its path.
        const Run odd = choreoSim({QStringLiteral("run"), scenario, QStringLiteral("--set"),
                                   QStringLiteral("workload.parallel.tp=6")});
        QCOMPARE(odd.exitCode, 2);
        QVERIFY2(odd.err.contains("workload.parallel.tp: 6 does not divide heads=64"), odd.err.constData());
        const Run nowhere = choreoSim({QStringLiteral("run"), scenario, QStringLiteral("--set"),
                                       QStringLiteral("cluster.pools[2].count=1")});
        QCOMPARE(nowhere.exitCode, 2);
        QVERIFY2(nowhere.err.contains("cluster.pools[2].count: --set: cluster.pools has 1 entry"),
                 nowhere.err.constData());
        const Run malformed = choreoSim({QStringLiteral("run"), scenario, QStringLiteral("--set"),
                                         QStringLiteral("workload.micro_batch")});
        QCOMPARE(malformed.exitCode, 1);
        QVERIFY2(malformed.err.contains("--set: expected PATH=VALUE"), malformed.err.constData());
    }

    // A CPU pool's batches reach the GPUs through the NICs that carry the gradient reduction: in the flow
    // simulation they contend, in the closed form they do not. hybrid-multimodal made delivery-heavy (128
    // video frames a sample, 25 Gb/s NICs, a 2-layer model) with 16 CPUs, whose data stage nearly matches
    // the step so that delivery overlaps the backward's reduction.
    void dataDeliveryContendsWithTheStepsTraffic() {
        const QStringList heavy{
            QStringLiteral("--set"), QStringLiteral("cluster.network.nic_Gbps=25"),
            QStringLiteral("--set"), QStringLiteral("cluster.pools[1].count=16"),
            QStringLiteral("--set"), QStringLiteral("workload.stages[0].modality=video"),
            QStringLiteral("--set"), QStringLiteral("workload.stages[0].items_per_sample=128"),
            QStringLiteral("--set"), QStringLiteral("workload.model.layers=2")};
        auto step = [&](const char* fidelity, const QStringList& extra) {
            const Run r =
                choreoSim(QStringList{QStringLiteral("run"),
                                      QStringLiteral(CHOREO_TEST_ASSETS "/scenarios/hybrid-multimodal.json"),
                                      QStringLiteral("--json"), QStringLiteral("--fidelity"),
                                      QString::fromUtf8(fidelity)}
                          << extra);
            if (r.exitCode != 0)
                qWarning("%s", r.err.constData());
            return r.exitCode == 0 ? Json::parse(r.out.toStdString()) : Json{};
        };
        const Json closed = step("analytical", heavy), flow = step("flow", heavy);
        QVERIFY(!closed.empty() && !flow.empty());
        QVERIFY(!closed["data_stage_s"]["simulated"].get<bool>());
        QVERIFY(flow["data_stage_s"]["simulated"].get<bool>());
        // The same bytes by hand: 512 samples x (128 frames x 3 x 336^2 B + 1,472 token ids x 4 B).
        const double bytes = 512.0 * (128.0 * 3 * 336 * 336 + 1472.0 * 4);
        QCOMPARE(flow["data_stage_s"]["delivered_bytes_per_batch"].get<double>(), bytes);
        const double closedStep = closed["step_time_s"].get<double>(),
                     flowStep = flow["step_time_s"].get<double>();
        QVERIFY2(
            flowStep > 1.05 * closedStep,
            qPrintable(QStringLiteral("flow %1 s against closed form %2 s").arg(flowStep).arg(closedStep)));
        QVERIFY(flow["data_stage_s"]["deliver"].get<double>() >
                closed["data_stage_s"]["deliver"].get<double>());
        // With 4 CPUs the data stage sets the pace: the GPUs idle past their step, counted once, so both
        // levels give the same energy within the step's own difference.
        QStringList slow = heavy;
        slow[3] = QStringLiteral("cluster.pools[1].count=4");
        const Json closedSlow = step("analytical", slow), flowSlow = step("flow", slow);
        QVERIFY(!closedSlow.empty() && !flowSlow.empty());
        QCOMPARE(flowSlow["bottleneck"]["stage"].get<std::string>(), std::string("data"));
        const double energyA = closedSlow["energy_kWh"].get<double>(),
                     energyF = flowSlow["energy_kWh"].get<double>();
        QVERIFY2(
            std::fabs(energyF - energyA) / energyA < 0.02,
            qPrintable(QStringLiteral("energy: flow %1 kWh, closed form %2 kWh").arg(energyF).arg(energyA)));
        // With 400 Gb/s NICs the same batches fit beside the reduction: the two levels agree.
        QStringList wide = heavy;
        wide[1] = QStringLiteral("cluster.network.nic_Gbps=400");
        const Json closedWide = step("analytical", wide), flowWide = step("flow", wide);
        QVERIFY(!closedWide.empty() && !flowWide.empty());
        const double a = closedWide["step_time_s"].get<double>(), f = flowWide["step_time_s"].get<double>();
        QVERIFY2(std::fabs(a - f) / f < 0.02,
                 qPrintable(QStringLiteral("flow %1 s, closed form %2 s").arg(f).arg(a)));
    }

    // Behind oversubscribed leaves every device's batches cross its leaf's uplink, which the gradient
    // reduction also crosses. The same delivery-heavy hybrid-multimodal on 4 leaves of 16 GPUs (2 nodes a
    // leaf), with 64 CPUs so that the GPUs' side of the network binds.
    void dataBatchesShareOversubscribedUplinks() {
        auto heavy = [](double oversubscription, int nicGbps) {
            return QStringList{
                QStringLiteral("cluster.network.nic_Gbps=%1").arg(nicGbps),
                QStringLiteral("cluster.pools[1].count=64"),
                QStringLiteral("workload.stages[0].modality=video"),
                QStringLiteral("workload.stages[0].items_per_sample=128"),
                QStringLiteral("workload.model.layers=2"),
                QStringLiteral("cluster.network.topology.nodes_per_leaf=2"),
                QStringLiteral("cluster.network.topology.oversubscription=%1").arg(oversubscription)};
        };
        const char* file = CHOREO_TEST_ASSETS "/scenarios/hybrid-multimodal.json";
        const auto [closedOpen, flowOpen] = closedFormAndFlow(file, heavy(1.0, 25));
        const auto [closed, flow] = closedFormAndFlow(file, heavy(4.0, 25));
        QVERIFY(!closedOpen.empty() && !flowOpen.empty() && !closed.empty() && !flow.empty());
        // The closed form: a quarter of the GPUs' NIC rate is left past the leaves, so delivery takes 4 times
        // as long.
        const double deliverOpen = closedOpen["data_stage_s"]["deliver"].get<double>(),
                     deliver = closed["data_stage_s"]["deliver"].get<double>();
        QVERIFY2(std::fabs(deliver / deliverOpen - 4.0) < 1e-9,
                 qPrintable(QStringLiteral("deliver %1 s against %2 s").arg(deliver).arg(deliverOpen)));
        // The flow level simulates it (every leaf's batches, the folded replicas' as stand-ins), and no
        // faster than the uplinks allow; sharing them with the reduction makes the step longer than the
        // closed form, which sums no contention.
        QVERIFY(flow["data_stage_s"]["simulated"].get<bool>());
        const double flowDeliver = flow["data_stage_s"]["deliver"].get<double>();
        QVERIFY2(flowDeliver > 0.99 * deliver,
                 qPrintable(QStringLiteral("flow %1 s, closed form %2 s").arg(flowDeliver).arg(deliver)));
        const double a = closed["step_time_s"].get<double>(), f = flow["step_time_s"].get<double>();
        QVERIFY2(f > 1.1 * a, qPrintable(QStringLiteral("flow %1 s, closed form %2 s").arg(f).arg(a)));
        // With 400 Gb/s NICs the uplinks have room for both: the two levels agree.
        const auto [closedWide, flowWide] = closedFormAndFlow(file, heavy(4.0, 400));
        QVERIFY(!closedWide.empty() && !flowWide.empty());
        const double aw = closedWide["step_time_s"].get<double>(), fw = flowWide["step_time_s"].get<double>();
        QVERIFY2(std::fabs(aw - fw) / fw < 0.02,
                 qPrintable(QStringLiteral("flow %1 s, closed form %2 s").arg(fw).arg(aw)));
    }

    // On a dragonfly the CPU pool is a group of its own, joined to each group by a bundle like theirs: a
    // group's batches share it, so quartering the global links' rate quarters delivery's in both levels,
    // and the flow level, where every device's batch is a flow, agrees with the closed form.
    void dataStageCrossesDragonflyBundles() {
        auto sets = [](int linkGbps) {
            return QStringList{
                QStringLiteral("cluster.pools[1].count=64"),
                QStringLiteral("workload.stages[0].modality=video"),
                QStringLiteral("workload.stages[0].items_per_sample=128"),
                QStringLiteral("workload.model.layers=2"),
                QStringLiteral(R"(cluster.network.topology={"kind": "dragonfly", "groups": 4, )"
                               R"("routers_per_group": 2, "link_Gbps": %1})")
                    .arg(linkGbps)};
        };
        const char* file = CHOREO_TEST_ASSETS "/scenarios/hybrid-multimodal.json";
        const auto [closedWide, flowWide] = closedFormAndFlow(file, sets(100));
        const auto [closed, flow] = closedFormAndFlow(file, sets(25));
        QVERIFY(stepsAgree(closedWide, flowWide));
        QVERIFY(stepsAgree(closed, flow));
        QVERIFY(flow["data_stage_s"]["simulated"].get<bool>());
        const double wide = closedWide["data_stage_s"]["deliver"].get<double>(),
                     narrow = closed["data_stage_s"]["deliver"].get<double>(),
                     simulated = flow["data_stage_s"]["deliver"].get<double>();
        QVERIFY2(std::fabs(narrow / wide - 4.0) < 1e-9,
                 qPrintable(QStringLiteral("deliver %1 s against %2 s").arg(narrow).arg(wide)));
        QVERIFY2(std::fabs(simulated - narrow) / narrow < 0.01,
                 qPrintable(QStringLiteral("flow %1 s, closed form %2 s").arg(simulated).arg(narrow)));
    }

    // Offloaded experts' dispatches and combines are flows between each device's NIC and the expert pool's:
    // uncontended they take what the closed form says (the step agrees within 0.1 %), and the flow level
    // reports them as communication, where the closed form counts the wait as compute.
    void expertTrafficCrossesTheNetwork() {
        const auto [closed, flow] = closedFormAndFlow(CHOREO_TEST_ASSETS "/scenarios/hybrid-moe-offload.json",
                                                      {QStringLiteral("cluster.network.nic_Gbps=100")});
        QVERIFY(stepsAgree(closed, flow));
        const double a = closed["step_time_s"].get<double>(), f = flow["step_time_s"].get<double>();
        const double flowComm = flow["breakdown_s"]["exposed_communication"].get<double>();
        const double closedComm = closed["breakdown_s"]["exposed_communication"].get<double>();
        QVERIFY2(flowComm > 0.4 * f && closedComm < 0.05 * a,
                 qPrintable(QStringLiteral("exposed communication: flow %1 s, closed form %2 s")
                                .arg(flowComm)
                                .arg(closedComm)));
    }

    // Behind 4:1 leaves (2 nodes a leaf) the expert pool's traffic crosses the uplinks: the closed form
    // gives a device a quarter of its NIC's rate towards the pool, and the flow level, where every
    // replica's dispatches and combines are flows to the pool, takes the same time.
    void expertTrafficCrossesOversubscribedUplinks() {
        const char* file = CHOREO_TEST_ASSETS "/scenarios/hybrid-moe-offload.json";
        auto sets = [](double oversubscription) {
            return QStringList{
                QStringLiteral("cluster.network.nic_Gbps=100"),
                QStringLiteral("cluster.network.topology.nodes_per_leaf=2"),
                QStringLiteral("cluster.network.topology.oversubscription=%1").arg(oversubscription)};
        };
        const auto [closedOpen, flowOpen] = closedFormAndFlow(file, sets(1.0));
        const auto [closed, flow] = closedFormAndFlow(file, sets(4.0));
        QVERIFY(stepsAgree(closedOpen, flowOpen));
        QVERIFY(stepsAgree(closed, flow));
        QVERIFY(flow["offload"][0]["simulated"].get<bool>());
        const double link = closed["offload"][0]["link_GBps"].get<double>(),
                     linkOpen = closedOpen["offload"][0]["link_GBps"].get<double>();
        QVERIFY2(std::fabs(link * 4.0 - linkOpen) < 1e-9 * linkOpen,
                 qPrintable(QStringLiteral("link %1 GB/s against %2 GB/s").arg(link).arg(linkOpen)));
        QVERIFY(flow["step_time_s"].get<double>() > 2.0 * flowOpen["step_time_s"].get<double>());
    }

    // The optimizer on a CPU pool over the network: each device's gradients and weights are flows into and
    // out of the pool's NICs. Uncontended they take the closed form's time, which moves from the optimizer
    // to exposed communication; the result says they were simulated.
    void optimizerTrafficCrossesTheNetwork() {
        const auto [closed, flow] = closedFormAndFlow(
            CHOREO_TEST_ASSETS "/scenarios/hybrid-cpu-optimizer.json",
            {QStringLiteral(R"(cluster.pools=[{"name": "gpus", "device": "gb200", "count": 72, )"
                            R"("devices_per_node": 72}, {"name": "cpus", "device": "epyc-9654", )"
                            R"("count": 72, "devices_per_node": 2}])"),
             QStringLiteral(R"(workload.stages[1].pool="cpus")")});
        QVERIFY(stepsAgree(closed, flow));
        // 3.81 TB a step over 72 devices' 10 GB/s shares of the pool's NICs: 5.3 s on the links.
        const double onLinks = closed["offload"][0]["bytes_per_step"].get<double>() / 72.0 /
                               (closed["offload"][0]["link_GBps"].get<double>() * 1e9);
        const double moved = flow["breakdown_s"]["exposed_communication"].get<double>() -
                             closed["breakdown_s"]["exposed_communication"].get<double>();
        QVERIFY2(std::fabs(moved - onLinks) / onLinks < 1e-2,
                 qPrintable(QStringLiteral("moved %1 s, on the links %2 s").arg(moved).arg(onLinks)));
        QVERIFY(flow["offload"][0]["simulated"].get<bool>());
        QVERIFY(!closed["offload"][0]["simulated"].get<bool>());
    }

    // Packet fidelity counts its tasks before building them: 16,384 devices are refused with the estimate
    // and the limit, not simulated until memory runs out; a bad limit is named.
    void packetRefusesWhatCannotFit() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CHOREO_MEMORY_LIMIT_GB"), QStringLiteral("2"));
        const Run huge = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                    QStringLiteral("packet"), QStringLiteral("--set"),
                                    QStringLiteral("cluster.pools[0].count=16384"), QStringLiteral("--set"),
                                    QStringLiteral("workload.parallel.dp=1024"), QStringLiteral("--set"),
                                    QStringLiteral("workload.global_batch=1024")},
                                   {}, env);
        QCOMPARE(huge.exitCode, 3);
        QVERIFY2(huge.err.contains("refused before starting: packet fidelity on 16384 devices"),
                 huge.err.constData());
        QVERIFY2(huge.err.contains("the limit: 2 GB"), huge.err.constData());
        // The same limit holds the default scenario's packet step (about 2 x 10^5 tasks).
        const Run fits = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                    QStringLiteral("packet"), QStringLiteral("--json")},
                                   {}, env);
        QVERIFY2(fits.exitCode == 0, fits.err.constData());
        env.insert(QStringLiteral("CHOREO_MEMORY_LIMIT_GB"), QStringLiteral("lots"));
        const Run bad = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                   QStringLiteral("packet")},
                                  {}, env);
        QCOMPARE(bad.exitCode, 3);
        QVERIFY2(bad.err.contains("CHOREO_MEMORY_LIMIT_GB: expected a positive number of GB, got \"lots\""),
                 bad.err.constData());
    }

    void flowRefusesWhatCannotFit() {
        // Flow fidelity counts its step too: under a limit of 100 kB (500 tasks) the default scenario's
        // flow step (between 1,000 and 2,500 tasks, folded) is refused before it starts, naming the level
        // and the way out.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CHOREO_MEMORY_LIMIT_GB"), QStringLiteral("0.0001"));
        const Run refused = choreoSim({QStringLiteral("run"), defaultScenario()}, {}, env);
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.contains("refused before starting: flow fidelity on 128 devices"),
                 refused.err.constData());
        QVERIFY2(refused.err.contains("the analytical level gives the same step in closed form"),
                 refused.err.constData());
        const Run closedForm = choreoSim({QStringLiteral("run"), defaultScenario(),
                                          QStringLiteral("--fidelity"), QStringLiteral("analytical")},
                                         {}, env);
        QVERIFY2(closedForm.exitCode == 0, closedForm.err.constData());
        env.insert(QStringLiteral("CHOREO_MEMORY_LIMIT_GB"), QStringLiteral("1"));
        const Run fits = choreoSim({QStringLiteral("run"), defaultScenario()}, {}, env);
        QVERIFY2(fits.exitCode == 0, fits.err.constData());
    }

#ifdef CHOREO_HAVE_REPORT
    // A read-only report target, or a missing folder, is refused before anything runs; the file is left as
    // it was (root included: the permission bits decide).
    void reportRefusesAReadOnlyTarget() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kept.pdf"));
        QFile kept(path);
        QVERIFY(kept.open(QIODevice::WriteOnly));
        kept.write("the colleague's report");
        kept.close();
        QVERIFY(
            kept.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
        const Run r = choreoSim({QStringLiteral("report"), defaultScenario(), QStringLiteral("-o"), path});
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.err.contains("is read-only (nothing was run)"), r.err.constData());
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("the colleague's report"));
        const Run nowhere = choreoSim({QStringLiteral("report"), defaultScenario(), QStringLiteral("-o"),
                                       dir.filePath(QStringLiteral("missing/r.pdf"))});
        QCOMPARE(nowhere.exitCode, 4);
        QVERIFY2(nowhere.err.contains("does not exist"), nowhere.err.constData());
    }
#endif

    void helpIsWrittenFromTheCommandTable() {
        const Run all = choreoSim({QStringLiteral("--help")});
        QCOMPARE(all.exitCode, 0);
        for (const char* line :
             {"  run SCENARIO [--json] [--fidelity F]", "  validate CSV [--json] [--markdown]", "  worker\n",
              "  --out FILE, -o, --output", "Exit codes: 0 ok, 1 usage"})
            QVERIFY2(all.out.contains(line), line);
        const Run one = choreoSim({QStringLiteral("validate"), QStringLiteral("--help")});
        QCOMPARE(one.exitCode, 0);
        QVERIFY2(one.out.startsWith("Usage: choreo-sim validate CSV [--json]"), one.out.constData());
        QVERIFY2(one.out.contains("--vary FIELD=V1,V2,...") && !one.out.contains("--sections"),
                 one.out.constData());
        QCOMPARE(choreoSim({QStringLiteral("help"), QStringLiteral("validate")}).out, one.out);
        const Run none = choreoSim({});
        QCOMPARE(none.exitCode, 1);
        QVERIFY(none.err.contains("Usage: choreo-sim COMMAND [OPTIONS]"));
    }

#ifdef CHOREO_HAVE_REPORT
    void reportUnknownSection() {
        // Named with the known ones, before any simulation, and no file written.
        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
        const Run r = choreoSim({QStringLiteral("report"), defaultScenario(), QStringLiteral("-o"), pdf,
                                 QStringLiteral("--sections"), QStringLiteral("summary,timelines")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--sections: unknown section \"timelines\" (known: summary, memory, charts, "
                                "timeline, scenario, calibration, sources, sweep)"),
                 r.err.constData());
        QVERIFY(!QFile::exists(pdf));
        QCOMPARE(choreoSim({QStringLiteral("report"), defaultScenario(), QStringLiteral("-o"), pdf,
                            QStringLiteral("--sections")})
                     .exitCode,
                 1);
    }
#endif

    void workerSpeaksTheProtocol() {
        std::string text, error;
        choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
        const Json request{{"type", "run"}, {"scenario", Json::parse(text)}};
        const Run r = choreoSim({QStringLiteral("worker")}, QByteArray::fromStdString(request.dump()));
        QCOMPARE(r.exitCode, 0);
        const auto lines = r.out.trimmed().split('\n');
        QVERIFY(lines.size() >= 3);
        const Json hello = Json::parse(lines.first().toStdString());
        QCOMPARE(hello["type"].get<std::string>(), std::string("hello"));
        QCOMPARE(hello["protocol"].get<std::string>(), std::string("choreo-worker/1"));
        double last = -1;
        for (int i = 1; i + 1 < lines.size(); ++i) {
            const Json p = Json::parse(lines[i].toStdString());
            QCOMPARE(p["type"].get<std::string>(), std::string("progress"));
            QVERIFY(p["fraction"].get<double>() >= last);
            last = p["fraction"].get<double>();
        }
        const Json result = Json::parse(lines.last().toStdString());
        QCOMPARE(result["type"].get<std::string>(), std::string("result"));
        QVERIFY(result["result"]["step_time_s"].get<double>() > 0);
    }

    void workerReportsInvalidInput() {
        std::string text, error;
        choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
        Json scenario = Json::parse(text);
        scenario["cluster"]["pools"][0]["device"] = "h1000";
        const Run r =
            choreoSim({QStringLiteral("worker")},
                      QByteArray::fromStdString(Json{{"type", "run"}, {"scenario", scenario}}.dump()));
        QCOMPARE(r.exitCode, 2);
        const Json e = Json::parse(r.out.trimmed().split('\n').last().toStdString());
        QCOMPARE(e["type"].get<std::string>(), std::string("error"));
        QCOMPARE(e["code"].get<std::string>(), std::string("invalid-input"));
        QCOMPARE(e["diagnostics"][0]["path"].get<std::string>(), std::string("cluster.pools[0].device"));
        const Run garbage = choreoSim({QStringLiteral("worker")}, "not json");
        QCOMPARE(garbage.exitCode, 6);
    }

    void flowAndPacketAgree_data() {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"1f1b", "interleaved", "context", "zero1-oversubscribed", "zero3",
                              "zero3-deepspeed-2021", "moe-ep", "moe-ep-context", "single-switch",
                              "rail-oversubscribed", "rail-3-tiers", "dragonfly", "torus-3d"})
            QTest::newRow(v) << QString::fromUtf8(v);
    }

    // The folded flow level against every message on every rank, on 32-device variants of the default.
    void flowAndPacketAgree() {
        QFETCH(QString, variant);
        std::string text, error;
        choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
        Json doc = Json::parse(text);
        auto& p = doc["workload"]["parallel"];
        doc["cluster"]["pools"][0]["count"] = 32;
        doc["workload"]["model"]["layers"] = 16; // small enough to fit every layout below
        doc["workload"]["global_batch"] = 32;
        p["dp"] = 2;
        if (variant == QStringLiteral("interleaved"))
            p["vp"] = 2;
        if (variant == QStringLiteral("context")) {
            p["pp"] = 2;
            p["cp"] = 2;
        }
        if (variant == QStringLiteral("zero1-oversubscribed")) {
            p["pp"] = 1;
            p["dp"] = 8;
            doc["cluster"]["network"]["topology"]["oversubscription"] = 4.0;
            doc["cluster"]["network"]["topology"]["nodes_per_leaf"] = 1;
        }
        // Expert all-to-alls across two nodes: over data-parallel ranks (dp 8, ep 4), or over context and
        // data-parallel ranks together (dp 4, cp 2, ep 8).
        if (variant.startsWith(QStringLiteral("moe-ep"))) {
            const bool context = variant == QStringLiteral("moe-ep-context");
            p["pp"] = 1;
            p["dp"] = context ? 4 : 8;
            p["cp"] = context ? 2 : 1;
            p["ep"] = context ? 8 : 4;
            doc["workload"]["model"]["moe"] =
                Json{{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 7168}, {"dense_layers", 1}};
            doc["workload"]["global_batch"] = 16;
        }
        // Topologies: pp 2, dp 4, so that data-parallel rings and pipeline transfers cross shared links.
        auto& topology = doc["cluster"]["network"]["topology"];
        if (variant == QStringLiteral("single-switch"))
            topology = Json{{"kind", "single-switch"}};
        if (variant.startsWith(QStringLiteral("rail")) || variant == QStringLiteral("dragonfly") ||
            variant == QStringLiteral("torus-3d")) {
            p["pp"] = 2;
            p["dp"] = 4;
        }
        if (variant == QStringLiteral("rail-oversubscribed"))
            topology = Json{{"kind", "rail-fat-tree"}, {"oversubscription", 4.0}, {"nodes_per_leaf", 1}};
        if (variant == QStringLiteral("rail-3-tiers"))
            topology = Json{{"kind", "rail-fat-tree"},
                            {"tiers", 3},
                            {"oversubscription", 2.0},
                            {"nodes_per_leaf", 2},
                            {"radix", 8}};
        if (variant == QStringLiteral("dragonfly"))
            topology =
                Json{{"kind", "dragonfly"}, {"groups", 4}, {"routers_per_group", 2}, {"link_Gbps", 100.0}};
        if (variant == QStringLiteral("torus-3d"))
            topology = Json{{"kind", "torus-3d"}, {"dims", {2, 4, 4}}, {"link_Gbps", 100.0}};
        if (variant.startsWith(QStringLiteral("zero3"))) {
            p["pp"] = 1;
            p["dp"] = 8;
            p["zero"] = 3;
            doc["workload"]["global_batch"] = 8;
            if (variant == QStringLiteral("zero3-deepspeed-2021"))
                doc["workload"]["zero3_engine"] = "deepspeed-2021";
        }
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("variant.json"));
        choreo::models::writeTextFileAtomically(file.toStdString(), doc.dump(), error);
        double times[2] = {0, 0};
        int i = 0;
        for (const char* fidelity : {"flow", "packet"}) {
            const Run r = choreoSim({QStringLiteral("run"), file, QStringLiteral("--json"),
                                     QStringLiteral("--fidelity"), QString::fromUtf8(fidelity)});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            times[i++] = Json::parse(r.out.toStdString())["step_time_s"].get<double>();
        }
        QVERIFY2(std::fabs(times[0] - times[1]) / times[1] < 0.03,
                 qPrintable(QStringLiteral("flow %1 s, packet %2 s").arg(times[0]).arg(times[1])));
    }

    // DeepSpeed's ZeRO-3 of 2021, by hand: 8 GPUs of one node, 4 layers of hidden 8,192 and FFN 32,768 (4 *
    // 8192^2 + 2 * 8192 * 32768 = 805,306,368 parameters, 1.6106 GB in bf16) at 128 tokens, so that
    // compute is negligible. Per layer on the one stream, at 21.3 GB/s: the forward's gather (1.6106 GB,
    // 75.6 ms), the recomputing backward's gather of the layer and again of all but its FFN down projection
    // (1.6106 + 1.0737 GB, 126.0 ms) and the bf16 gradients' reduce-scatter (75.6 ms): 4 * 277.3 ms =
    // 1.109 s. NVLink alone would take a tenth of that.
    void deepSpeed2021Zero3ByHand() {
        std::string text, error;
        choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
        Json doc = Json::parse(text);
        doc["cluster"]["pools"][0]["count"] = 8;
        auto& w = doc["workload"];
        w["model"] = Json{{"name", "wide"},     {"layers", 4},    {"hidden", 8192},
                          {"heads", 64},        {"kv_heads", 64}, {"ffn_hidden", 32768},
                          {"ffn_gated", false}, {"vocab", 32000}, {"seq_len", 128}};
        w["global_batch"] = 8;
        w["micro_batch"] = 1;
        w["recompute"] = "full";
        w["parallel"] = Json{{"tp", 1}, {"pp", 1}, {"dp", 8}, {"zero", 3}};
        w["gradient_precision"] = "bf16";
        QTemporaryDir dir;
        auto stepTime = [&](const char* engine) {
            w["zero3_engine"] = engine;
            const QString file = dir.filePath(QStringLiteral("zero3.json"));
            choreo::models::writeTextFileAtomically(file.toStdString(), doc.dump(), error);
            const Run r = choreoSim({QStringLiteral("run"), file, QStringLiteral("--json")});
            if (r.exitCode != 0)
                qWarning("%s", r.err.constData());
            return r.exitCode == 0 ? Json::parse(r.out.toStdString())["step_time_s"].get<double>() : -1.0;
        };
        const double deepSpeed = stepTime("deepspeed-2021"), layered = stepTime("layered");
        const double layer = 805306368.0 * 2, down = 8192.0 * 32768 * 2;
        const double hand = 4 * (layer + (2 * layer - down) + layer) / choreo::models::kDeepSpeed2021Zero3Bps;
        QVERIFY2(deepSpeed >= hand && deepSpeed < 1.03 * hand,
                 qPrintable(QStringLiteral("%1 s, by hand %2 s").arg(deepSpeed).arg(hand)));
        QVERIFY2(layered > 0 && layered < 0.2 * deepSpeed, qPrintable(QString::number(layered)));
    }

    // The closed form against the simulation on every published run.
    void analyticalAgreesWithFlow() {
        if (!QFile::exists(QStringLiteral(CHOREO_TEST_VALIDATION_CSV)))
            QSKIP("shared/validation/published-runs.csv is not beside the checkout");
        std::map<std::string, double> predicted[2];
        int i = 0;
        for (const char* fidelity : {"analytical", "flow"}) {
            const Run r =
                choreoSim(QStringList{QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_VALIDATION_CSV),
                                      QStringLiteral("--json"), QStringLiteral("--fidelity"),
                                      QString::fromUtf8(fidelity)} +
                          joinPublishedFrameworks());
            QCOMPARE(r.exitCode, 0);
            const Json j = Json::parse(r.out.toStdString());
            QCOMPARE(j["fidelity"].get<std::string>(), std::string(fidelity));
            for (const auto& c : j["cases"])
                predicted[i][c["id"].get<std::string>()] = c["predicted_step_time_s"].get<double>();
            ++i;
        }
        QCOMPARE(predicted[0].size(), predicted[1].size());
        for (const auto& [id, flow] : predicted[1]) {
            const double analytical = predicted[0].at(id);
            QVERIFY2(std::fabs(analytical - flow) / flow < 0.10,
                     qPrintable(QStringLiteral("case %1: analytical %2 s, flow %3 s")
                                    .arg(QString::fromStdString(id))
                                    .arg(analytical)
                                    .arg(flow)));
        }
    }

    // No GPU visible: the CPU part is still measured and written, the exit code says so (7).
    void calibrateWithoutAGpu() {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("host.json"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("-1"));
        const Run r =
            choreoSim({QStringLiteral("calibrate"), QStringLiteral("--quick"), QStringLiteral("--cpu-size"),
                       QStringLiteral("tiny"), QStringLiteral("--out"), out},
                      {}, env);
        QCOMPARE(r.exitCode, 7);
        QVERIFY2(r.err.contains("no GPU was measured"), r.err.constData());
        QVERIFY2(r.out.contains("CPU data preparation, tokens per second per core"), r.out.constData());
        choreo::models::Diagnostics errors;
        auto profile = choreo::models::loadProfileFile(out.toStdString(), errors);
        QVERIFY2(profile, choreo::models::joinDiagnostics(errors).c_str());
        QCOMPARE(profile->kind, std::string("cpu"));
        QVERIFY(profile->fit.memory_TBps && *profile->fit.memory_TBps > 0);
        QVERIFY(profile->notes.front().rfind("no GPU measured", 0) == 0);
        bool triad = false, tokens = false;
        for (const auto& f : profile->figures) {
            triad = triad || (f.key == "cpu.triad" && f.value > 0 && f.unit == "GB/s");
            tokens = tokens || (f.key == "cpu.tokenize" && f.value > 0 && f.unit == "tokens/s");
        }
        QVERIFY(triad && tokens);
        if (profile->identity.at("blas").rfind("OpenBLAS", 0) == 0)
            QVERIFY(profile->fit.gemm.contains(choreo::models::Precision::Fp32));

        // A GPU tool that is not there is a missing GPU too, named in the profile.
        const Run missing = choreoSim(
            {QStringLiteral("calibrate"), QStringLiteral("--cpu-size"), QStringLiteral("tiny"),
             QStringLiteral("--gpu-exe"), QStringLiteral("/nonexistent/choreo-calibrate-gpu"),
             QStringLiteral("--device"), QStringLiteral("epyc-9654"), QStringLiteral("--out"), out});
        QCOMPARE(missing.exitCode, 7);
        QVERIFY2(missing.err.contains("not found at /nonexistent/choreo-calibrate-gpu"),
                 missing.err.constData());
        QCOMPARE(choreoSim({QStringLiteral("calibrate"), QStringLiteral("--device"), QStringLiteral("h1000")})
                     .exitCode,
                 1);
        QCOMPARE(
            choreoSim({QStringLiteral("calibrate"), QStringLiteral("--cpu-size"), QStringLiteral("huge")})
                .exitCode,
            1);
        QCOMPARE(
            choreoSim({QStringLiteral("calibrate"), QStringLiteral("--progress"), QStringLiteral("text")})
                .exitCode,
            1);

        // --progress json: standard output is records only, progress never going back, then the profile.
        const Run records =
            choreoSim({QStringLiteral("calibrate"), QStringLiteral("--cpu-size"), QStringLiteral("tiny"),
                       QStringLiteral("--progress"), QStringLiteral("json"), QStringLiteral("--name"),
                       QStringLiteral("records"), QStringLiteral("--out"), out},
                      {}, env);
        QCOMPARE(records.exitCode, 7);
        double last = 0;
        int progress = 0;
        Json profileRecord;
        for (const QByteArray& line : records.out.trimmed().split('\n')) {
            const Json record = Json::parse(line.toStdString()); // throws, failing the test, on anything else
            if (record.at("type") == "progress") {
                QVERIFY(record.at("fraction").get<double>() >= last);
                last = record.at("fraction").get<double>();
                ++progress;
            } else {
                QCOMPARE(record.at("type").get<std::string>(), std::string("profile"));
                profileRecord = record;
            }
        }
        QVERIFY(progress >= 3);
        QCOMPARE(last, 1.0);
        QCOMPARE(profileRecord.at("name").get<std::string>(), std::string("records"));
        QCOMPARE(profileRecord.at("file").get<std::string>(), out.toStdString());
        QVERIFY(!profileRecord.at("gpu_measured").get<bool>());
        QVERIFY(!profileRecord.at("gpu_message").get<std::string>().empty());
    }

    // The GPU path of calibrate, end to end, with a stand-in for choreo-calibrate-gpu that writes a
    // known document: fitted, matched to the catalog, predicted for the layer check, exit 0.
    void calibrateWithAGpuDocument() {
        QTemporaryDir dir;
        std::string error;
        const QString fixture = writeGpuDocument(dir);
        const QString tool = dir.filePath(QStringLiteral("fake-calibrate-gpu"));
        choreo::models::writeTextFileAtomically(
            tool.toStdString(),
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && cp '" + fixture.toStdString() +
                "' \"$2\"; shift; done\nexit 0\n",
            error);
        QFile::setPermissions(tool, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const QString out = dir.filePath(QStringLiteral("h100.json"));
        const Run r =
            choreoSim({QStringLiteral("calibrate"), QStringLiteral("--quick"), QStringLiteral("--cpu-size"),
                       QStringLiteral("tiny"), QStringLiteral("--gpu-exe"), tool, QStringLiteral("--name"),
                       QStringLiteral("h100-lab"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("refines h100-sxm"), r.out.constData());
        QVERIFY2(r.out.contains("GEMM bf16, large: rate"), r.out.constData());
        QVERIFY2(r.out.contains("One layer forward+backward"), r.out.constData());
        choreo::models::Diagnostics errors;
        auto p = choreo::models::loadProfileFile(out.toStdString(), errors);
        QVERIFY2(p, choreo::models::joinDiagnostics(errors).c_str());
        QCOMPARE(p->name, std::string("h100-lab"));
        QCOMPARE(p->kind, std::string("gpu"));
        QCOMPARE(p->device, std::string("h100-sxm"));
        QVERIFY(std::fabs(p->fit.gemm.at(choreo::models::Precision::Bf16).rate_TFLOPs - 720.0) < 0.1);
        QVERIFY(p->layer && p->layer->predicted_s > 0);
        QCOMPARE(p->identity.at("power_method"), std::string("nvidia-smi"));
        QVERIFY(p->identity.contains("cpu_model"));

        // The profile, by name next to a scenario, changes its result.
        std::string text;
        choreo::models::readTextFile(defaultScenario().toStdString(), text, error);
        Json doc = Json::parse(text);
        doc["calibration"] = Json{{"profile", "h100"}};
        const QString scenario = dir.filePath(QStringLiteral("scenario.json"));
        choreo::models::writeTextFileAtomically(scenario.toStdString(), doc.dump(2), error);
        const Run run = choreoSim({QStringLiteral("run"), scenario, QStringLiteral("--json"),
                                   QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(Json::parse(run.out.toStdString())["calibration"].get<std::string>(),
                 std::string("h100-lab"));
    }

    // A document measured on another machine (a GPU server) is fitted without measuring anything here.
    void calibrateFromADocumentMeasuredElsewhere() {
        QTemporaryDir dir;
        std::string error;
        const QString doc = writeGpuDocument(dir);
        const QString out = dir.filePath(QStringLiteral("server.json"));
        const Run r = choreoSim({QStringLiteral("calibrate"), QStringLiteral("--gpu-measurements"), doc,
                                 QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("refines h100-sxm"), r.out.constData());
        QVERIFY2(r.err.contains("this machine's CPU is not measured"), r.err.constData());
        choreo::models::Diagnostics errors;
        auto p = choreo::models::loadProfileFile(out.toStdString(), errors);
        QVERIFY2(p, choreo::models::joinDiagnostics(errors).c_str());
        QCOMPARE(p->date, gpuDocument().at("date").get<std::string>()); // the measurement's date, not today's
        QVERIFY(!p->identity.contains("cpu_model"));
        for (const auto& f : p->figures)
            QVERIFY2(f.key.rfind("cpu.", 0) != 0, f.key.c_str());

        // A file that is not there, or not JSON, or not a measurement document: exit 4, naming the problem.
        const Run missing = choreoSim({QStringLiteral("calibrate"), QStringLiteral("--gpu-measurements"),
                                       dir.filePath(QStringLiteral("none.json"))});
        QCOMPARE(missing.exitCode, 4);
        QVERIFY2(missing.err.contains("--gpu-measurements"), missing.err.constData());
        const QString junk = dir.filePath(QStringLiteral("junk.json"));
        choreo::models::writeTextFileAtomically(junk.toStdString(), "{not json", error);
        const Run malformed =
            choreoSim({QStringLiteral("calibrate"), QStringLiteral("--gpu-measurements"), junk});
        QCOMPARE(malformed.exitCode, 4);
        QVERIFY2(malformed.err.contains("is not JSON"), malformed.err.constData());
        Json wrong = gpuDocument();
        wrong["format"] = "something-else/1";
        wrong["memory"]["copy_kernel_TBps"] = "fast";
        choreo::models::writeTextFileAtomically(junk.toStdString(), wrong.dump(), error);
        const Run invalid = choreoSim({QStringLiteral("calibrate"), QStringLiteral("--gpu-measurements"),
                                       junk, QStringLiteral("--out"), out});
        QCOMPARE(invalid.exitCode, 4);
        QVERIFY2(invalid.err.contains("gpu.format") && invalid.err.contains("gpu.memory.copy_kernel_TBps"),
                 invalid.err.constData());
        // Measuring options do not go with it.
        QCOMPARE(choreoSim({QStringLiteral("calibrate"), QStringLiteral("--gpu-measurements"), doc,
                            QStringLiteral("--quick")})
                     .exitCode,
                 1);
    }

    // A scenario that names a profile gives other numbers than the spec sheet, and says which profile.
    void runWithAProfile() {
        QTemporaryDir dir;
        const QString file = calibratedScenario(dir, "h100-cli-test");
        const QStringList analytical{QStringLiteral("--json"), QStringLiteral("--fidelity"),
                                     QStringLiteral("analytical")};
        const Run plain = choreoSim(QStringList{QStringLiteral("run"), defaultScenario()} + analytical);
        const Run calibrated = choreoSim(QStringList{QStringLiteral("run"), file} + analytical);
        QVERIFY2(calibrated.exitCode == 0, calibrated.err.constData());
        const Json a = Json::parse(plain.out.toStdString()), b = Json::parse(calibrated.out.toStdString());
        QCOMPARE(b["calibration"].get<std::string>(), std::string("h100-cli-test"));
        QVERIFY(a["calibration"].get<std::string>().rfind("none", 0) == 0);
        QVERIFY(std::fabs(a["step_time_s"].get<double>() / b["step_time_s"].get<double>() - 1.0) > 0.01);
        QVERIFY(std::fabs(a["it_power_kW"].get<double>() / b["it_power_kW"].get<double>() - 1.0) > 0.01);
        const Run text = choreoSim(
            {QStringLiteral("run"), file, QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY2(text.out.contains("calibration         h100-cli-test"), text.out.constData());
        // The accuracy table was measured with the catalog's figures, and says so beside a calibrated run.
        QVERIFY(!a["accuracy"].get<std::string>().ends_with("not this calibration)"));
        QVERIFY2(
            b["accuracy"].get<std::string>().ends_with(" (with the catalog's figures, not this calibration)"),
            b["accuracy"].get<std::string>().c_str());

        // The worker finds it through the request's scenario_dir.
        std::string scenarioText, error;
        choreo::models::readTextFile(file.toStdString(), scenarioText, error);
        const Json request{{"type", "run"},
                           {"fidelity", "analytical"},
                           {"scenario", Json::parse(scenarioText)},
                           {"scenario_dir", dir.path().toStdString()}};
        const Run worker = choreoSim({QStringLiteral("worker")}, QByteArray::fromStdString(request.dump()));
        QCOMPARE(worker.exitCode, 0);
        const Json result = Json::parse(worker.out.trimmed().split('\n').last().toStdString());
        QCOMPARE(result["result"]["calibration"].get<std::string>(), std::string("h100-cli-test"));

        // A profile that cannot be found is invalid input naming the field.
        QTemporaryDir other;
        const Run bad = choreoSim({QStringLiteral("run"), calibratedScenario(other, "no-such-profile")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("calibration.profile: no profile \"no-such-profile\""),
                 bad.err.constData());
    }

    void validateCoversEveryRow() {
        if (!QFile::exists(QStringLiteral(CHOREO_TEST_VALIDATION_CSV)))
            QSKIP("shared/validation/published-runs.csv is not beside the checkout");
        const Run r =
            choreoSim(QStringList{QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_VALIDATION_CSV),
                                  QStringLiteral("--json")} +
                      joinPublishedFrameworks());
        QCOMPARE(r.exitCode, 0);
        const Json j = Json::parse(r.out.toStdString());
        const auto n = j["summary"]["n"].get<int>();
        QCOMPARE(static_cast<std::size_t>(n), j["cases"].size());
        QCOMPARE(j["cases"].size() + j["skipped"].size(), std::size_t(43)); // every row: simulated or skipped
        for (const auto& s : j["skipped"])
            QVERIFY(!s["reason"].get<std::string>().empty());
        for (const auto& c : j["cases"])
            for (const char* key : {"id", "predicted_step_time_s", "measured_step_time_s", "error_pct"})
                QVERIFY(c.contains(key));
        QVERIFY(n >= 25);
        for (const char* key : {"n", "median_abs_error_pct", "p90_abs_error_pct", "max_abs_error_pct"})
            QVERIFY(j["summary"].contains(key));
        // Accuracy guard. Issue 3's target is a median |error| of 8 % and no case above 25 %; the model
        // measures 3.8 % and 29.7 % today (docs/validation.md): fail when the median leaves the target or
        // the worst case (row 26, explained there) gets clearly worse.
        const double median = j["summary"]["median_abs_error_pct"].get<double>();
        const double worst = j["summary"]["max_abs_error_pct"].get<double>();
        QVERIFY2(median <= 8.0, qPrintable(QStringLiteral("median |error| %1 %").arg(median)));
        QVERIFY2(worst <= 35.0, qPrintable(QStringLiteral("max |error| %1 %").arg(worst)));
    }

    // The serving file is told by its columns and keeps the training file's shape, with errors per metric.
    void validateServingFile() {
        if (!QFile::exists(QStringLiteral(CHOREO_TEST_INFERENCE_CSV)))
            QSKIP("shared/validation/published-inference.csv is not beside the checkout");
        // 153 rows with rate searches: minutes under the sanitizers, so it runs as its own slow test.
        if (qEnvironmentVariableIsSet("CHOREO_SLOW_TESTS_APART"))
            QSKIP("runs as sim.cli.validate_serving (label slow)");
        const Run r = choreoSim({QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_INFERENCE_CSV),
                                 QStringLiteral("--json"), QStringLiteral("--jobs"), QStringLiteral("2")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Json j = Json::parse(r.out.toStdString());
        QCOMPARE(j["cases"].size() + j["skipped"].size(), std::size_t(153)); // every row
        for (const auto& s : j["skipped"])
            QVERIFY(!s["reason"].get<std::string>().empty());
        for (const auto& c : j["cases"])
            for (const char* key : {"id", "metric", "predicted", "measured", "error_pct"})
                QVERIFY(c.contains(key));
        const auto& summary = j["summary"];
        for (const char* key : {"n", "median_abs_error_pct", "p90_abs_error_pct", "max_abs_error_pct"})
            QVERIFY(summary.contains(key));
        QVERIFY(summary["n"].get<int>() >= 140);
        // Accuracy guard at today's figures (docs/validation.md, 2026-12-07): throughput 12.1 % median
        // |error|, TPOT p99 5.9 %, TTFT p99 33.4 %, against the issue's targets of 15 % and 20 %. Fail when
        // throughput or TPOT miss their targets, or TTFT clearly worsens.
        const auto& by = summary["by_metric"];
        QVERIFY(by.contains("output_tokens_per_s_total") && by.contains("ttft_ms_p99"));
        const double throughput = by["output_tokens_per_s_total"]["median_abs_error_pct"].get<double>();
        QVERIFY2(throughput <= 15.0,
                 qPrintable(QStringLiteral("throughput median |error| %1 %").arg(throughput)));
        const double tpot = by["tpot_ms_p99"]["median_abs_error_pct"].get<double>();
        QVERIFY2(tpot <= 20.0, qPrintable(QStringLiteral("TPOT p99 median |error| %1 %").arg(tpot)));
        const double ttft = by["ttft_ms_p99"]["median_abs_error_pct"].get<double>();
        QVERIFY2(ttft <= 40.0, qPrintable(QStringLiteral("TTFT p99 median |error| %1 %").arg(ttft)));
        // What every serving result quotes (models::servingAccuracy) is this run's, to a tenth.
        const auto& quoted = choreo::models::servingAccuracy();
        const auto same = [](double figure, const Json& metric) {
            return std::fabs(figure - metric["median_abs_error_pct"].get<double>()) < 0.051;
        };
        QVERIFY2(same(quoted.throughput_pct, by["output_tokens_per_s_total"]) &&
                     same(quoted.tpot_p99_pct, by["tpot_ms_p99"]) &&
                     same(quoted.ttft_p99_pct, by["ttft_ms_p99"]),
                 "models::servingAccuracy() is stale: update it (and docs/validation.md) to this run");
        QCOMPARE(quoted.measurements, summary["n"].get<int>());
        QCOMPARE(quoted.throughput_rows, by["output_tokens_per_s_total"]["n"].get<int>());
        QCOMPARE(quoted.tpot_p99_rows, by["tpot_ms_p99"]["n"].get<int>());
        QCOMPARE(quoted.ttft_p99_rows, by["ttft_ms_p99"]["n"].get<int>());
        // The first serving hold-out (validation/holdout-serving-1.csv, compiled blind, 22 offline rows):
        // its first run gave a median |error| of 12.6 % and a worst case of 94.6 % (8,192-token prompts,
        // whole, served one at a time); since, 9.7 % and 50.4 %. Fail when the model drifts clearly back.
        const Json held = validateHeldOut(QStringLiteral("holdout-serving-1.csv"),
                                          {QStringLiteral("--jobs"), QStringLiteral("2")});
        QVERIFY(!held.is_null());
        QCOMPARE(held["cases"].size(), std::size_t(22));
        const QString beyond = summaryBeyond(held, 12.0, 60.0);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    void validateServingWritesItsScenarios() {
        // --scenarios writes a serving row as the scenario validate simulates: `run` on it gives the same
        // throughput (one replica, every request queued at once). The row's configured batch is the
        // stage's max batch, and one past a serve stage's bound is refused by line and column.
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("serving.csv"));
        const auto writeRow = [&](const char* batch) {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                "id,model,accelerator,n_accel,tp,pp,ep,precision,framework,scenario,input_len,output_len,"
                "layers,hidden,heads,kv_heads,ffn_hidden,vocab,moe_experts,moe_topk,batch_or_concurrency,"
                "metric,value\n"
                "r1,Llama,h100-sxm,1,1,1,1,fp8,vLLM,offline all 300,128,128,32,4096,32,8,14336,128256,0,0,");
            f.write(batch);
            f.write(",output_tokens_per_s_total,20000\n");
        };
        writeRow("100000");
        const Run refused = choreoSim({QStringLiteral("validate"), csv});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("line 2.batch_or_concurrency: must be between 1 and 65536, got 100000"),
                 refused.err.constData());
        writeRow("64");
        const QString folder = dir.filePath(QStringLiteral("cases"));
        const Run v = choreoSim({QStringLiteral("validate"), csv, QStringLiteral("--json"),
                                 QStringLiteral("--scenarios"), folder});
        QVERIFY2(v.exitCode == 0, v.err.constData());
        const Json cases = Json::parse(v.out.toStdString())["cases"];
        QCOMPARE(cases.size(), std::size_t(1));
        const Run r =
            choreoSim({QStringLiteral("run"), folder + QStringLiteral("/r1.json"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Json j = Json::parse(r.out.toStdString());
        QCOMPARE(j["serving"]["output_tokens_per_s"].get<double>(), cases[0]["predicted"].get<double>());
        QFile written(folder + QStringLiteral("/r1.json"));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(
            Json::parse(written.readAll().toStdString())["workload"]["stages"][0]["max_batch"].get<int>(),
            64);
    }

    void validateServingRejectsBadRows() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("serving.csv"));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "id,model,accelerator,n_accel,tp,pp,ep,precision,framework,scenario,input_len,output_len,"
            "layers,hidden,heads,kv_heads,ffn_hidden,vocab,moe_experts,moe_topk,metric,value\n"
            "r1,Llama,h100-sxm,1,1,1,1,fp8,vLLM,offline,128,128,32,4096,32,8,14336,128256,0,0,"
            "output_tokens_per_s_total,fast\n"
            // Found by fuzz_validation_csv: a layout whose product overflowed (undefined behaviour).
            "r2,Llama,h100-sxm,9216,277777777777777774,1,1,fp8,vLLM,offline,128,128,32,4096,32,8,14336,"
            "128256,0,0,output_tokens_per_s_total,100\n"
            // Found by fuzz_validation_csv: a request count past a 64-bit integer (undefined behaviour).
            "r3,Llama,h100-sxm,1,1,1,1,fp8,vLLM,offline all 3.3e102,128,128,32,4096,32,8,14336,128256,0,0,"
            "output_tokens_per_s_total,100\n"
            // Found by fuzz_validation_csv: a length past a 64-bit integer (undefined behaviour).
            "r4,Llama,h100-sxm,1,1,1,1,fp8,vLLM,offline,128,8e116,32,4096,32,8,14336,128256,0,0,"
            "output_tokens_per_s_total,100\n");
        f.close();
        const Run r = choreoSim({QStringLiteral("validate"), csv});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("line 2.value"), r.err.constData());
        QVERIFY2(r.err.contains("line 3.tp: must be at most 1024, got 277777777777777774"),
                 r.err.constData());
        QVERIFY2(
            r.err.contains("line 4.scenario: the count after \"all\" must be at most 2000000, got 3.3e+102"),
            r.err.constData());
        QVERIFY2(r.err.contains("line 5.output_len: must be between 1 and 4194304 tokens, got 8e+116"),
                 r.err.constData());
        const Run vary =
            choreoSim({QStringLiteral("validate"), csv, QStringLiteral("--vary"), QStringLiteral("vp=1,2")});
        QVERIFY(vary.exitCode != 0);
        QVERIFY2(vary.err.contains("training validation files only"), vary.err.constData());
    }

    void validateHeldOutRuns() {
        // The held-out runs (validation/README.md) are simulated whole; their error is reported, not
        // fitted. The first run measured a median |error| of 24.6 % and a worst case of 35.6 %
        // (docs/validation.md): fail when the model drifts clearly further from runs it has never seen.
        const Run r = choreoSim({QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_HOLDOUT_CSV),
                                 QStringLiteral("--json"), QStringLiteral("--jobs"), QStringLiteral("2")});
        QCOMPARE(r.exitCode, 0);
        const Json j = Json::parse(r.out.toStdString());
        QCOMPARE(j["cases"].size(), std::size_t(14));
        QVERIFY(j["skipped"].empty());
        const double median = j["summary"]["median_abs_error_pct"].get<double>();
        const double worst = j["summary"]["max_abs_error_pct"].get<double>();
        QVERIFY2(median <= 30.0, qPrintable(QStringLiteral("median |error| %1 %").arg(median)));
        QVERIFY2(worst <= 45.0, qPrintable(QStringLiteral("max |error| %1 %").arg(worst)));
    }

    // `validate --json` on validation/NAME (beside the first held-out file) with `options`; the document,
    // or null when it failed.
    static Json validateHeldOut(const QString& name, const QStringList& options) {
        const QString csv = QFileInfo(QStringLiteral(CHOREO_TEST_HOLDOUT_CSV)).dir().filePath(name);
        const Run r =
            choreoSim(QStringList{QStringLiteral("validate"), csv, QStringLiteral("--json")} + options);
        return r.exitCode == 0 ? Json::parse(r.out.toStdString()) : Json();
    }

    // Empty when the summary's median and worst |error| are within the bounds, else what is not.
    static QString summaryBeyond(const Json& j, double medianBound, double worstBound) {
        const double median = j["summary"]["median_abs_error_pct"].get<double>();
        const double worst = j["summary"]["max_abs_error_pct"].get<double>();
        if (median <= medianBound && worst <= worstBound)
            return {};
        return QStringLiteral("median |error| %1 % (bound %2), max %3 % (bound %4)")
            .arg(median)
            .arg(medianBound)
            .arg(worst)
            .arg(worstBound);
    }

    // assets/catalog/accuracy.json is what `choreo-sim accuracy` gives for the five validation files now:
    // regenerated here (closed form, as the file says), it must match in every figure, so that a change
    // of the model that moves the error on a device fails until the table is regenerated
    // (docs/validation.md). `run` quotes the device's entry.
    void accuracyTableIsCurrent() {
        if (!QFile::exists(QStringLiteral(CHOREO_TEST_VALIDATION_CSV)))
            QSKIP("shared/validation/published-runs.csv is not beside the checkout");
        const QDir holdouts = QFileInfo(QStringLiteral(CHOREO_TEST_HOLDOUT_CSV)).dir();
        QStringList args = {QStringLiteral("accuracy"), QStringLiteral(CHOREO_TEST_VALIDATION_CSV)};
        for (const char* name : {"holdout-runs.csv", "holdout-2-runs.csv", "holdout-3-runs.csv",
                                 "holdout-4-runs.csv", "holdout-5-runs.csv", "holdout-6-runs.csv",
                                 "holdout-7-runs.csv", "holdout-8-runs.csv", "holdout-9-runs.csv"})
            args << holdouts.filePath(QString::fromLatin1(name));
        args << QStringLiteral("--fidelity") << QStringLiteral("analytical") << joinPublishedFrameworks();
        const Run r = choreoSim(args);
        QCOMPARE(r.exitCode, 0);
        Json fresh = Json::parse(r.out.toStdString());
        std::string text, error;
        QVERIFY(choreo::models::readTextFile(CHOREO_TEST_ASSETS "/catalog/accuracy.json", text, error));
        Json kept = Json::parse(text);
        QVERIFY(fresh["accuracy"]["devices"].size() >= 8);
        fresh["accuracy"].erase("as_of"); // the day it was generated
        kept["accuracy"].erase("as_of");
        QVERIFY2(
            fresh == kept,
            ("regenerate assets/catalog/accuracy.json (docs/validation.md); now:\n" + fresh.dump(2)).c_str());
        const auto& h100 = fresh["accuracy"]["devices"]["h100-sxm"];
        QVERIFY(h100["runs"].get<int>() >= 43 && h100["too_fast"].get<int>() <= h100["runs"].get<int>());

        const Run run = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--fidelity"),
                                   QStringLiteral("analytical")});
        QCOMPARE(run.exitCode, 0);
        std::string runs = " on " + std::to_string(h100["runs"].get<int>());
        runs += " published runs (";
        QVERIFY2(run.out.contains("accuracy            median ") && run.out.contains(runs.c_str()),
                 run.out.constData());
        QVERIFY(run.out.contains("; analytical fidelity, "));

        const Run none = choreoSim({QStringLiteral("accuracy")});
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.err.contains("accuracy needs one or more validation CSV files"), none.err.constData());
    }

    void validateSecondHeldOutRuns() {
        // The second held-out set (validation/README.md), compiled after the first had been looked at:
        // its first run measured a median |error| of 14.6 % and a worst case of 36.1 % with row N8 skipped
        // (docs/validation.md); N8's expert parallelism spans data- and context-parallel ranks, simulated
        // since. Fail when the model drifts clearly further.
        const Json j = validateHeldOut(QStringLiteral("holdout-2-runs.csv"),
                                       {QStringLiteral("--jobs"), QStringLiteral("2")});
        QVERIFY(!j.is_null());
        QCOMPARE(j["cases"].size(), std::size_t(21));
        QCOMPARE(j["skipped"].size(), std::size_t(0));
        const QString beyond = summaryBeyond(j, 20.0, 45.0);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    void validateThirdHeldOutRuns() {
        // The third held-out set, compiled blind after the second had been studied: its first run (commit
        // 3302b0a) measured a median |error| of 25.8 % and a worst case of 55.5 %, three rows skipped for
        // layouts Choreo cannot express (docs/validation.md; the closed form: 25.9 % and 55.5 %). Studied
        // since (NVFP4, Blackwell Ultra and A100 GEMMs, torchtitan's recompute policy, head widths,
        // FlashAttention-2 on Hopper): 17.2 % and 52.5 % in the closed form, so it no longer measures unseen
        // runs. P19 (Qwen3 235B, ep 32 over tp 2 x dp 16) simulates since expert tensor parallelism 1, and
        // P11 and P12 (Llama 3.1 405B over 128 chunks, the first and last holding the embedding and the loss
        // alone) since such chunks are allowed: 16.6 % and 52.5 %. Fail when the model drifts clearly back,
        // or when another row becomes unsimulable. At the closed-form level: at flow level row P13
        // (DeepSeek-V3, 256 GPUs, expert parallelism 32) alone takes 100 s, too long for the sanitizer build.
        const Json j = validateHeldOut(QStringLiteral("holdout-3-runs.csv"),
                                       {QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY(!j.is_null());
        QCOMPARE(j["cases"].size() + j["skipped"].size(), std::size_t(30));
        std::set<std::string> skipped;
        for (const auto& s : j["skipped"])
            skipped.insert(s["id"].get<std::string>());
        QVERIFY(skipped.empty());
        const QString beyond = summaryBeyond(j, 22.0, 58.0);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    void validateFourthHeldOutRuns() {
        // The fourth held-out set, compiled blind after the third had been studied (DGXC recipes,
        // llm-foundry, MaxText on TPUs): its first run (commit 384c018) measured a median |error| of 10.7 %
        // and a worst case of 44.7 % over 23 rows, 5 skipped. Studied since (FlashAttention-2 on Hopper for
        // PyTorch-native frameworks, one switch for a job inside one scale-up domain, which brought in four
        // TPU rows): 10.8 % and 47.0 % in the closed form over 27 rows. Q13 (DeepSeek-V3 in BF16 on 256
        // GB200, NeMo 25.04, ep 64 over tp 2 x dp 32) simulates since expert tensor parallelism 1, at
        // -74.8 %: the run reached 9.5 % of the GPUs' bf16 peak, 958 tokens/s a GPU against the 2,482 the
        // same model trains at in FP8 on GB300 with Megatron-Bridge 26.04 (row P13), where the model is
        // -17 %. 12.0 % and 74.8 % over 28 rows. Fail when
        // the model drifts clearly back, or when a row becomes unsimulable.
        const Json j = validateHeldOut(QStringLiteral("holdout-4-runs.csv"),
                                       {QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY(!j.is_null());
        QCOMPARE(j["cases"].size() + j["skipped"].size(), std::size_t(28));
        std::set<std::string> skipped;
        for (const auto& s : j["skipped"])
            skipped.insert(s["id"].get<std::string>());
        QVERIFY(skipped.empty());
        // The worst case bounds every row but Q13, which has its own.
        double worstOther = 0.0;
        for (const auto& c : j["cases"]) {
            const double error = std::abs(c["error_pct"].get<double>());
            if (c["id"].get<std::string>() == "Q13")
                QVERIFY2(error <= 80.0, qPrintable(QStringLiteral("Q13 |error| %1 %").arg(error)));
            else
                worstOther = std::max(worstOther, error);
        }
        QVERIFY2(worstOther <= 55.0,
                 qPrintable(QStringLiteral("max |error| without Q13 %1 %").arg(worstOther)));
        const QString beyond = summaryBeyond(j, 15.0, 80.0);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    void validateEighthHeldOutRuns() {
        // The eighth held-out set, Blackwell training compiled blind (MLPerf Training v5.0 on GB200, NVIDIA's
        // B200 preview, Together's FSDP on B200, and Hopper rows of the same round): its first run (commit
        // 3eb2e26) measured a median |error| of 12.0 % and a worst case of 27.0 %, every Blackwell row too
        // fast (the closed form: 12.2 % and 28.9 %). Studied since (sustained B200 and GB200 GEMM rates):
        // 1.7 % and 25.9 % in the closed form. Fail when the model drifts clearly back, or when a row
        // becomes unsimulable.
        const Json j = validateHeldOut(QStringLiteral("holdout-8-runs.csv"),
                                       {QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY(!j.is_null());
        QCOMPARE(j["cases"].size(), std::size_t(15));
        QVERIFY(j["skipped"].empty());
        const QString beyond = summaryBeyond(j, 8.0, 35.0);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    void validateNinthHeldOutRuns() {
        // The ninth held-out set, Mixture-of-Experts training compiled blind (Megatron-MoE-ModelZoo's Qwen3
        // and Mixtral runs on H100, GB200 and GB300, NVIDIA's DeepSeek-V3 on GB200, DeepSeek's own on H800):
        // its first run measured a median |error| of 13.4 % and a worst case of 35.3 % (the closed form: 15.2
        // % and 35.3 %), 10 of 16 rows too fast. Studied since (Megatron-Core's recompute modules and
        // DeepEP's dispatch, read from the file's recompute_modules and ep_dispatcher columns): 11.4 %
        // and 36.9 % in the closed form. DeepSeek's row runs DualPipe on a pipeline without interleaving,
        // which the expert all-to-all overlap refuses by name. Fail when the model drifts clearly back, or
        // when another row becomes unsimulable.
        const Json j = validateHeldOut(QStringLiteral("holdout-9-runs.csv"),
                                       {QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY(!j.is_null());
        QCOMPARE(j["cases"].size(), std::size_t(16));
        QCOMPARE(j["skipped"].size(), std::size_t(1));
        QCOMPARE(j["skipped"][0]["id"].get<std::string>(), std::string("M17"));
        QVERIFY(j["skipped"][0]["reason"].get<std::string>().find("workload.overlap.ep_comm") !=
                std::string::npos);
        const QString beyond = summaryBeyond(j, 14.0, 45.0);
        QVERIFY2(beyond.isEmpty(), qPrintable(beyond));
    }

    // Each family's shipped scenario runs; the TPU pod's ICI torus is its own fabric: a ring of the same 64
    // chips gives another step.
    // --sweep over a pool's count (the hybrid issue's CPU pool): one result per value, the step unchanged
    // while the CPUs keep up and the cost growing with them; a value the scenario refuses is named before
    // anything runs.
    void sweepOverAPoolsCount() {
        const QString hybrid = QStringLiteral(CHOREO_TEST_ASSETS "/scenarios/hybrid-multimodal.json");
        const Run r = choreoSim({QStringLiteral("run"), hybrid, QStringLiteral("--sweep"),
                                 QStringLiteral("cluster.pools[1].count=2,4,8"), QStringLiteral("--json"),
                                 QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Json points = Json::parse(r.out.toStdString());
        QCOMPARE(points.size(), std::size_t(3));
        QCOMPARE(points[0]["value"].get<std::string>(), std::string("2"));
        QVERIFY(points[2]["result"]["cost_usd"].get<double>() >
                points[0]["result"]["cost_usd"].get<double>());
        const Run bad = choreoSim({QStringLiteral("run"), hybrid, QStringLiteral("--sweep"),
                                   QStringLiteral("cluster.pools[1].count=2,1,4"),
                                   QStringLiteral("--fidelity"), QStringLiteral("analytical")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("cluster.pools[1].devices_per_node: 2 does not divide count=1"),
                 bad.err.constData());
        QVERIFY2(!bad.out.contains("train on"), bad.out.constData()); // no point ran
    }

    void systemsScenariosRun() {
        const QDir systems(QStringLiteral(CHOREO_TEST_ASSETS "/scenarios/systems"));
        const QStringList names = systems.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        QVERIFY(names.contains(QStringLiteral("tpu-v5p-pod.json")) && names.size() >= 3);
        for (const QString& name : names) {
            const Run r =
                choreoSim({QStringLiteral("run"), systems.filePath(name), QStringLiteral("--json")});
            QVERIFY2(r.exitCode == 0, qPrintable(name + QStringLiteral(": ") + QString::fromUtf8(r.err)));
            const Json j = Json::parse(r.out.toStdString());
            QVERIFY2(j["step_time_s"].get<double>() > 0.0 && j["cost_usd"].get<double>() > 0.0,
                     qPrintable(name));
            // a result built on a vendor's announced figures says so; one on shipped parts does not
            const bool announced = name == QStringLiteral("rubin-nvl144.json");
            QVERIFY2(j.contains("announced") == announced, qPrintable(name));
        }
        const Run rubin =
            choreoSim({QStringLiteral("run"), systems.filePath(QStringLiteral("rubin-nvl144.json"))});
        QVERIFY2(rubin.out.contains("announced           rubin's peak_tflops (fp64,"), rubin.out.constData());
        auto stepWith = [&](const QString& dims) {
            const Run r =
                choreoSim({QStringLiteral("run"), systems.filePath(QStringLiteral("tpu-v5p-pod.json")),
                           QStringLiteral("--json"), QStringLiteral("--set"),
                           QStringLiteral("cluster.network.topology.dims=") + dims});
            return r.exitCode == 0 ? Json::parse(r.out.toStdString())["step_time_s"].get<double>() : -1.0;
        };
        const double cube = stepWith(QStringLiteral("[4,4,4]")), ring = stepWith(QStringLiteral("[64,1,1]"));
        QVERIFY2(cube > 0.0 && ring > cube,
                 qPrintable(QStringLiteral("cube %1 s, ring %2 s").arg(cube).arg(ring)));
    }

    void torusOfOneLongAxisRuns() {
        // 64 TPU v5p as a ring ([64, 1, 1]): SimGrid's torus zone named the self-links of its two axes of 1
        // alike and aborted ("declared several times"). The ring now runs, at every fidelity that builds a
        // platform, and its longer hops give a slower step than the 4 x 4 x 4 cube's.
        auto stepOf = [](const QString& dims, const char* fidelity) {
            const Run r =
                choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--json"),
                           QStringLiteral("--fidelity"), QString::fromUtf8(fidelity), QStringLiteral("--set"),
                           QStringLiteral("cluster.pools[0].device=tpu-v5p"), QStringLiteral("--set"),
                           QStringLiteral("cluster.pools[0].count=64"), QStringLiteral("--set"),
                           QStringLiteral("cluster.pools[0].devices_per_node=4"), QStringLiteral("--set"),
                           QStringLiteral("workload.parallel.dp=4"), QStringLiteral("--set"),
                           QStringLiteral("workload.global_batch=64"), QStringLiteral("--set"),
                           QStringLiteral("cluster.network.topology.kind=torus-3d"), QStringLiteral("--set"),
                           QStringLiteral("cluster.network.topology.dims=") + dims});
            return r.exitCode == 0 ? Json::parse(r.out.toStdString())["step_time_s"].get<double>()
                                   : -r.exitCode;
        };
        const double cube = stepOf(QStringLiteral("[4,4,4]"), "flow");
        QVERIFY(cube > 0.0);
        for (const char* fidelity : {"flow", "packet"})
            for (const QString& ring : {QStringLiteral("[64,1,1]"), QStringLiteral("[1,1,64]")}) {
                const double step = stepOf(ring, fidelity);
                QVERIFY2(step > cube,
                         qPrintable(QStringLiteral("%1 at %2: %3 s (exit code if negative), cube %4 s")
                                        .arg(ring, QString::fromUtf8(fidelity))
                                        .arg(step)
                                        .arg(cube)));
            }
    }

    void fullyShardedLevelsAgreeAtScale() {
        // The default scenario grown to 16,384 H100 with ZeRO-3 (dp 1,024): a ring over 1,024 ranks takes
        // milliseconds of latency, as long as its bytes. The closed form once added the gather's and the
        // reduce-scatter's latencies per layer where the two streams overlap them: 6.48 s against the flow
        // level's 5.07 s (28 %). Now 5.08 s (2026-12-06).
        double times[2] = {0, 0};
        int i = 0;
        for (const char* fidelity : {"flow", "analytical"}) {
            const Run r = choreoSim({QStringLiteral("run"), defaultScenario(), QStringLiteral("--json"),
                                     QStringLiteral("--fidelity"), QString::fromUtf8(fidelity),
                                     QStringLiteral("--set"), QStringLiteral("cluster.pools[0].count=16384"),
                                     QStringLiteral("--set"), QStringLiteral("workload.parallel.dp=1024"),
                                     QStringLiteral("--set"), QStringLiteral("workload.global_batch=4096"),
                                     QStringLiteral("--set"), QStringLiteral("workload.parallel.zero=3")});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            times[i++] = Json::parse(r.out.toStdString())["step_time_s"].get<double>();
        }
        QVERIFY2(std::fabs(times[1] / times[0] - 1.0) < 0.02,
                 qPrintable(QStringLiteral("flow %1 s, analytical %2 s").arg(times[0]).arg(times[1])));
    }

    void validateBothLevelsAgree() {
        // --fidelity both scores the flow level and puts the closed form's prediction beside every row: on
        // the first held-out file (14 rows, 64 to 2,240 devices) the two were at most 2.5 % apart
        // (2026-12-06); issue 31 asks for 10 % on every row.
        const Json j = validateHeldOut(QStringLiteral("holdout-runs.csv"),
                                       {QStringLiteral("--fidelity"), QStringLiteral("both")});
        QVERIFY(!j.is_null());
        QCOMPARE(j["fidelity"].get<std::string>(), std::string("flow"));
        const auto& agreement = j["agreement"];
        QCOMPARE(agreement["n"].get<std::size_t>(), j["cases"].size());
        QCOMPARE(agreement["over_limit"].get<int>(), 0);
        double worst = 0.0;
        for (const auto& c : j["cases"]) {
            const double flow = c["predicted_step_time_s"].get<double>();
            const double closedForm = c["analytical_step_time_s"].get<double>();
            QCOMPARE(c["disagreement_pct"].get<double>(), (closedForm / flow - 1.0) * 100.0);
            worst = std::max(worst, std::abs(c["disagreement_pct"].get<double>()));
        }
        QCOMPARE(agreement["max_abs_pct"].get<double>(), worst);
        QVERIFY2(worst <= 10.0, qPrintable(QStringLiteral("levels %1 % apart").arg(worst)));
        // The comparison is the training files'.
        if (QFile::exists(QStringLiteral(CHOREO_TEST_INFERENCE_CSV))) {
            const Run serving =
                choreoSim({QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_INFERENCE_CSV),
                           QStringLiteral("--fidelity"), QStringLiteral("both")});
            QCOMPARE(serving.exitCode, 1);
            QVERIFY(serving.err.contains("--fidelity both applies to training validation files only"));
        }
    }

    void validateWritesTheScenariosItSimulates() {
        // --scenarios writes each row as the scenario validate simulates: `run` on the file predicts the
        // same step time, and says where the compute of its busiest stage goes.
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("cases"));
        const Run v = choreoSim({QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_HOLDOUT_CSV),
                                 QStringLiteral("--json"), QStringLiteral("--fidelity"),
                                 QStringLiteral("analytical"), QStringLiteral("--scenarios"), folder});
        QCOMPARE(v.exitCode, 0);
        const Json cases = Json::parse(v.out.toStdString())["cases"];
        QCOMPARE(QDir(folder).entryList({QStringLiteral("*.json")}).size(), static_cast<int>(cases.size()));
        for (const auto& c : cases) {
            const auto id = c["id"].get<std::string>();
            if (id != "H4" && id != "H9" && id != "H11")
                continue;
            const Run r = choreoSim(
                {QStringLiteral("run"), folder + "/" + QString::fromStdString(id) + ".json",
                 QStringLiteral("--json"), QStringLiteral("--fidelity"), QStringLiteral("analytical")});
            QCOMPARE(r.exitCode, 0);
            const Json j = Json::parse(r.out.toStdString());
            QCOMPARE(j["step_time_s"].get<double>(), c["predicted_step_time_s"].get<double>());
            const auto& split = j["compute_split_s"];
            const double parts = split["gemm"].get<double>() + split["attention"].get<double>() +
                                 split["memory_bound"].get<double>() + split["optimizer"].get<double>();
            QVERIFY(split["gemm"].get<double>() > 0 && split["attention"].get<double>() > 0 &&
                    split["memory_bound"].get<double>() > 0 && split["optimizer"].get<double>() > 0);
            if (id == "H9") // one stage, no pipeline: the split is the device's whole compute
                QVERIFY2(std::fabs(parts - j["breakdown_s"]["compute"].get<double>()) < 1e-3 * parts,
                         qPrintable(QStringLiteral("%1 against %2")
                                        .arg(parts)
                                        .arg(j["breakdown_s"]["compute"].get<double>())));
            if (id == "H11") { // pp 8: the busiest of the eight stages, and what it waits for
                QVERIFY(split["stage"].get<int>() >= 0 && split["stage"].get<int>() < 8);
                const Run text =
                    choreoSim({QStringLiteral("run"), folder + "/" + QString::fromStdString(id) + ".json",
                               QStringLiteral("--fidelity"), QStringLiteral("analytical")});
                QCOMPARE(text.exitCode, 0);
                // The printed waits are that stage's totals as simulated, from the same run's JSON.
                const int stage = split["stage"].get<int>();
                Json totals;
                for (const auto& st : j["timeline"]["stages"])
                    if (st["stage"].get<int>() == stage)
                        totals = st["totals_s"];
                QVERIFY(totals.is_object());
                const auto figure = [&](const char* kind) {
                    return QByteArray::number(totals[kind].get<double>(), 'f', 3);
                };
                const QByteArray expected =
                    "waiting by kind     tensor, context and expert collectives " + figure("tensor_comm") +
                    " s, data-parallel " + figure("data_comm") + ", pipeline transfers " +
                    figure("pipeline_comm") + ", bubble " + figure("bubble") + "  (pipeline stage " +
                    QByteArray::number(stage) + ", from its timeline)";
                QVERIFY2(text.out.contains(expected), (expected + "\n" + text.out).constData());
            }
        }
        const Run bad = choreoSim({QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_HOLDOUT_CSV),
                                   QStringLiteral("--scenarios")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.err.contains("--scenarios needs a folder"));
    }

    void validateVariesOneField() {
        // --vary simulates each row again at every value of a field the sources often leave unstated: the
        // scored prediction is the row's own, the row's own value is not simulated twice, the range covers
        // the variants that fit, and a measured step outside it says by how much.
        const QString csv = QStringLiteral(CHOREO_TEST_HOLDOUT_CSV);
        const QStringList common{QStringLiteral("validate"), csv, QStringLiteral("--json"),
                                 QStringLiteral("--fidelity"), QStringLiteral("analytical")};
        const Run plain = choreoSim(common);
        QStringList variedArgs =
            common + QStringList{QStringLiteral("--vary"), QStringLiteral("micro_batch=1,2")};
        QTemporaryDir dir;
        const QString chart = dir.filePath(QStringLiteral("ranges.svg"));
#ifdef CHOREO_HAVE_REPORT // the chart draws each row's range as a bar, named once in the legend
        variedArgs << QStringLiteral("--chart") << chart;
#endif
        const Run varied = choreoSim(variedArgs);
        QCOMPARE(plain.exitCode, 0);
        QCOMPARE(varied.exitCode, 0);
        const Json p = Json::parse(plain.out.toStdString());
        const Json v = Json::parse(varied.out.toStdString());
        for (const char* key : {"median_abs_error_pct", "max_abs_error_pct"})
            QCOMPARE(v["summary"][key].get<double>(), p["summary"][key].get<double>());
        QCOMPARE(v["variation"]["field"].get<std::string>(), std::string("micro_batch"));
        QCOMPARE(v["cases"].size(), p["cases"].size());
        int inside = 0, own = 0, moved = 0;
        for (std::size_t i = 0; i < v["cases"].size(); ++i) {
            const Json& c = v["cases"][i];
            QCOMPARE(c["predicted_step_time_s"].get<double>(),
                     p["cases"][i]["predicted_step_time_s"].get<double>());
            QCOMPARE(c["variants"].size(), std::size_t(2));
            const double predicted = c["predicted_step_time_s"].get<double>();
            double lo = predicted, hi = predicted;
            for (const auto& variant : c["variants"]) {
                if (!variant.contains("predicted_step_time_s")) {
                    QVERIFY(!variant["skipped"].get<std::string>().empty());
                    continue;
                }
                const double t = variant["predicted_step_time_s"].get<double>();
                if (variant["own"].get<bool>()) {
                    QCOMPARE(t, predicted);
                    ++own;
                } else if (std::fabs(t - predicted) > 1e-3 * predicted) {
                    ++moved;
                }
                if (variant["fits"].get<bool>()) {
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                }
            }
            QCOMPARE(c["range_s"][0].get<double>(), lo);
            QCOMPARE(c["range_s"][1].get<double>(), hi);
            const double measured = c["measured_step_time_s"].get<double>();
            const double outside = c["outside_pct"].get<double>();
            if (measured >= lo && measured <= hi) {
                QCOMPARE(outside, 0.0);
                ++inside;
            } else {
                const double edge = measured < lo ? lo : hi;
                QVERIFY(std::fabs(outside - (edge - measured) / measured * 100.0) < 1e-9);
            }
        }
        QCOMPARE(v["summary"]["inside_range"].get<int>(), inside);
#ifdef CHOREO_HAVE_REPORT
        QFile svg(chart);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("range over micro_batch 1, 2"));
#endif
        QVERIFY(own >= 1);   // rows written with micro-batch 1 or 2
        QVERIFY(moved >= 1); // and another micro-batch size changes the prediction
        // The table names the field and marks the row's own value.
        const Run text = choreoSim({QStringLiteral("validate"), csv, QStringLiteral("--fidelity"),
                                    QStringLiteral("analytical"), QStringLiteral("--vary"),
                                    QStringLiteral("recompute=none,full")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("sensitivity to recompute: Each row again with recompute = none, full"));
        QVERIFY(text.out.contains("measured inside the range on "));
        // Malformed variations are usage errors that say what is wrong.
        const std::pair<const char*, const char*> bad[] = {
            {"micro_batch=0", "--vary: micro_batch: \"0\" is not a whole number from 1 to 999999999"},
            {"micro_batch=1,02", "--vary: micro_batch: \"02\" is not a whole number"},
            {"tp=1,2", "--vary: unknown field \"tp\" (fields: micro_batch, vp, recompute)"},
            {"micro_batch=1,,2", "--vary: micro_batch: empty value"},
            {"vp=2,2", "--vary: vp: \"2\" is listed twice"},
            {"recompute=partial", "--vary: recompute: \"partial\" is not none, selective or full"},
            {"micro_batch", "--vary: expected FIELD=V1,V2,..."},
        };
        for (const auto& [arg, message] : bad) {
            const Run r = choreoSim(
                {QStringLiteral("validate"), csv, QStringLiteral("--vary"), QString::fromUtf8(arg)});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(message), r.err.constData());
        }
    }

    void validateVaryRangeRules() {
        // The range's rules on rows built for them (closed form): a value that does not fit in memory stays
        // out of the range, the row's own prediction is always in it, every value is simulated with the
        // row's own fallback (the sharded optimizer), and the summary's distance is over the rows outside.
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("rows.csv"));
        {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly));
            const QByteArray header =
                "id,source,reliability,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,"
                "accelerator,n_accel,accel_per_node,tp,pp,vp,dp,cp,ep,sp,zero,micro_batch,global_batch,"
                "recompute,precision,finetune,step_time_s,basis\n";
            // Llama 3 8B on 8 H100: tensor-parallel 8 (fits at micro-batch 1, not at 32), or data-parallel 8
            // without ZeRO (needs the sharded optimizer).
            const QByteArray tp8 =
                ",\"test 2024\",A,Llama-3-8B,32,4096,32,8,14336,1,128256,8192,h100-sxm,8,8,8,1,1,"
                "1,1,1,1,0,1,32,none,bf16,,";
            const QByteArray dp8 =
                ",\"test 2024\",A,Llama-3-8B,32,4096,32,8,14336,1,128256,2048,h100-sxm,8,8,1,1,1,"
                "8,1,1,0,0,1,256,none,bf16,,";
            f.write(header + "fast" + tp8 + "0.001,measured\n" + "slow" + tp8 + "1000000,measured\n" +
                    "shard" + dp8 + "0.001,measured\n");
        }
        const Run r = choreoSim({QStringLiteral("validate"), csv, QStringLiteral("--json"),
                                 QStringLiteral("--fidelity"), QStringLiteral("analytical"),
                                 QStringLiteral("--vary"), QStringLiteral("micro_batch=1,32")});
        QCOMPARE(r.exitCode, 0);
        const Json j = Json::parse(r.out.toStdString());
        QCOMPARE(j["cases"].size(), std::size_t(3));
        std::vector<double> distances;
        for (const auto& c : j["cases"]) {
            const auto id = c["id"].get<std::string>();
            const double own = c["predicted_step_time_s"].get<double>();
            const auto& variants = c["variants"];
            QCOMPARE(variants.size(), std::size_t(2));
            QVERIFY(variants[0]["own"].get<bool>());
            QCOMPARE(variants[0]["predicted_step_time_s"].get<double>(), own);
            QVERIFY(!variants[1]["own"].get<bool>());
            if (id != "shard") {
                // 32 sequences of 8,192 tokens at once do not fit: out of the range, which is the row's own.
                QVERIFY(c["fits_in_memory"].get<bool>());
                QVERIFY(!variants[1]["fits"].get<bool>());
                QCOMPARE(c["range_s"][0].get<double>(), own);
                QCOMPARE(c["range_s"][1].get<double>(), own);
                QVERIFY(variants[1]["assumption"].get<std::string>().empty());
            } else {
                // Both values with the row's sharded optimizer, said so.
                QCOMPARE(c["assumption"].get<std::string>(), std::string("zero 1, distributed optimizer"));
                for (const auto& v : variants)
                    QCOMPARE(v["assumption"].get<std::string>(),
                             std::string("zero 1, distributed optimizer"));
            }
            const double measured = c["measured_step_time_s"].get<double>();
            const double outside = c["outside_pct"].get<double>();
            const double edge = measured < c["range_s"][0].get<double>() ? c["range_s"][0].get<double>()
                                                                         : c["range_s"][1].get<double>();
            QVERIFY(std::fabs(outside - (edge - measured) / measured * 100.0) < 1e-6 * std::fabs(outside));
            QVERIFY(id == "slow" ? outside < 0 && outside > -100.0 : outside > 0);
            distances.push_back(std::fabs(outside));
        }
        std::sort(distances.begin(), distances.end());
        QCOMPARE(j["summary"]["inside_range"].get<int>(), 0);
        QCOMPARE(j["summary"]["median_abs_outside_pct"].get<double>(), distances[1]);
        QCOMPARE(j["summary"]["max_abs_outside_pct"].get<double>(), distances[2]);
    }

    void validateGroupsAndChart() {
        if (!QFile::exists(QStringLiteral(CHOREO_TEST_VALIDATION_CSV)))
            QSKIP("shared/validation/published-runs.csv is not beside the checkout");
        QTemporaryDir dir;
        const QString chart = dir.filePath(QStringLiteral("validation.svg"));
        QStringList args{QStringLiteral("validate"),    QStringLiteral(CHOREO_TEST_VALIDATION_CSV),
                         QStringLiteral("--json"),      QStringLiteral("--group-by"),
                         QStringLiteral("accelerator"), QStringLiteral("--fidelity"),
                         QStringLiteral("analytical")};
        args << joinPublishedFrameworks();
#ifdef CHOREO_HAVE_REPORT // the chart needs Qt Charts, built only with the GUI
        args << QStringLiteral("--chart") << chart;
#endif
        const Run r = choreoSim(args);
        QCOMPARE(r.exitCode, 0);
        const Json j = Json::parse(r.out.toStdString());
        int n = 0;
        for (const auto& g : j["groups"]) {
            n += g["n"].get<int>();
            QVERIFY(g["max_abs_error_pct"].get<double>() >= g["median_abs_error_pct"].get<double>());
        }
        QCOMPARE(n, j["summary"]["n"].get<int>());
        QCOMPARE(j["groups"].size(), std::size_t(2)); // a100-sxm-80gb and h100-sxm
#ifdef CHOREO_HAVE_REPORT
        QFile svg(chart);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("measured step time"));
#endif
        const Run bad = choreoSim({QStringLiteral("validate"), QStringLiteral(CHOREO_TEST_VALIDATION_CSV),
                                   QStringLiteral("--group-by"), QStringLiteral("vendor")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.err.contains("--group-by: unknown grouping \"vendor\""));
    }
};

CHOREO_SHARDED_TEST_MAIN(TestCli)
#include "tst_cli.moc"
