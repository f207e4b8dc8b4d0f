// The network fields of the cluster editor: every topology kind with its parameters, each edit one undo
// step (undo and redo give back the same scenario file), only the kind's fields shown, wrong values marked.
#include "models/scenarioio.h"
#include "ui/cluster/clustereditor.h"
#include "ui/document.h"
#include "ui/fieldmarks.h"

#include <QComboBox>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::models::TopologyKind;

namespace {

std::string json(const choreo::ui::Document& d) {
    return choreo::models::serializeScenario(d.scenario());
}

void pickKind(QComboBox* combo, TopologyKind kind) {
    const int index = combo->findData(static_cast<int>(kind));
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index); // what a user's choice sends
}

} // namespace

class TestNetworkEditor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everyKindIsOfferedAndValid_data();
    void everyKindIsOfferedAndValid();
    void parameterEditsUndoAndRedo();
    void wrongDimsAreMarked();

private:
    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
};

void TestNetworkEditor::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_);
    original_ = *choreo::test::loadDefaultScenario();
}

void TestNetworkEditor::everyKindIsOfferedAndValid_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("shownField");
    QTest::addColumn<QString>("hiddenField");
    QTest::newRow("rail-fat-tree") << int(TopologyKind::RailFatTree) << u"cluster.network.topology.tiers"_s
                                   << u"cluster.network.topology.groups"_s;
    QTest::newRow("single-switch") << int(TopologyKind::SingleSwitch) << u"cluster.network.topology.radix"_s
                                   << u"cluster.network.topology.nodes_per_leaf"_s;
    QTest::newRow("dragonfly") << int(TopologyKind::Dragonfly)
                               << u"cluster.network.topology.routers_per_group"_s
                               << u"cluster.network.topology.oversubscription"_s;
    QTest::newRow("torus-3d") << int(TopologyKind::Torus3d) << u"torusXSpin"_s
                              << u"cluster.network.topology.radix"_s;
}

void TestNetworkEditor::everyKindIsOfferedAndValid() {
    QFETCH(int, kind);
    QFETCH(QString, shownField);
    QFETCH(QString, hiddenField);
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::FieldMarks marks;
    choreo::ui::ClusterEditor editor(&document, &marks);
    editor.show();
    auto* combo = editor.findChild<QComboBox*>(u"cluster.network.topology.kind"_s);
    QCOMPARE(combo->count(), 5);
    const std::string before = json(document);
    pickKind(combo, static_cast<TopologyKind>(kind));
    QCOMPARE(static_cast<int>(document.scenario().cluster.network.topology.kind), kind);
    // The kind's required fields are filled so that the scenario still runs (128 H100 in 16 nodes).
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    QVERIFY(editor.findChild<QWidget*>(shownField)->isVisibleTo(&editor));
    QVERIFY(!editor.findChild<QWidget*>(hiddenField)->isVisibleTo(&editor));
    const std::string after = json(document);
    QCOMPARE(document.undoStack()->count(), 1);
    document.undoStack()->undo();
    QCOMPARE(json(document), before);
    QCOMPARE(combo->currentData().toInt(), int(TopologyKind::FatTree));
    document.undoStack()->redo();
    QCOMPARE(json(document), after);
}

void TestNetworkEditor::parameterEditsUndoAndRedo() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::FieldMarks marks;
    choreo::ui::ClusterEditor editor(&document, &marks);
    auto* combo = editor.findChild<QComboBox*>(u"cluster.network.topology.kind"_s);
    pickKind(combo, TopologyKind::Dragonfly);
    std::vector<std::string> states{json(document)};
    // Each field: one step; spinning the same field twice merges into that step.
    auto* groups = editor.findChild<QSpinBox*>(u"cluster.network.topology.groups"_s);
    auto* routers = editor.findChild<QSpinBox*>(u"cluster.network.topology.routers_per_group"_s);
    auto* radix = editor.findChild<QSpinBox*>(u"cluster.network.topology.radix"_s);
    groups->setValue(8);
    routers->setValue(2);
    states.push_back(json(document));
    radix->setValue(96);
    radix->setValue(128);
    states.push_back(json(document));
    QCOMPARE(document.scenario().cluster.network.topology.radix, std::optional<std::int64_t>(128));
    QCOMPARE(document.scenario().cluster.network.topology.groups, std::optional<std::int64_t>(8));
    editor.findChild<QSpinBox*>(u"cluster.network.topology.global_links_per_router"_s)->setValue(12);
    states.push_back(json(document));
    radix->setValue(0); // back to the default: the field leaves the file
    QVERIFY(!document.scenario().cluster.network.topology.radix);
    states.push_back(json(document));
    QVERIFY2(document.isValid(), choreo::models::joinDiagnostics(document.diagnostics()).c_str());
    // kind, groups, routers, radix (merged), global links, radix unset
    QCOMPARE(document.undoStack()->count(), 6);
    document.undoStack()->undo();
    QCOMPARE(json(document), states[3]);
    QCOMPARE(radix->value(), 128);
    for (int i = 0; i < 4; ++i)
        document.undoStack()->undo();
    QCOMPARE(json(document), states[0]);
    while (document.undoStack()->canRedo())
        document.undoStack()->redo();
    QCOMPARE(json(document), states[4]);
    // Torus: the dimensions are one field per axis; the latency is shared by every kind.
    pickKind(combo, TopologyKind::Torus3d);
    editor.findChild<QSpinBox*>(u"torusXSpin"_s)->setValue(2);
    QCOMPARE((*document.scenario().cluster.network.topology.dims)[0], std::int64_t(2));
    document.undoStack()->undo();
    document.undoStack()->undo();
    QCOMPARE(json(document), states[4]);
}

void TestNetworkEditor::wrongDimsAreMarked() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::FieldMarks marks;
    choreo::ui::ClusterEditor editor(&document, &marks);
    pickKind(editor.findChild<QComboBox*>(u"cluster.network.topology.kind"_s), TopologyKind::Torus3d);
    auto* x = editor.findChild<QSpinBox*>(u"torusXSpin"_s);
    x->setValue(x->value() + 1); // the product is no longer the device count
    QVERIFY(!document.isValid());
    marks.show(document.diagnostics());
    QVERIFY(marks.marked().contains(x));
    document.undoStack()->undo();
    QVERIFY(document.isValid());
    marks.show(document.diagnostics());
    QVERIFY(!marks.marked().contains(x));
}

QTEST_MAIN(TestNetworkEditor)
#include "tst_networkeditor.moc"
