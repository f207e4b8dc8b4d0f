// Model presets: the shipped file loads and every preset is a valid model shape; bad files are
// rejected with the JSON path of the problem; the workload editor applies a preset as one undo step.
// Memory per device: the editor's bar and the per-stage model follow the document.
#include "models/scenarioio.h"
#include "models/transformer.h"
#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/memorystagemodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/workload/memorybar.h"
#include "ui/workload/modelpresets.h"
#include "ui/workload/workloadeditor.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::ModelPreset;

namespace {

// A valid one-preset file with `shape` (JSON text) and extra fields.
std::string presetFile(const std::string& shape, const std::string& extra = {}) {
    return R"({"format": "choreo-model-presets/1", "presets": [{"id": "p", "name": "P", "shape": )" + shape +
           R"(, "source": "a paper", "url": "https://example.org", "as_of": "2024-01")" + extra + "}]}";
}

const std::string kShape = R"({"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn_hidden": 256,
                              "ffn_gated": true, "vocab": 1000, "seq_len": 128})";

} // namespace

class TestModelPresets : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void shippedPresetsAreValidShapes();
    void badFilesNameTheField_data();
    void badFilesNameTheField();
    void findPresetIgnoresTheName();
    void editorAppliesPresetWithUndoRedo();
    void editedShapeIsCustom();
    void memoryBarFollowsTheLayout();
    void memoryStagesFollowTheDocument();
    void memoryStagesOfAnIpuKeepTheOptimizerOffChip();

private:
    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
    std::vector<ModelPreset> presets_;
};

void TestModelPresets::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_.has_value());
    original_ = *choreo::test::loadDefaultScenario();
    choreo::models::Diagnostics errors;
    auto presets =
        choreo::ui::loadModelPresets(choreo::test::assetsDir() / "presets" / "models.json", errors);
    QVERIFY2(presets.has_value(), choreo::models::joinDiagnostics(errors).c_str());
    presets_ = std::move(*presets);
}

void TestModelPresets::shippedPresetsAreValidShapes() {
    QCOMPARE(presets_.size(), std::size_t(12));
    for (const std::string id :
         {"gpt3-175b", "llama3-8b", "llama3.2-1b", "llama3.2-3b", "llama3-70b", "llama3-405b", "mixtral-8x7b",
          "deepseek-v3", "grok-1", "nemotron4-340b", "qwen3-235b-a22b", "gpt-oss-120b"}) {
        const auto it =
            std::find_if(presets_.begin(), presets_.end(), [&](const ModelPreset& p) { return p.id == id; });
        QVERIFY2(it != presets_.end(), id.c_str());
        QVERIFY(!it->source.empty());
        QVERIFY(it->url.starts_with("https://"));
        // A preset with experts says what its simulation leaves out, and carries them in its shape.
        if (it->experts) {
            QVERIFY2(!it->note.empty(), id.c_str());
            QVERIFY2(it->shape.moe && it->shape.moe->experts == it->experts->routed, id.c_str());
        }
        // The shape passes every model check of a scenario (fitting in memory is the layout's business).
        choreo::models::Scenario s = original_;
        s.workload.model = it->shape;
        if (it->shape.tied_embeddings) { // tied embeddings are modelled without pipeline parallelism
            s.workload.parallel.dp *= s.workload.parallel.pp;
            s.workload.parallel.pp = 1;
        }
        for (const auto& d : choreo::ui::Document::validate(s, *catalog_))
            QVERIFY2(!d.path.starts_with("workload.model"), (id + ": " + d.text()).c_str());
    }
    const auto llama405 = std::find_if(presets_.begin(), presets_.end(),
                                       [](const ModelPreset& p) { return p.id == "llama3-405b"; });
    QCOMPARE(llama405->shape.layers, 126);
    QCOMPARE(llama405->shape.hidden, 16384);
    QCOMPARE(llama405->shape.ffn_hidden, 53248);
    // Heads set apart from hidden / heads: gpt-oss-120b's 64 heads of 64 on a hidden size of 2,880.
    const auto oss = std::find_if(presets_.begin(), presets_.end(),
                                  [](const ModelPreset& p) { return p.id == "gpt-oss-120b"; });
    QCOMPARE(oss->shape.head_dim, 64);
    QCOMPARE(oss->shape.queryWidth(), 4096.0);
    QCOMPARE(llama405->shape.head_dim, 0);
    // Tied embeddings give the model cards' parameter counts: Llama 3.2 1B 1.24 B, 3B 3.21 B.
    for (const auto& [id, billions] : {std::pair{"llama3.2-1b", 1.24}, std::pair{"llama3.2-3b", 3.21}}) {
        const auto tied = std::find_if(presets_.begin(), presets_.end(),
                                       [id = std::string(id)](const ModelPreset& p) { return p.id == id; });
        QVERIFY(tied->shape.tied_embeddings);
        const double total = choreo::models::countParameters(tied->shape).total() / 1e9;
        QVERIFY2(std::abs(total - billions) < 0.005, std::to_string(total).c_str());
    }
}

void TestModelPresets::badFilesNameTheField_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("words");
    QTest::newRow("not json") << u"{"_s << u"(document)"_s << u"not valid JSON"_s;
    QTest::newRow("format")
        << QString::fromStdString(presetFile(kShape)).replace(u"presets/1"_s, u"presets/9"_s) << u"format"_s
        << u"choreo-model-presets/1"_s;
    QTest::newRow("missing hidden") << QString::fromStdString(presetFile(
                                           R"({"layers": 2, "heads": 4, "kv_heads": 2, "ffn_hidden": 256,
              "ffn_gated": true, "vocab": 1000, "seq_len": 128})"))
                                    << u"presets[0].shape.hidden"_s << u"missing"_s;
    QTest::newRow("layers text")
        << QString::fromStdString(presetFile(kShape)).replace(u"\"layers\": 2"_s, u"\"layers\": \"2\""_s)
        << u"presets[0].shape.layers"_s << u"string"_s;
    QTest::newRow("zero heads")
        << QString::fromStdString(presetFile(kShape)).replace(u"\"heads\": 4"_s, u"\"heads\": 0"_s)
        << u"presets[0].shape.heads"_s << QString();
    QTest::newRow("head width text") << QString::fromStdString(presetFile(kShape))
                                            .replace(u"\"heads\": 4"_s,
                                                     u"\"heads\": 5, \"head_dim\": \"wide\""_s)
                                     << u"presets[0].shape.head_dim"_s << u"string"_s;
    QTest::newRow("heads divide hidden")
        << QString::fromStdString(presetFile(kShape)).replace(u"\"heads\": 4"_s, u"\"heads\": 5"_s)
        << u"presets[0].shape.heads"_s << u"divide hidden"_s;
    QTest::newRow("unknown key") << QString::fromStdString(presetFile(kShape, R"(, "experts_count": 8)"))
                                 << u"presets[0].experts_count"_s << QString();
    QTest::newRow("experts without note")
        << QString::fromStdString(
               presetFile(kShape, R"(, "experts": {"routed": 8, "active": 2, "expert_ffn_hidden": 256})"))
        << u"presets[0].note"_s << u"leaves out"_s;
    QTest::newRow("active above routed")
        << QString::fromStdString(presetFile(
               kShape, R"(, "note": "n", "experts": {"routed": 2, "active": 4, "expert_ffn_hidden": 256})"))
        << u"presets[0].experts.active"_s << u"routed"_s;
    QTest::newRow("no source")
        << QString::fromStdString(presetFile(kShape)).replace(u"\"source\": \"a paper\", "_s, QString())
        << u"presets[0].source"_s << u"missing"_s;
}

void TestModelPresets::badFilesNameTheField() {
    QFETCH(QString, text);
    QFETCH(QString, path);
    QFETCH(QString, words);
    choreo::models::Diagnostics errors;
    QVERIFY(!choreo::ui::parseModelPresets(text.toStdString(), errors).has_value());
    QVERIFY(!errors.empty());
    bool named = false;
    for (const auto& d : errors)
        named = named || (QString::fromStdString(d.path) == path &&
                          QString::fromStdString(d.message).contains(words, Qt::CaseInsensitive));
    QVERIFY2(named, choreo::models::joinDiagnostics(errors).c_str());
}

void TestModelPresets::findPresetIgnoresTheName() {
    choreo::models::ModelShape shape = presets_.front().shape;
    shape.name = "my own name";
    QCOMPARE(choreo::ui::findPreset(presets_, shape), &presets_.front());
    shape.layers += 1;
    QCOMPARE(choreo::ui::findPreset(presets_, shape), nullptr);
}

void TestModelPresets::editorAppliesPresetWithUndoRedo() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::WorkloadEditor editor(&document, nullptr, presets_);
    auto* combo = editor.findChild<QComboBox*>(u"presetCombo"_s);
    QVERIFY(combo);
    // The default scenario is Llama 3 70B: the combo shows it.
    QCOMPARE(combo->currentData().toString(), u"llama3-70b"_s);
    const int index = combo->findData(u"grok-1"_s);
    QVERIFY(index > 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
    const auto applied = document.scenario();
    QCOMPARE(applied.workload.model.name, std::string("Grok-1"));
    QCOMPARE(applied.workload.model.hidden, 6144);
    QCOMPARE(editor.findChild<QSpinBox*>(u"workload.model.hidden"_s)->value(), 6144);
    QVERIFY(editor.findChild<QLabel*>(u"presetInfoLabel"_s)->text().contains(u"Routed experts simulated"_s));
    QVERIFY(applied.workload.model.moe && applied.workload.model.moe->top_k == 2);
    QCOMPARE(document.undoStack()->count(), 1);

    document.undoStack()->undo();
    QVERIFY(document.scenario() == original_);
    QCOMPARE(combo->currentData().toString(), u"llama3-70b"_s);
    document.undoStack()->redo();
    QVERIFY(document.scenario() == applied);
    QCOMPARE(combo->currentData().toString(), u"grok-1"_s);
}

void TestModelPresets::editedShapeIsCustom() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::WorkloadEditor editor(&document, nullptr, presets_);
    auto* combo = editor.findChild<QComboBox*>(u"presetCombo"_s);
    editor.findChild<QSpinBox*>(u"workload.model.layers"_s)->setValue(81);
    QCOMPARE(combo->currentData().toString(), QString());
    QCOMPARE(combo->currentText(), u"Custom"_s);
    // Choosing Custom changes nothing.
    emit combo->activated(0);
    QCOMPARE(document.undoStack()->count(), 1);
    // A head width set apart from hidden / heads is one more edit of the shape, and valid.
    editor.findChild<QSpinBox*>(u"workload.model.head_dim"_s)->setValue(256);
    QCOMPARE(document.scenario().workload.model.head_dim, 256);
    QCOMPARE(document.undoStack()->count(), 2);
    QVERIFY(document.isValid());
}

void TestModelPresets::memoryBarFollowsTheLayout() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::WorkloadEditor editor(&document, nullptr, presets_);
    auto* bar = editor.findChild<choreo::ui::MemoryBar*>(u"memoryBar"_s);
    QVERIFY(bar);
    QVERIFY(bar->breakdown().has_value());
    const auto expected = choreo::models::peakMemory(original_.workload);
    QCOMPARE(bar->breakdown()->total(), expected.total());
    QCOMPARE(bar->capacityGB(), catalog_->find("h100-sxm")->memory_GB.value);
    QVERIFY(!bar->summary().contains(u"does not fit"_s));
    // Halving the pipeline (doubling data parallelism) needs more memory per device.
    editor.findChild<QSpinBox*>(u"workload.parallel.pp"_s)->setValue(2);
    QVERIFY(bar->breakdown()->total() > expected.total());
    QVERIFY(bar->summary().contains(u"does not fit"_s) == (bar->breakdown()->total() > bar->capacityGB()));
    document.undoStack()->undo();
    QCOMPARE(bar->breakdown()->total(), expected.total());
}

void TestModelPresets::memoryStagesFollowTheDocument() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::MemoryStageModel model(&document);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), int(original_.workload.parallel.pp));
    QCOMPARE(model.capacityGB(), catalog_->find("h100-sxm")->memory_GB.value);
    const auto peak = choreo::models::peakMemory(original_.workload);
    QCOMPARE(model.index(int(peak.stage), choreo::ui::MemoryStageModel::TotalColumn)
                 .data(choreo::ui::ValueRole)
                 .toDouble(),
             peak.total());
    auto s = original_;
    s.workload.parallel.pp = 8;
    s.workload.parallel.dp = 4;
    document.edit(s, choreo::ui::NoMerge, u"pp 8"_s);
    QCOMPARE(model.rowCount(), 8);
    document.undoStack()->undo();
    QCOMPARE(model.rowCount(), 4);
}

// On a Graphcore IPU each stage's row is what its SRAM holds: no optimizer state (in streaming memory) and
// the compiled program as the buffers, not a GPU's runtime allowance.
void TestModelPresets::memoryStagesOfAnIpuKeepTheOptimizerOffChip() {
    choreo::models::Diagnostics errors;
    auto ipuPod = choreo::models::loadScenarioFile(
        choreo::test::assetsDir() / "scenarios" / "systems" / "ipu-pod.json", errors);
    QVERIFY2(ipuPod, choreo::models::joinDiagnostics(errors).c_str());
    choreo::ui::Document document(*catalog_, *ipuPod);
    choreo::ui::MemoryStageModel model(&document);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.capacityGB(), 0.9);
    auto cell = [&](int stage, int column) {
        return model.index(stage, column).data(choreo::ui::ValueRole).toDouble();
    };
    for (int stage = 0; stage < model.rowCount(); ++stage) {
        QCOMPARE(cell(stage, choreo::ui::MemoryStageModel::OptimizerColumn), 0.0);
        QCOMPARE(cell(stage, choreo::ui::MemoryStageModel::BuffersColumn), 0.15);
        QVERIFY(cell(stage, choreo::ui::MemoryStageModel::TotalColumn) < 0.9);
    }
}

QTEST_MAIN(TestModelPresets)
#include "tst_modelpresets.moc"
