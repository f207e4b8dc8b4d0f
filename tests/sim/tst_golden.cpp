// Golden results: each shipped scenario's headline figures and every validation row's predicted step time
// and memory, at analytical fidelity (and flow for the shared file), as `choreo-sim` prints them, against
// tests/golden/results.json within its stated relative tolerance. A physics change shows in review as a diff
// of that file: regenerate it with `scripts/update-golden.sh` (docs/testing.md).

#include "models/jsonreader.h"
#include "models/scenarioio.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <cstdlib>

#include "tests/shippedscenarios.h"

using Json = choreo::models::Json;

namespace {

constexpr double kRelativeTolerance = 1e-6; // Release, Debug and sanitizer builds agree to this

// The figures a shipped scenario's golden entry holds.
constexpr const char* kScenarioFigures[] = {"step_time_s", "tokens_per_s",     "memory_per_device_GB",
                                            "energy_kWh",  "average_power_kW", "cost_usd"};
// And a serving scenario's ("serving" in its result).
constexpr const char* kServingFigures[] = {
    "output_tokens_per_s",    "ttft_p99_s",      "tpot_p99_s", "max_rate_within_slo_rps",
    "usd_per_million_tokens", "joules_per_token"};

Json choreoSimJson(const QStringList& args) {
    QProcess p;
    // CHOREO_GOLDEN_SIM runs another build's choreo-sim (the tree before a change, to compare two builds).
    p.setProgram(qEnvironmentVariable("CHOREO_GOLDEN_SIM", QStringLiteral(CHOREO_SIM_EXE)));
    p.setArguments(QStringList{} << args << QStringLiteral("--json") << QStringLiteral("--assets")
                                 << QStringLiteral(CHOREO_TEST_ASSETS));
    p.start();
    if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("choreo-sim %s: %s", qPrintable(args.join(u' ')), p.readAllStandardError().constData());
        return Json();
    }
    return Json::parse(p.readAllStandardOutput().toStdString());
}

// The framework of each published run (validate --join).
const QString kPublishedFrameworks = QFileInfo(QStringLiteral(CHOREO_TEST_HOLDOUT_CSV))
                                         .dir()
                                         .filePath(QStringLiteral("published-runs-frameworks.csv"));

QStringList validationFiles() {
    QStringList files;
    if (QFile::exists(QStringLiteral(CHOREO_TEST_VALIDATION_CSV)))
        files << QStringLiteral(CHOREO_TEST_VALIDATION_CSV);
    const QDir holdouts = QFileInfo(QStringLiteral(CHOREO_TEST_HOLDOUT_CSV)).dir();
    for (const char* name :
         {"holdout-runs.csv", "holdout-2-runs.csv", "holdout-3-runs.csv", "holdout-4-runs.csv"})
        files << holdouts.filePath(QString::fromLatin1(name));
    return files;
}

// What the tree computes now, in the golden file's shape.
Json currentResults() {
    Json scenarios = Json::object();
    const QDir shipped(QStringLiteral(CHOREO_TEST_ASSETS "/scenarios"));
    for (const QString& name : choreo::testing::shippedScenarios(shipped)) {
        for (const char* fidelity : {"analytical", "flow"}) {
            const Json result = choreoSimJson({QStringLiteral("run"), shipped.filePath(name),
                                               QStringLiteral("--fidelity"), QString::fromLatin1(fidelity)});
            Json figures = Json::object();
            for (const char* figure : kScenarioFigures)
                figures[figure] = result.is_object() ? result.value(figure, Json()) : Json();
            if (result.is_object() && result.contains("serving"))
                for (const char* figure : kServingFigures)
                    figures[std::string("serving.") + figure] = result["serving"].value(figure, Json());
            scenarios[name.toStdString() + "@" + fidelity] = figures;
        }
    }
    Json validation = Json::object();
    for (const QString& file : validationFiles()) {
        // At flow fidelity only the shared file: the held-out files' large clusters take minutes there.
        const bool shared = QFileInfo(file).fileName() == QStringLiteral("published-runs.csv");
        for (const char* fidelity : {"analytical", "flow"}) {
            if (!shared && std::string(fidelity) == "flow")
                continue;
            QStringList arguments{QStringLiteral("validate"), file, QStringLiteral("--fidelity"),
                                  QString::fromLatin1(fidelity)};
            if (shared) // the published file's runs name their framework in a file of ours
                arguments << QStringLiteral("--join") << kPublishedFrameworks;
            const Json report = choreoSimJson(arguments);
            Json rows = Json::object();
            if (report.is_object())
                for (const auto& row : report["cases"])
                    rows[row["id"].get<std::string>()] = {
                        {"step_time_s", row["predicted_step_time_s"]},
                        {"memory_per_device_GB", row["memory_per_device_GB"]}};
            validation[QFileInfo(file).fileName().toStdString() + "@" + fidelity] = rows;
        }
    }
    return {{"relative_tolerance", kRelativeTolerance},
            {"regenerate", "scripts/update-golden.sh"},
            {"scenarios", scenarios},
            {"validation", validation}};
}

bool close(const Json& golden, const Json& now) {
    if (!golden.is_number() || !now.is_number())
        return golden == now;
    const double a = golden.get<double>(), b = now.get<double>();
    return std::abs(a - b) <= kRelativeTolerance * std::max(std::abs(a), std::abs(b)) + 1e-12;
}

// Every figure that differs, or is in one side only, as "where: golden G, now N" lines.
void compare(const Json& golden, const Json& now, const std::string& where, QStringList& differences) {
    if (golden.is_object() && now.is_object()) {
        for (const auto& [key, value] : golden.items())
            compare(value, now.contains(key) ? now[key] : Json("(absent)"), where + "/" + key, differences);
        for (const auto& [key, value] : now.items())
            if (!golden.contains(key))
                differences << QString::fromStdString(where + "/" + key + ": not in the golden file");
        return;
    }
    if (!close(golden, now))
        differences << QString::fromStdString(where + ": golden " + golden.dump() + ", now " + now.dump());
}

} // namespace

class TestGolden : public QObject {
    Q_OBJECT

private slots:
    void headlineFiguresAreUnchanged() {
        const Json now = currentResults();
        const QString path = QStringLiteral(CHOREO_GOLDEN_FILE);
        std::string text, error;
        if (qEnvironmentVariableIsSet("CHOREO_GOLDEN_WRITE")) {
            QVERIFY2(choreo::models::writeTextFileAtomically(path.toStdString(), now.dump(2) + "\n", error),
                     error.c_str());
            qInfo("wrote %s", qPrintable(path));
            return;
        }
        QVERIFY2(choreo::models::readTextFile(path.toStdString(), text, error), error.c_str());
        const Json golden = Json::parse(text);
        QCOMPARE(golden["relative_tolerance"].get<double>(), kRelativeTolerance);
        QVERIFY(now["scenarios"].size() >= 4 && now["validation"].size() >= 4);
        QStringList differences;
        compare(golden["scenarios"], now["scenarios"], "scenarios", differences);
        compare(golden["validation"], now["validation"], "validation", differences);
        QVERIFY2(
            differences.isEmpty(),
            qPrintable(QString::number(differences.size()) +
                       " figures moved (if on purpose, run scripts/update-golden.sh and commit the diff):\n" +
                       differences.mid(0, 40).join(u'\n')));
    }
};

QTEST_GUILESS_MAIN(TestGolden)
#include "tst_golden.moc"
