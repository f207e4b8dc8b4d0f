// The field table (models/fieldtable.h): every field reads, writes and checks its range from its one entry,
// and a field added there (workload.model.tied_embeddings) reaches files, the validation CSV and the physics.
#include "models/fieldtable.h"
#include "models/transformer.h"
#include "models/validationcase.h"

#include <QTest>

#include <set>

#include "stagetesting.h"

using namespace choreo::models;
using choreo::test::hasError;
using choreo::test::kAssets;
using choreo::test::resolveOrFail;
using choreo::test::resolveWith;

namespace {

// A value of `field` other than what `s` holds, inside the field's range.
FieldValue anotherValue(const FieldSpec& field, const Scenario& s) {
    const FieldValue now = field.get(s);
    switch (field.kind) {
    case FieldKind::Count: {
        if (!std::holds_alternative<std::int64_t>(now)) // an absent count: its default applies
            return static_cast<std::int64_t>(field.minimum) + 1;
        const auto n = std::get<std::int64_t>(now);
        return n < static_cast<std::int64_t>(field.maximum) ? n + 1 : n - 1;
    }
    case FieldKind::Number:
    case FieldKind::OptionalNumber: {
        const double d = std::holds_alternative<double>(now) ? std::get<double>(now) : field.maximum / 2;
        return d * 0.5 > field.minimum ? d * 0.5 : (d + field.maximum) / 2;
    }
    case FieldKind::Flag:
        return !std::get<bool>(now);
    case FieldKind::Text: // an absent text (the scale-up fabric): the catalog's applies
        return std::holds_alternative<std::string>(now) ? std::get<std::string>(now) + " edited" : "edited";
    case FieldKind::Choice:
        for (const auto& c : field.choices)
            if (FieldValue{c.name} != now)
                return c.name;
    }
    return now;
}

// Mixtral with a data stage (on the host CPUs) and an evaluation: every table field applies.
Scenario moeDefault() {
    Diagnostics errors;
    auto s = loadScenarioFile(kAssets / "scenarios" / "mixtral-8x7b.json", errors);
    if (!s)
        qFatal("%s", joinDiagnostics(errors).c_str());
    s->workload.data.emplace();
    s->workload.data->stage_index = 0;
    s->workload.eval.emplace();
    s->workload.eval->stage_index = 1;
    return *s;
}

} // namespace

class TestFieldTable : public QObject {
    Q_OBJECT
private slots:
    void pathsAreUniqueAndGrouped() {
        std::set<std::string> paths;
        for (const auto& f : scenarioFields()) {
            QVERIFY2(paths.insert(f.path).second, f.path.c_str());
            QVERIFY2(!f.group.empty() && !f.label.empty(), f.path.c_str());
            QVERIFY2(f.get && f.set, f.path.c_str());
            QCOMPARE(findField(f.path), &f);
        }
        QVERIFY(!findField("workload.model.nonsense"));
    }

    // Each field, changed alone, survives a save and a load: the writer and the reader agree on every entry.
    void everyFieldRoundTrips() {
        const Scenario base = moeDefault();
        for (const auto& f : scenarioFields()) {
            // A serving workload needs a serve stage and drops the training fields; the serve scenario in
            // tests/golden round-trips one.
            if (f.path == "workload.kind")
                continue;
            Scenario s = base;
            f.set(s, anotherValue(f, s));
            QVERIFY2(!(s == base), f.path.c_str());
            Diagnostics errors;
            const auto again = parseScenario(serializeScenario(s), errors);
            QVERIFY2(again, (f.path + ": " + joinDiagnostics(errors)).c_str());
            QVERIFY2(f.get(*again) == f.get(s), f.path.c_str());
            QVERIFY2(*again == s, f.path.c_str());
        }
    }

    // Past its maximum, every bounded field is refused by path with the bound; nothing is clamped.
    void boundsAreRefusedByPath() {
        for (const auto& f : scenarioFields()) {
            if (f.maximum <= 0.0 || (f.kind != FieldKind::Count && f.kind != FieldKind::Number))
                continue;
            Json doc = Json::parse(serializeScenario(moeDefault()));
            std::string error;
            const auto over = parseFieldOverride(f.path + "=" + std::to_string(f.maximum * 10), error);
            QVERIFY(over && applyFieldOverride(doc, *over, error));
            Diagnostics errors;
            QVERIFY2(!parseScenario(doc.dump(), errors), f.path.c_str());
            // A stage's fields are named by the stage's place in the file; the alias names them by kind.
            QVERIFY2(hasError(withStageAliases(errors, moeDefault()), f.path, "must be at most"),
                     joinDiagnostics(errors).c_str());
        }
    }

    // The stages' fields: read from the stage wherever it sits, named in messages by its place in the file,
    // set by --set under its kind, and marked in the desktop through withStageAliases.
    void stageFieldsReadWhereTheStageSits() {
        Json doc = Json::parse(serializeScenario(moeDefault()));
        std::string error;
        const auto set = parseFieldOverride("workload.stages[data].image_px=336", error);
        QVERIFY2(set && applyFieldOverride(doc, *set, error), error.c_str());
        Diagnostics errors;
        auto s = parseScenario(doc.dump(), errors);
        QVERIFY2(s, joinDiagnostics(errors).c_str());
        QCOMPARE(s->workload.data->image_px, 336);
        QCOMPARE(s->workload.data->prefetch_batches, 2); // the table's default
        QVERIFY(!s->workload.data->text_tokens_per_sample);
        doc["workload"]["stages"][0]["items_per_sample"] = 1e300;
        doc["workload"]["stages"][1]["every_steps"] = 0;
        QVERIFY(!parseScenario(doc.dump(), errors));
        QVERIFY2(hasError(errors, "workload.stages[0].items_per_sample", "must be at most"),
                 joinDiagnostics(errors).c_str());
        QVERIFY2(hasError(errors, "workload.stages[1].every_steps", "must be at least 1"),
                 joinDiagnostics(errors).c_str());
        const Diagnostics aliased = withStageAliases(errors, *s);
        QVERIFY(hasError(aliased, "workload.stages[data].items_per_sample", "must be at most"));
        QVERIFY(hasError(aliased, "workload.stages[eval].every_steps", "must be at least 1"));
        // A workload without the stage neither reads nor writes its fields.
        Scenario plain = moeDefault();
        plain.workload.data.reset();
        const FieldSpec* modality = findField("workload.stages[data].modality");
        QVERIFY(modality && !modality->appliesTo(plain));
        QVERIFY(std::holds_alternative<std::monostate>(modality->get(plain)));
        QVERIFY(serializeScenario(plain).find("modality") == std::string::npos);
    }

    void checkValueNamesTheProblem() {
        const FieldSpec* pue = findField("costs.pue");
        QVERIFY(pue);
        QCOMPARE(checkFieldValue(*pue, 0.5), std::string("must be at least 1, got 0.5"));
        QCOMPARE(checkFieldValue(*pue, 1.2), std::string());
        const FieldSpec* recompute = findField("workload.recompute");
        QCOMPARE(checkFieldValue(*recompute, std::string("always")),
                 std::string("unknown recompute \"always\" (known: none, selective, full, selective-ops)"));
        std::string error;
        QVERIFY(!parseFieldCell(*findField("workload.parallel.tp"), "eight", error));
        QCOMPARE(error, std::string("expected an integer, got \"eight\""));
    }

    // The new field: Llama 3.2's published parameter counts come out only with the output layer tied.
    void tiedEmbeddingsCountTheMatrixOnce() {
        ModelShape m;
        m.layers = 16, m.hidden = 2048, m.heads = 32, m.kv_heads = 8, m.ffn_hidden = 8192, m.ffn_gated = true,
        m.vocab = 128256, m.seq_len = 8192;
        m.tied_embeddings = true;
        const double tied = countParameters(m).total();
        QVERIFY2(std::abs(tied / 1.2358e9 - 1.0) < 0.001, std::to_string(tied).c_str()); // 1.24 B (card)
        m.tied_embeddings = false;
        QCOMPARE(countParameters(m).total() - tied, 128256.0 * 2048.0);
        // FLOPs are unchanged: the tied output layer still runs its GEMM.
        QCOMPARE(countParameters(m).active(), [&] {
            ModelShape t = m;
            t.tied_embeddings = true;
            return countParameters(t).active();
        }());
    }

    void tiedEmbeddingsShrinkWhatADeviceHolds() {
        const auto file = kAssets / "scenarios" / "default.json";
        const auto untied = resolveOrFail(file);
        const auto tied =
            resolveOrFail(file, {"workload.model.tied_embeddings=true", "workload.parallel.pp=1",
                                 "workload.parallel.dp=32", "workload.parallel.zero=3"});
        const auto untiedSamePlan = resolveOrFail(
            file, {"workload.parallel.pp=1", "workload.parallel.dp=32", "workload.parallel.zero=3"});
        QVERIFY(tied.memory.total() < untiedSamePlan.memory.total());
        QVERIFY(untied.memory.total() > 0);
        Diagnostics errors;
        QVERIFY(
            !resolveWith(file, {"workload.model.tied_embeddings=true", "workload.parallel.pp=4"}, errors));
        QVERIFY2(hasError(errors, "workload.model.tied_embeddings", "not modelled yet"),
                 joinDiagnostics(errors).c_str());
    }

    void tiedEmbeddingsComeFromTheValidationCsv() {
        const std::string header = "id,model,layers,hidden,heads,kv_heads,ffn_hidden,ffn_gated,vocab,seq_len,"
                                   "accelerator,n_accel,accel_per_node,tp,pp,dp,micro_batch,global_batch,"
                                   "recompute,precision,step_time_s,tied_embeddings\n";
        const std::string row =
            "1,Llama 3.2 1B,16,2048,32,8,8192,1,128256,8192,h100-sxm,8,8,1,1,8,4,256,none,"
            "bf16,1.0,1\n";
        Diagnostics errors;
        const auto cases = parseValidationCsv(header + row, errors);
        QVERIFY2(errors.empty(), joinDiagnostics(errors).c_str());
        QCOMPARE(cases.size(), std::size_t(1));
        QVERIFY(cases[0].scenario.workload.model.tied_embeddings);
    }
};

QTEST_APPLESS_MAIN(TestFieldTable)
#include "tst_fieldtable.moc"
