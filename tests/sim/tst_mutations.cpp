// Hostile values in valid JSON (issue 33): seeded random mutations of every shipped scenario, each run by
// `choreo-sim run` at the closed form and at flow fidelity (which builds the SimGrid platform). Every run
// ends cleanly: exit 0 with finite figures, 2 (invalid input, naming the field) or 3 (a simulation that
// cannot run, saying why). A signal, a hang, an internal error (5) or a non-finite figure fails the test
// with the mutation that caused it.
//
// CHOREO_MUTATIONS (default 120) and CHOREO_MUTATION_SEED (default 1) set how many and which; the same
// seed gives the same mutations. docs/reliability.md has the longer runs.

#include "models/fieldtable.h"
#include "models/jsonreader.h"
#include "models/scenarioio.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "tests/shippedscenarios.h"

using choreo::models::Json;

namespace {

// One leaf of a document (or an array, replaced whole) and where it is.
struct Leaf {
    Json::json_pointer where; // "/cluster/pools/0/count"
};

void collectLeaves(const Json& node, const Json::json_pointer& where, std::vector<Leaf>& out) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.items())
            collectLeaves(value, where / key, out);
        return;
    }
    out.push_back({where});
    if (node.is_array())
        for (std::size_t i = 0; i < node.size(); ++i)
            collectLeaves(node[i], where / i, out);
}

// What a planner pastes by mistake, or a colleague's file holds: zeros, signs, extremes of every width,
// subnormals, text where numbers go, and degenerate arrays.
std::vector<Json> hostileValues() {
    return {0,
            -1,
            1,
            2,
            3,
            7,
            64,
            1000,
            65536,
            std::int64_t{1} << 31,
            std::int64_t{1} << 53,
            std::int64_t{1} << 62,
            std::numeric_limits<std::int64_t>::max(),
            1e-300,
            5e-324,
            1e300,
            1e-9,
            0.5,
            -0.5,
            1e9,
            "",
            std::string(5000, 'x'),
            "none",
            true,
            false,
            nullptr,
            Json::array(),
            Json::object(),
            Json::array({64, 1, 1}),
            Json::array({1, 1, 1}),
            Json::array({0, 0, 0}),
            Json::array({std::int64_t{1} << 40, 1, 1})};
}

// A value near `original` that a planner might mean: a number scaled by 1/8 to 8 or moved by one (an
// integer stays one), so that mutations reach the simulation and not only the reader's checks.
Json nearby(const Json& original, std::mt19937_64& random) {
    static const double factors[] = {0.125, 0.5, 2.0, 4.0, 8.0};
    const bool step = random() % 3 == 0;
    const double factor = factors[random() % std::size(factors)];
    if (original.is_number_integer()) {
        const auto n = original.get<std::int64_t>();
        return step ? n + (random() % 2 ? 1 : -1)
                    : static_cast<std::int64_t>(std::llround(static_cast<double>(n) * factor));
    }
    const double x = original.get<double>();
    return step ? x + (random() % 2 ? 1.0 : -1.0) : x * factor;
}

// A field of the field table (outside the workload's stages, whose place in the array varies), or the
// torus's dims (an array the table leaves to its reader), as the place a mutation adds it to the file, and
// its value: hostile, or half the time one of its choices (a topology kind, an engine, a precision).
std::pair<Json::json_pointer, Json> tableFieldValue(std::mt19937_64& random,
                                                    const std::vector<Json>& values) {
    std::vector<const choreo::models::FieldSpec*> fields;
    for (const auto& field : choreo::models::scenarioFields())
        if (field.path.find('[') == std::string::npos)
            fields.push_back(&field);
    const std::size_t pick = random() % (fields.size() + 1);
    const std::string path = pick < fields.size() ? fields[pick]->path : "cluster.network.topology.dims";
    std::string pointer = "/" + path;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    if (pick < fields.size() && !fields[pick]->choices.empty() && random() % 2)
        return {Json::json_pointer(pointer),
                fields[pick]->choices[random() % fields[pick]->choices.size()].name};
    return {Json::json_pointer(pointer), values[random() % values.size()]};
}

// The figures a result leaves null when they do not exist (models/servingresult.cpp): a price the catalog
// lacks, an SLO not set, no rate within the SLOs, no number of devices that reaches the target.
bool mayBeNull(const std::string& key) {
    static const std::set<std::string> optional{"usd_per_million_tokens_buy",
                                                "usd_per_million_tokens_rent",
                                                "max_rate_within_slo_rps",
                                                "ttft_slo_s",
                                                "tpot_slo_s",
                                                "devices_for_target",
                                                "replicas_for_target"};
    return optional.count(key) > 0;
}

// The first non-finite number (JSON null) in `node` outside mayBeNull's keys, as its path; empty if none.
std::string firstNull(const Json& node, const std::string& where) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.items()) {
            if (value.is_null() && !mayBeNull(key))
                return where + "." + key;
            if (auto found = firstNull(value, where + "." + key); !found.empty())
                return found;
        }
    } else if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i)
            if (auto found = firstNull(node[i], where + "[" + std::to_string(i) + "]"); !found.empty())
                return found;
    }
    return {};
}

struct Outcome {
    int exitCode = -1; // -1: killed by a signal or past the time limit
    QByteArray out, err;
};

Outcome runScenario(const QString& file, const char* fidelity) {
    QProcess p;
    p.setProgram(QStringLiteral(CHOREO_SIM_EXE));
    p.setArguments({QStringLiteral("run"), file, QStringLiteral("--json"), QStringLiteral("--fidelity"),
                    QString::fromUtf8(fidelity), QStringLiteral("--assets"),
                    QStringLiteral(CHOREO_TEST_ASSETS)});
    p.start();
    if (!p.waitForFinished(180000)) {
        p.kill();
        p.waitForFinished();
        return {-1, {}, "ran past 180 s and was killed"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// What is wrong with an outcome; empty when it ended cleanly.
QString problemWith(const Outcome& o) {
    if (o.exitCode == 2 || o.exitCode == 3)
        return o.err.trimmed().isEmpty() ? QStringLiteral("exit %1 without a message").arg(o.exitCode)
                                         : QString();
    if (o.exitCode != 0)
        return QStringLiteral("exit %1: %2").arg(o.exitCode).arg(QString::fromUtf8(o.err.left(600)));
    try {
        const Json result = Json::parse(o.out.toStdString());
        if (const auto at = firstNull(result, "result"); !at.empty())
            return QStringLiteral("exit 0 with a non-finite figure at %1").arg(QString::fromStdString(at));
    } catch (const std::exception& e) {
        return QStringLiteral("exit 0 with unreadable JSON: %1").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

std::int64_t fromEnvironment(const char* name, std::int64_t fallback) {
    const QByteArray text = qgetenv(name);
    bool ok = false;
    const auto value = text.toLongLong(&ok);
    return ok && value >= 0 ? value : fallback;
}

} // namespace

class TestMutations : public QObject {
    Q_OBJECT
private slots:
    void hostileValuesEndCleanly() {
        const QDir scenarios(QStringLiteral(CHOREO_TEST_ASSETS "/scenarios"));
        std::vector<std::pair<QString, Json>> shipped;
        for (const QString& name : choreo::testing::shippedScenarios(scenarios)) {
            std::string text, error;
            QVERIFY2(choreo::models::readTextFile(scenarios.filePath(name).toStdString(), text, error),
                     error.c_str());
            shipped.emplace_back(name, Json::parse(text));
        }
        QVERIFY(!shipped.empty());
        const auto values = hostileValues();
        const auto mutations = fromEnvironment("CHOREO_MUTATIONS", 120);
        std::mt19937_64 random(static_cast<std::uint64_t>(fromEnvironment("CHOREO_MUTATION_SEED", 1)));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::map<int, int> exits;
        for (std::int64_t m = 0; m < mutations; ++m) {
            const auto& [name, original] = shipped[random() % shipped.size()];
            std::vector<Leaf> leaves;
            collectLeaves(original, Json::json_pointer(), leaves);
            // One to three leaves, each a hostile value or (numbers, half the time) a nearby one.
            Json mutated = original;
            QString what;
            // A quarter of the changes set a field of the table, which the file may not have held.
            for (int k = 1 + static_cast<int>(random() % 3); k > 0; --k) {
                Json::json_pointer where;
                Json value;
                if (random() % 4 == 0) {
                    std::tie(where, value) = tableFieldValue(random, values);
                } else {
                    const Leaf& leaf = leaves[random() % leaves.size()];
                    const Json& before = original[leaf.where];
                    where = leaf.where;
                    value = before.is_number() && random() % 2 ? nearby(before, random)
                                                               : values[random() % values.size()];
                }
                try {
                    mutated[where] = value;
                } catch (const Json::exception&) {
                    continue; // an earlier mutation replaced what held this place
                }
                what += QStringLiteral(" %1 = %2;")
                            .arg(QString::fromStdString(where.to_string()),
                                 QString::fromStdString(value.dump().substr(0, 60)));
            }
            const QString file = dir.filePath(QStringLiteral("mutation-%1.json").arg(m));
            std::string error;
            QVERIFY2(choreo::models::writeTextFileAtomically(file.toStdString(), mutated.dump(), error),
                     error.c_str());
            for (const char* fidelity : {"analytical", "flow"}) {
                const Outcome o = runScenario(file, fidelity);
                exits[o.exitCode]++;
                const QString problem = problemWith(o);
                QVERIFY2(problem.isEmpty(),
                         qPrintable(QStringLiteral("mutation %1 (seed %2): %3 with%4 at %5: %6")
                                        .arg(m)
                                        .arg(fromEnvironment("CHOREO_MUTATION_SEED", 1))
                                        .arg(name, what, QString::fromUtf8(fidelity), problem)));
            }
        }
        // Mutations that only ever meet the reader's checks test little: about one run in eleven reached a
        // result with the seeds of docs/reliability.md; fewer than one in forty means the mutations or the
        // program changed.
        QVERIFY2(exits[0] * 40 >= 2 * mutations,
                 qPrintable(
                     QStringLiteral("only %1 of %2 runs reached a result").arg(exits[0]).arg(2 * mutations)));
        QString counts;
        for (const auto& [code, n] : exits)
            counts += QStringLiteral(" exit %1: %2;").arg(code).arg(n);
        qInfo("%lld mutations, %s", static_cast<long long>(mutations), qPrintable(counts));
    }
};

QTEST_GUILESS_MAIN(TestMutations)
#include "tst_mutations.moc"
