// The workload editor's Mixture-of-Experts, expert-parallel and attention fields, and the serving editor:
// each edit is one undo step, undo and redo give back the scenario file byte for byte, and problems mark
// the field.
#include "models/scenarioio.h"
#include "ui/document.h"
#include "ui/fieldmarks.h"
#include "ui/workload/modelpresets.h"
#include "ui/workload/serveeditor.h"
#include "ui/workload/stageseditor.h"
#include "ui/workload/workloadeditor.h"

#include <QAbstractItemModel>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <functional>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::models::Scenario;

namespace {

using Edit = std::function<void(choreo::ui::WorkloadEditor&)>;
using Check = std::function<bool(const Scenario&)>;

// Sets a spin box as a user would (valueChanged is what the editor listens to).
void spin(choreo::ui::WorkloadEditor& editor, const QString& name, int value) {
    auto* box = editor.findChild<QSpinBox*>(name);
    QVERIFY2(box, qPrintable(name));
    QVERIFY2(box->isEnabled(), qPrintable(name + u" is disabled"_s));
    box->setValue(value);
}

void pick(choreo::ui::WorkloadEditor& editor, const QString& name, const QVariant& data) {
    auto* combo = editor.findChild<QComboBox*>(name);
    QVERIFY2(combo, qPrintable(name));
    const int index = combo->findData(data);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

void tick(choreo::ui::WorkloadEditor& editor, const QString& name, bool on) {
    auto* box = editor.findChild<QCheckBox*>(name);
    QVERIFY2(box, qPrintable(name));
    box->setChecked(on);
}

void moe(choreo::ui::WorkloadEditor& editor, bool on) {
    auto* group = editor.findChild<QGroupBox*>(u"moeGroup"_s);
    QVERIFY(group);
    group->setChecked(on);
}

Scenario mixtral() {
    choreo::models::Diagnostics errors;
    auto s = choreo::models::loadScenarioFile(choreo::test::assetsDir() / "scenarios" / "mixtral-8x7b.json",
                                              errors);
    if (!s)
        qFatal("%s", choreo::models::joinDiagnostics(errors).c_str());
    return *s;
}

} // namespace

Q_DECLARE_METATYPE(Edit)
Q_DECLARE_METATYPE(Check)

class TestWorkloadEditor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void editUndoRedo_data();
    void editUndoRedo();
    void spinningMergesIntoOneStep();
    void problemsMarkTheNewFields();
    void parameterGatherNeedsZero();
    void moePresetFillsTheMoeFields();
    void serveEditorEditsTheServeStage();
    void stagesEditorEditsTheDataStage();
    void frameworkIsOfferedFromTheCatalog();

private:
    std::optional<choreo::models::Catalog> catalog_;
    std::vector<choreo::ui::ModelPreset> presets_;
};

// The serving form: a rate, an SLO cleared, a KV cache left to the weights, each one undo step that the
// file round-trips; a bad value marks its widget by the stage's path; a training scenario hides the form.
void TestWorkloadEditor::serveEditorEditsTheServeStage() {
    choreo::models::Diagnostics errors;
    const auto start = choreo::models::loadScenarioFile(
        choreo::test::assetsDir() / "scenarios" / "serve-llama3-70b.json", errors);
    QVERIFY2(start, choreo::models::joinDiagnostics(errors).c_str());
    choreo::ui::Document document(*catalog_, *start);
    choreo::ui::FieldMarks marks;
    choreo::ui::ServeEditor editor(&document, &marks);
    auto* rate = editor.findChild<QDoubleSpinBox*>(u"serveRateSpin"_s);
    auto* ttft = editor.findChild<QDoubleSpinBox*>(u"serveTtftSloSpin"_s);
    auto* kv = editor.findChild<QComboBox*>(u"serveKvCacheCombo"_s);
    auto* tp = editor.findChild<QSpinBox*>(u"serveTpSpin"_s);
    QVERIFY(rate && ttft && kv && tp);
    QCOMPARE(ttft->value(), *start->workload.serve->slo.ttft_p99_s * 1e3); // shown in ms
    for (double v : {9.0, 10.0, 12.5})
        rate->setValue(v); // one merged step
    QCOMPARE(document.undoStack()->count(), 1);
    QCOMPARE(document.scenario().workload.serve->requests.rate_per_s, 12.5);
    ttft->setValue(0.0); // "none"
    QCOMPARE(ttft->text(), u"none"_s);
    QVERIFY(!document.scenario().workload.serve->slo.ttft_p99_s);
    QCOMPARE(kv->currentData().toInt(), -1); // the file leaves it to the weights
    kv->setCurrentIndex(kv->findData(static_cast<int>(choreo::models::Precision::Bf16)));
    emit kv->activated(kv->currentIndex());
    QVERIFY(document.scenario().workload.serve->kv_cache == choreo::models::Precision::Bf16);
    QCOMPARE(document.undoStack()->count(), 3);
    const std::string edited = choreo::models::serializeScenario(document.scenario());
    const auto reread = choreo::models::parseScenario(edited, errors);
    QVERIFY2(reread && *reread == document.scenario(), choreo::models::joinDiagnostics(errors).c_str());
    // TP 3 does not divide the model's 64 heads: the TP field is marked by the stage's path.
    tp->setValue(3);
    marks.show(document.diagnostics());
    QVERIFY(!document.isValid());
    QVERIFY2(marks.marked().contains(tp), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    while (document.undoStack()->canUndo())
        document.undoStack()->undo();
    QVERIFY(document.scenario() == *start);
    QCOMPARE(rate->value(), start->workload.serve->requests.rate_per_s);
    // A percentile table's mean follows from its points: shown, not editable; a lognormal's is editable.
    auto* input = editor.findChild<QDoubleSpinBox*>(u"serveInputSpin"_s);
    QVERIFY(input && input->isEnabled());
    auto tabled = *start;
    tabled.workload.serve->requests.input = {choreo::models::LengthShape::Percentiles,     315, 0, 100, 1000,
                                             {{0, 100}, {50, 200}, {90, 600}, {100, 1000}}};
    document.reset(tabled, {});
    QCOMPARE(input->value(), 315.0);
    QVERIFY(!input->isEnabled());
    // A training scenario serves nothing: no serving form.
    document.reset(*choreo::test::loadDefaultScenario(), {});
    QVERIFY(editor.isHidden());
}

// The data stage's fields come from the field table: a change is one undo step, a storage tier the catalog
// lacks marks the field (its message names the stage by its place in the file), and a workload without a
// data or eval stage shows neither box.
void TestWorkloadEditor::stagesEditorEditsTheDataStage() {
    choreo::models::Diagnostics errors;
    const auto start = choreo::models::loadScenarioFile(
        choreo::test::assetsDir() / "scenarios" / "hybrid-multimodal.json", errors);
    QVERIFY2(start, choreo::models::joinDiagnostics(errors).c_str());
    choreo::ui::Document document(*catalog_, *start);
    choreo::ui::FieldMarks marks;
    choreo::ui::StagesEditor editor(&document, &marks);
    QVERIFY(!editor.isHidden());
    QVERIFY(!editor.findChild<QGroupBox*>(u"dataStageGroup"_s)->isHidden());
    QVERIFY(editor.findChild<QGroupBox*>(u"evalStageGroup"_s)->isHidden());
    auto* side = editor.findChild<QSpinBox*>(u"workload.stages[data].image_px"_s);
    auto* tokens = editor.findChild<QSpinBox*>(u"workload.stages[data].text_tokens_per_sample"_s);
    auto* storage = editor.findChild<QLineEdit*>(u"workload.stages[data].storage"_s);
    QVERIFY(side && tokens && storage);
    // The catalog's storage tiers are offered as the field is typed in.
    QVERIFY(storage->completer());
    QVERIFY(storage->completer()
                ->model()
                ->match(storage->completer()->model()->index(0, 0), Qt::DisplayRole, u"parallel-fs"_s)
                .size() == 1);
    // A field added to the table's "Data stage" group gets its box without a line of editor code.
    auto* ceiling = editor.findChild<QDoubleSpinBox*>(u"workload.stages[data].loader_samples_per_s"_s);
    QVERIFY(ceiling && ceiling->specialValueText() == u"none"_s);
    ceiling->setValue(3950);
    QCOMPARE(document.scenario().workload.data->loader_samples_per_s, std::optional<double>(3950));
    document.undoStack()->undo();
    QVERIFY(!document.scenario().workload.data->loader_samples_per_s);
    QCOMPARE(side->value(), 336);
    QCOMPARE(tokens->value(), 1472);
    side->setValue(448);
    QCOMPARE(document.scenario().workload.data->image_px, 448);
    QCOMPARE(document.undoStack()->count(), 1);
    tokens->setValue(0); // no text: a value of its own
    QCOMPARE(document.scenario().workload.data->text_tokens_per_sample, std::optional<std::int64_t>(0));
    tokens->setValue(tokens->minimum()); // one below: unset, the default (none for images) applies
    QCOMPARE(tokens->minimum(), -1);
    QVERIFY(!document.scenario().workload.data->text_tokens_per_sample);
    storage->setText(u"tape"_s);
    emit storage->textEdited(storage->text());
    marks.show(choreo::models::withStageAliases(document.diagnostics(), document.scenario()));
    QVERIFY2(marks.marked().contains(storage),
             choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    QVERIFY(choreo::models::joinDiagnostics(document.diagnostics()).find("workload.stages[0].storage") !=
            std::string::npos);
    while (document.undoStack()->canUndo())
        document.undoStack()->undo();
    QVERIFY(document.scenario() == *start);
    QCOMPARE(side->value(), 336);
    document.reset(*choreo::test::loadDefaultScenario(), {});
    QVERIFY(editor.isHidden());
}

// The framework field offers the catalog's frameworks; picking one is one undoable edit.
void TestWorkloadEditor::frameworkIsOfferedFromTheCatalog() {
    choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
    choreo::ui::WorkloadEditor editor(&document, nullptr, presets_);
    auto* framework = editor.findChild<QLineEdit*>(u"workload.framework"_s);
    QVERIFY(framework && framework->completer());
    QStringList offered;
    const QAbstractItemModel* names = framework->completer()->model();
    for (int row = 0; row < names->rowCount(); ++row)
        offered << names->index(row, 0).data().toString();
    for (const auto& profile : catalog_->frameworkProfiles())
        QVERIFY(offered.contains(QString::fromStdString(profile.framework)));
    QCOMPARE(offered.size(), QSet<QString>(offered.begin(), offered.end()).size()); // each framework once
    emit framework->completer()->activated(u"megatron"_s);
    QCOMPARE(document.scenario().workload.framework, std::string("megatron"));
    document.undoStack()->undo();
    QVERIFY(document.scenario().workload.framework.empty());
}

void TestWorkloadEditor::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_);
    choreo::models::Diagnostics errors;
    auto presets =
        choreo::ui::loadModelPresets(choreo::test::assetsDir() / "presets" / "models.json", errors);
    QVERIFY(presets);
    presets_ = *presets;
}

void TestWorkloadEditor::editUndoRedo_data() {
    QTest::addColumn<bool>("startMoe"); // start from the Mixtral example (MoE) or the default (dense)
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<Check>("check");
    QTest::newRow("moe on") << false << Edit([](auto& e) { moe(e, true); }) << Check([](const Scenario& s) {
        const auto& m = s.workload.model;
        return m.moe && m.moe->experts == 8 && m.moe->top_k == 2 && m.moe->expert_ffn_hidden == m.ffn_hidden;
    });
    QTest::newRow("moe off") << true << Edit([](auto& e) { moe(e, false); }) << Check([](const Scenario& s) {
        return !s.workload.model.moe && s.workload.parallel.ep == 1;
    });
    QTest::newRow("experts") << true << Edit([](auto& e) { spin(e, u"workload.model.moe.experts"_s, 16); })
                             << Check([](const Scenario& s) { return s.workload.model.moe->experts == 16; });
    QTest::newRow("top_k") << true << Edit([](auto& e) { spin(e, u"workload.model.moe.top_k"_s, 1); })
                           << Check([](const Scenario& s) { return s.workload.model.moe->top_k == 1; });
    QTest::newRow("expert_ffn_hidden")
        << true << Edit([](auto& e) { spin(e, u"workload.model.moe.expert_ffn_hidden"_s, 4096); })
        << Check([](const Scenario& s) { return s.workload.model.moe->expert_ffn_hidden == 4096; });
    QTest::newRow("shared_experts") << true << Edit([](auto& e) {
        spin(e, u"workload.model.moe.shared_experts"_s, 1);
    }) << Check([](const Scenario& s) { return s.workload.model.moe->shared_experts == 1; });
    QTest::newRow("dense_layers") << true << Edit([](auto& e) {
        spin(e, u"workload.model.moe.dense_layers"_s, 2);
    }) << Check([](const Scenario& s) { return s.workload.model.moe->dense_layers == 2; });
    QTest::newRow("ep") << true << Edit([](auto& e) { spin(e, u"workload.parallel.ep"_s, 4); })
                        << Check([](const Scenario& s) { return s.workload.parallel.ep == 4; });
    QTest::newRow("etp") << true << Edit([](auto& e) { spin(e, u"workload.parallel.etp"_s, 1); })
                         << Check([](const Scenario& s) { return s.workload.parallel.etp == 1; });
    QTest::newRow("attention unfused")
        << false << Edit([](auto& e) { pick(e, u"workload.attention"_s, u"unfused"_s); })
        << Check([](const Scenario& s) {
               return s.workload.attention == choreo::models::AttentionKernel::Unfused;
           });
    QTest::newRow("separate gradient accumulation")
        << false << Edit([](auto& e) { pick(e, u"workload.gradient_accumulation"_s, u"separate"_s); })
        << Check([](const Scenario& s) {
               return s.workload.gradient_accumulation == choreo::models::GradientAccumulation::Separate;
           });
    QTest::newRow("bf16 gradients") << false << Edit([](auto& e) {
        pick(e, u"gradientPrecisionCombo"_s, static_cast<int>(choreo::models::Precision::Bf16));
    }) << Check([](const Scenario& s) {
        return s.workload.gradient_precision == choreo::models::Precision::Bf16;
    });
    QTest::newRow("overlap tp comm") << false
                                     << Edit([](auto& e) { tick(e, u"workload.overlap.tp_comm"_s, true); })
                                     << Check([](const Scenario& s) { return s.workload.overlap.tp_comm; });
    QTest::newRow("no gradient-reduction overlap")
        << false << Edit([](auto& e) { tick(e, u"workload.overlap.grad_reduce"_s, false); })
        << Check([](const Scenario& s) { return !s.workload.overlap.grad_reduce; });
    QTest::newRow("overlap param gather")
        << false << Edit([](auto& e) { tick(e, u"workload.overlap.param_gather"_s, true); })
        << Check([](const Scenario& s) { return s.workload.overlap.param_gather; });
    QTest::newRow("overlap expert all-to-all")
        << true << Edit([](auto& e) { tick(e, u"workload.overlap.ep_comm"_s, true); })
        << Check([](const Scenario& s) { return s.workload.overlap.ep_comm; });
    QTest::newRow("offloaded layers")
        << false << Edit([](auto& e) { spin(e, u"workload.activation_offload_layers"_s, 20); })
        << Check([](const Scenario& s) { return s.workload.activation_offload_layers == 20; });
}

void TestWorkloadEditor::editUndoRedo() {
    QFETCH(bool, startMoe);
    QFETCH(Edit, edit);
    QFETCH(Check, check);
    const Scenario start = startMoe ? mixtral() : *choreo::test::loadDefaultScenario();
    QCOMPARE(start.workload.model.moe.has_value(), startMoe);
    choreo::ui::Document document(*catalog_, start);
    choreo::ui::FieldMarks marks;
    choreo::ui::WorkloadEditor editor(&document, &marks, presets_);
    const std::string before = choreo::models::serializeScenario(document.scenario());

    edit(editor);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(document.undoStack()->count(), 1); // one undo step
    QVERIFY(check(document.scenario()));
    const std::string after = choreo::models::serializeScenario(document.scenario());
    QVERIFY(after != before);
    // The scenario file round-trips the edit.
    choreo::models::Diagnostics errors;
    const auto reread = choreo::models::parseScenario(after, errors);
    QVERIFY2(reread && *reread == document.scenario(), choreo::models::joinDiagnostics(errors).c_str());

    document.undoStack()->undo();
    QCOMPARE(choreo::models::serializeScenario(document.scenario()), before);
    document.undoStack()->redo();
    QCOMPARE(choreo::models::serializeScenario(document.scenario()), after);
    // The widgets show the document after redo (refresh), so a second undo leaves nothing behind.
    document.undoStack()->undo();
    QVERIFY(document.scenario() == start);
}

void TestWorkloadEditor::spinningMergesIntoOneStep() {
    choreo::ui::Document document(*catalog_, mixtral());
    choreo::ui::WorkloadEditor editor(&document, nullptr, presets_);
    auto* experts = editor.findChild<QSpinBox*>(u"workload.model.moe.experts"_s);
    for (int v = 9; v <= 12; ++v)
        experts->setValue(v);
    QCOMPARE(document.undoStack()->count(), 1);
    QCOMPARE(document.scenario().workload.model.moe->experts, 12);
}

void TestWorkloadEditor::problemsMarkTheNewFields() {
    choreo::ui::Document document(*catalog_, mixtral());
    choreo::ui::FieldMarks marks;
    choreo::ui::WorkloadEditor editor(&document, &marks, presets_);
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    auto* ep = editor.findChild<QSpinBox*>(u"workload.parallel.ep"_s);
    auto* topK = editor.findChild<QSpinBox*>(u"workload.model.moe.top_k"_s);
    // 8 experts over 3 ranks do not split; top-9 of 8 experts is impossible.
    ep->setValue(3);
    topK->setValue(9);
    marks.show(document.diagnostics());
    QVERIFY(!document.isValid());
    const QList<QWidget*> marked = marks.marked();
    QVERIFY2(marked.contains(ep), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    QVERIFY(marked.contains(topK));
    QVERIFY(ep->toolTip().contains(u"experts"_s));
    QVERIFY(!marked.contains(editor.findChild<QSpinBox*>(u"workload.model.moe.experts"_s)));
    // A dense model with ep > 1: the ep field says why.
    topK->setValue(2);
    editor.findChild<QGroupBox*>(u"moeGroup"_s)->setChecked(false);
    QCOMPARE(document.scenario().workload.parallel.ep, 1);  // turning MoE off resets ep with it
    QCOMPARE(document.scenario().workload.parallel.etp, 0); // and etp
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.parallel.etp"_s)->text(), u"= TP"_s);
    marks.show(document.diagnostics());
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    QVERIFY(marks.marked().isEmpty());
    QVERIFY(!topK->isEnabled()); // the MoE fields of a dense model are inactive
}

// Overlapping the parameter gather needs ZeRO 1 or 2: with ZeRO 0 the check box is marked and says why.
void TestWorkloadEditor::parameterGatherNeedsZero() {
    choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
    choreo::ui::FieldMarks marks;
    choreo::ui::WorkloadEditor editor(&document, &marks, presets_);
    auto* gather = editor.findChild<QCheckBox*>(u"workload.overlap.param_gather"_s);
    QVERIFY(gather);
    gather->setChecked(true);
    marks.show(document.diagnostics());
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    pick(editor, u"workload.parallel.zero"_s, u"0"_s);
    marks.show(document.diagnostics());
    QVERIFY(!document.isValid());
    QVERIFY(marks.marked().contains(gather));
    QVERIFY(gather->toolTip().contains(u"distributed optimizer"_s));
    document.undoStack()->undo(); // back to ZeRO 1: valid again
    marks.show(document.diagnostics());
    QVERIFY(document.isValid());
    QVERIFY(marks.marked().isEmpty());
}

void TestWorkloadEditor::moePresetFillsTheMoeFields() {
    choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
    choreo::ui::WorkloadEditor editor(&document, nullptr, presets_);
    auto* group = editor.findChild<QGroupBox*>(u"moeGroup"_s);
    QVERIFY(!group->isChecked());
    auto* combo = editor.findChild<QComboBox*>(u"presetCombo"_s);
    const int index = combo->findData(u"deepseek-v3"_s);
    QVERIFY(index > 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
    QVERIFY(group->isChecked());
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.model.moe.experts"_s)->value(), 256);
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.model.moe.top_k"_s)->value(), 8);
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.model.moe.expert_ffn_hidden"_s)->value(), 2048);
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.model.moe.shared_experts"_s)->value(), 1);
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.model.moe.dense_layers"_s)->value(), 3);
    document.undoStack()->undo();
    QVERIFY(!group->isChecked());
}

QTEST_MAIN(TestWorkloadEditor)
#include "tst_workloadeditor.moc"
