// The topology view: the outline of each kind of network, a small cluster drawn down to single links, and
// 16,384-device clusters drawn as a bounded number of items that open group by group on zoom. Prints
// item counts and build times (no timed assertions).
#include "models/resolved.h"
#include "models/topologyoutline.h"
#include "ui/cluster/topologypanel.h"
#include "ui/cluster/topologyview.h"
#include "ui/document.h"
#include "ui/editids.h"

#include <QGraphicsItem>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QTest>
#include <QUndoStack>

#include <set>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::models::TopologyKind;

namespace {

choreo::models::Scenario withNetwork(std::int64_t devices, TopologyKind kind) {
    auto s = *choreo::test::loadDefaultScenario();
    auto& pool = s.cluster.pools.front();
    pool.count = devices;
    pool.devices_per_node = 8;
    s.cluster.network.topology = choreo::models::topologyForKind(kind, pool, {});
    if (kind == TopologyKind::RailFatTree && devices > 4096)
        s.cluster.network.topology.tiers = 3;
    return s;
}

} // namespace

class TestTopologyView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void outlineCoversEveryVertex_data();
    void outlineCoversEveryVertex();
    void smallClusterShowsSingleLinks();
    void largeClusterIsBoundedAndOpensOnZoom_data();
    void largeClusterIsBoundedAndOpensOnZoom();
    void invalidNetworkShowsTheError();
    void panelFollowsTheDocument();

private:
    std::optional<choreo::models::Catalog> catalog_;
};

void TestTopologyView::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_);
}

void TestTopologyView::outlineCoversEveryVertex_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<qint64>("devices");
    QTest::newRow("fat-tree 128") << int(TopologyKind::FatTree) << qint64(128);
    QTest::newRow("fat-tree 4096 (3 tiers)") << int(TopologyKind::FatTree) << qint64(4096);
    QTest::newRow("rail-fat-tree 1024") << int(TopologyKind::RailFatTree) << qint64(1024);
    QTest::newRow("single-switch 64") << int(TopologyKind::SingleSwitch) << qint64(64);
    QTest::newRow("dragonfly 512") << int(TopologyKind::Dragonfly) << qint64(512);
    QTest::newRow("torus-3d 512") << int(TopologyKind::Torus3d) << qint64(512);
}

void TestTopologyView::outlineCoversEveryVertex() {
    QFETCH(int, kind);
    QFETCH(qint64, devices);
    const auto s = withNetwork(devices, static_cast<TopologyKind>(kind));
    choreo::models::Diagnostics errors;
    const auto plan = choreo::models::planTrainingPoolNetwork(s, *catalog_, errors);
    QVERIFY2(plan, choreo::models::joinDiagnostics(errors).c_str());
    const auto graph = choreo::models::buildTopologyGraph(*plan);
    const auto outline = choreo::models::outlineTopology(*plan, graph);
    // Every vertex is a member of exactly one group (or ungrouped), and the totals add up.
    std::set<std::size_t> seen(outline.ungrouped.begin(), outline.ungrouped.end());
    std::size_t members = outline.ungrouped.size();
    for (std::size_t g = 0; g < outline.groups.size(); ++g) {
        for (auto v : outline.groups[g].members) {
            QCOMPARE(outline.groupOfVertex[v], static_cast<std::int64_t>(g));
            seen.insert(v);
        }
        members += outline.groups[g].members.size();
        QVERIFY(outline.groups[g].parent < static_cast<std::int64_t>(g)); // parents come first
    }
    QCOMPARE(seen.size(), boost::num_vertices(graph));
    QCOMPARE(members, boost::num_vertices(graph));
    std::int64_t rootDevices = 0;
    for (auto r : outline.roots)
        rootDevices += outline.groups[static_cast<std::size_t>(r)].devices;
    for (auto v : outline.ungrouped)
        rootDevices += graph[v].kind == choreo::models::VertexKind::Device;
    QCOMPARE(rootDevices, static_cast<std::int64_t>(devices));
}

void TestTopologyView::smallClusterShowsSingleLinks() {
    choreo::ui::TopologyView view(*catalog_);
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setScenario(*choreo::test::loadDefaultScenario()); // 128 H100, fat tree
    QVERIFY(view.hasNetwork());
    QCOMPARE(view.deviceCount(), std::int64_t(128));
    // 128 devices fit on screen: every device and switch is drawn, links one by one.
    const auto* outline = view.outline();
    QCOMPARE(view.shownVertexCount(), static_cast<int>(outline->groupOfVertex.size()));
    QVERIFY(view.linkItemCount() > 128);
    bool nicLink = false;
    const auto items = view.scene()->items();
    for (const auto* item : items)
        if (qgraphicsitem_cast<const QGraphicsLineItem*>(item) &&
            item->toolTip().contains(u"scale-out link, 50 GB/s"_s)) // 400 Gb/s NIC
            nicLink = true;
    QVERIFY(nicLink);
}

void TestTopologyView::largeClusterIsBoundedAndOpensOnZoom_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("fat-tree") << int(TopologyKind::FatTree);
    QTest::newRow("rail-fat-tree") << int(TopologyKind::RailFatTree);
    QTest::newRow("dragonfly") << int(TopologyKind::Dragonfly);
    QTest::newRow("torus-3d") << int(TopologyKind::Torus3d);
}

void TestTopologyView::largeClusterIsBoundedAndOpensOnZoom() {
    QFETCH(int, kind);
    constexpr int kMaxItems = 3000; // what stays smooth to pan and zoom
    choreo::ui::TopologyView view(*catalog_);
    view.resize(1100, 750);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setScenario(withNetwork(16384, static_cast<TopologyKind>(kind)));
    QVERIFY2(view.hasNetwork(), qPrintable(view.errorText()));
    const auto* outline = view.outline();
    const int fitItems = view.itemCount();
    qInfo().noquote() << u"16384 devices, %1: %2 vertices, %3 groups; fit: %4 items (%5 links), %6 groups "
                         "open; build %7 ms, draw %8 ms"_s.arg(QString::fromLatin1(QTest::currentDataTag()))
                             .arg(outline->groupOfVertex.size())
                             .arg(outline->groups.size())
                             .arg(fitItems)
                             .arg(view.linkItemCount())
                             .arg(view.openGroupCount())
                             .arg(view.buildTime_ms(), 0, 'f', 1)
                             .arg(view.drawTime_ms(), 0, 'f', 1);
    QVERIFY(fitItems > 0);
    QVERIFY(fitItems < kMaxItems);
    QVERIFY(view.shownVertexCount() < 200); // grouped, not 16,384 boxes

    // Zoom into the first top-level group until it opens, then further until single devices show.
    std::int64_t group = outline->roots.back();
    view.centerOn(view.groupRect(group).center());
    view.redrawNow();
    int steps = 0;
    for (; !view.isGroupOpen(group) && steps < 40; ++steps) {
        view.zoomBy(1.5);
        view.centerOn(view.groupRect(group).center());
        view.redrawNow();
        QVERIFY(view.itemCount() < kMaxItems);
    }
    QVERIFY(view.isGroupOpen(group));
    for (; view.shownVertexCount() < 8 && steps < 60; ++steps) {
        // Follow the first sub-group down.
        const auto& g = outline->groups[static_cast<std::size_t>(group)];
        if (view.isGroupOpen(group) && !g.children.empty())
            group = g.children.back();
        view.zoomBy(1.5);
        view.centerOn(view.groupRect(group).center());
        view.redrawNow();
        QVERIFY(view.itemCount() < kMaxItems);
    }
    QVERIFY(view.shownVertexCount() >= 8);
    qInfo().noquote() << u"  zoomed in %1 steps: %2 items, %3 devices and switches drawn, %4 groups open, "
                         "draw %5 ms"_s.arg(steps)
                             .arg(view.itemCount())
                             .arg(view.shownVertexCount())
                             .arg(view.openGroupCount())
                             .arg(view.drawTime_ms(), 0, 'f', 1);
    QTest::keyClick(&view, Qt::Key_0); // fit
    QCOMPARE(view.itemCount(), fitItems);
    const double fitScale = view.transform().m11();
    QTest::keyClick(&view, Qt::Key_Plus);
    QVERIFY(view.transform().m11() > fitScale);
}

void TestTopologyView::invalidNetworkShowsTheError() {
    choreo::ui::TopologyView view(*catalog_);
    auto s = withNetwork(128, TopologyKind::Torus3d);
    s.cluster.network.topology.dims = std::vector<std::int64_t>{4, 4, 4};
    view.setScenario(s);
    QVERIFY(!view.hasNetwork());
    QVERIFY(view.errorText().contains(u"cluster.network.topology.dims"_s));
    QCOMPARE(view.itemCount(), 1);
}

void TestTopologyView::panelFollowsTheDocument() {
    const auto original = *choreo::test::loadDefaultScenario();
    choreo::ui::Document document(*catalog_, original);
    choreo::ui::TopologyPanel panel(&document);
    auto* view = panel.view();
    QCOMPARE(view->deviceCount(), std::int64_t(128));
    auto bigger = original;
    bigger.cluster.pools.front().count = 256;
    bigger.workload.parallel.dp *= 2;
    document.edit(bigger, choreo::ui::NoMerge, u"grow"_s);
    QCOMPARE(view->deviceCount(), std::int64_t(128)); // debounced: not at once
    QTRY_COMPARE(view->deviceCount(), std::int64_t(256));
    document.undoStack()->undo();
    QTRY_COMPARE(view->deviceCount(), std::int64_t(128));
    // A network that cannot be planned shows why, and recovers with the next valid edit.
    auto broken = original;
    broken.cluster.network.topology =
        choreo::models::topologyForKind(TopologyKind::Torus3d, broken.cluster.pools.front(), {});
    broken.cluster.network.topology.dims = std::vector<std::int64_t>{2, 2, 2};
    document.edit(broken, choreo::ui::NoMerge, u"break"_s);
    panel.updateNow();
    QVERIFY(!view->hasNetwork());
    document.undoStack()->undo();
    panel.updateNow();
    QVERIFY(view->hasNetwork());
}

QTEST_MAIN(TestTopologyView)
#include "tst_topologyview.moc"
