// The device palette: the catalog model and its filter are sound item models; search, kind and vendor
// filters keep only matching devices; a device added by button or dropped on the pools table becomes
// one undoable pool.
#include "models/catalog.h"
#include "ui/cluster/devicepalette.h"
#include "ui/document.h"
#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/devicefiltermodel.h"
#include "ui/itemmodels/pooltablemodel.h"
#include "ui/itemmodels/roles.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

#include <memory>
#include <vector>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::CatalogDeviceModel;

class TestDevicePalette : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void modelShowsTheCatalogWithSources();
    void filters();
    void dropAddsAPoolWithUndoRedo();
    void buttonAddsTheSelectedDevice();

private:
    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
};

void TestDevicePalette::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_.has_value());
    original_ = *choreo::test::loadDefaultScenario();
}

// The devices of a filtered (or plain) model, walked family by family: {family row, device index}.
std::vector<QModelIndex> devicesOf(const QAbstractItemModel& model, int column = 0) {
    std::vector<QModelIndex> out;
    for (int f = 0; f < model.rowCount(); ++f) {
        const QModelIndex family = model.index(f, 0);
        for (int row = 0; row < model.rowCount(family); ++row)
            out.push_back(model.index(row, column, family));
    }
    return out;
}

void TestDevicePalette::modelShowsTheCatalogWithSources() {
    CatalogDeviceModel model(*catalog_);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(devicesOf(model).size(), catalog_->devices().size());
    // Grouped by family, in catalog order, each device under its own vendor.
    QCOMPARE(model.rowCount(), int(model.vendors().size()));
    for (int f = 0; f < model.rowCount(); ++f) {
        const QModelIndex family = model.index(f, 0);
        QVERIFY(family.data().toString().startsWith(model.vendors()[f]));
        QVERIFY(!model.flags(family).testFlag(Qt::ItemIsDragEnabled));
        QVERIFY(family.data(choreo::ui::KeyRole).toString().isEmpty());
        for (int row = 0; row < model.rowCount(family); ++row)
            QCOMPARE(model.index(row, CatalogDeviceModel::VendorColumn, family).data().toString(),
                     model.vendors()[f]);
    }
    const QModelIndex h100 = model.indexOf(u"h100-sxm"_s);
    QVERIFY(h100.isValid());
    QCOMPARE(h100.data(choreo::ui::KeyRole).toString(), u"h100-sxm"_s);
    const auto* device = catalog_->find("h100-sxm");
    QCOMPARE(
        model.indexOf(u"h100-sxm"_s, CatalogDeviceModel::MemoryColumn).data(choreo::ui::ValueRole).toDouble(),
        device->memory_GB.value);
    // Each device shows its scale-up fabric (the catalog's), and "none" without one.
    QCOMPARE(model.indexOf(u"h100-sxm"_s, CatalogDeviceModel::FabricColumn).data().toString(), u"nvlink4"_s);
    QCOMPARE(model.indexOf(u"tpu-v5p"_s, CatalogDeviceModel::FabricColumn).data().toString(), u"tpu-ici"_s);
    QCOMPARE(model.indexOf(u"grace"_s, CatalogDeviceModel::FabricColumn).data().toString(), u"none"_s);
    // The tooltip cites the memory figure's source by title.
    const QString tip = h100.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QString::fromStdString(catalog_->source(device->memory_GB.source)->title)),
             qPrintable(tip));
    std::unique_ptr<QMimeData> mime(model.mimeData({h100}));
    QVERIFY(mime);
    QCOMPARE(mime->data(QString::fromLatin1(choreo::ui::kDeviceMimeType)), QByteArray("h100-sxm"));
    QVERIFY(model.flags(h100).testFlag(Qt::ItemIsDragEnabled));
    QVERIFY(!model.mimeData({model.index(0, 0)})); // a family carries no device
}

void TestDevicePalette::filters() {
    CatalogDeviceModel model(*catalog_);
    choreo::ui::DeviceFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const std::size_t all = devicesOf(model).size();
    QCOMPARE(devicesOf(filter).size(), all);
    filter.setSearchText(u"H100"_s);
    QVERIFY(!devicesOf(filter).empty());
    QVERIFY(devicesOf(filter).size() < all);
    QCOMPARE(filter.rowCount(), 1); // NVIDIA alone keeps a device
    for (const QModelIndex& d : devicesOf(filter))
        QVERIFY(d.data().toString().contains(u"H100"_s, Qt::CaseInsensitive) ||
                d.data(choreo::ui::KeyRole).toString().contains(u"h100"_s));
    filter.setSearchText({});
    filter.setKind(static_cast<int>(choreo::models::DeviceKind::Cpu));
    QVERIFY(!devicesOf(filter).empty());
    for (const QModelIndex& d : devicesOf(filter))
        QCOMPARE(d.data(CatalogDeviceModel::KindRole).toInt(),
                 static_cast<int>(choreo::models::DeviceKind::Cpu));
    filter.setKind(std::nullopt);
    filter.setVendor(u"AMD"_s);
    QVERIFY(!devicesOf(filter).empty());
    for (const QModelIndex& d : devicesOf(filter, CatalogDeviceModel::VendorColumn))
        QCOMPARE(d.data().toString(), u"AMD"_s);
    filter.setSearchText(u"no such device anywhere"_s);
    QCOMPARE(filter.rowCount(), 0);
    QVERIFY(devicesOf(filter).empty());
    // Numeric columns sort by value within each family, unknown figures last.
    filter.setSearchText({});
    filter.setVendor({});
    filter.sort(CatalogDeviceModel::MemoryColumn, Qt::AscendingOrder);
    for (int f = 0; f < filter.rowCount(); ++f) {
        const QModelIndex family = filter.index(f, 0);
        double previous = 0;
        bool unknownSeen = false;
        for (int row = 0; row < filter.rowCount(family); ++row) {
            const QVariant v =
                filter.index(row, CatalogDeviceModel::MemoryColumn, family).data(choreo::ui::ValueRole);
            if (!v.isValid()) {
                unknownSeen = true;
                continue;
            }
            QVERIFY(!unknownSeen);
            QVERIFY(v.toDouble() >= previous);
            previous = v.toDouble();
        }
    }
}

void TestDevicePalette::dropAddsAPoolWithUndoRedo() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::PoolTableModel pools(&document);
    QAbstractItemModelTester tester(&pools, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QMimeData mime;
    mime.setData(QString::fromLatin1(choreo::ui::kDeviceMimeType), "mi300x");
    QVERIFY(pools.canDropMimeData(&mime, Qt::CopyAction, -1, -1, {}));
    QVERIFY(pools.dropMimeData(&mime, Qt::CopyAction, -1, -1, {}));
    const auto added = document.scenario();
    QCOMPARE(added.cluster.pools.size(), std::size_t(2));
    QCOMPARE(added.cluster.pools[1].device, std::string("mi300x"));
    QCOMPARE(added.cluster.pools[1].name, std::string("mi300x"));
    QVERIFY(added.cluster.pools[1].count >= 1);
    QCOMPARE(pools.rowCount(), 2);
    document.undoStack()->undo();
    QVERIFY(document.scenario() == original_);
    QCOMPARE(pools.rowCount(), 1);
    document.undoStack()->redo();
    QVERIFY(document.scenario() == added);
    // The same device again gets a name of its own.
    QVERIFY(pools.dropMimeData(&mime, Qt::CopyAction, -1, -1, {}));
    QCOMPARE(document.scenario().cluster.pools[2].name, std::string("mi300x-2"));

    QMimeData unknown;
    unknown.setData(QString::fromLatin1(choreo::ui::kDeviceMimeType), "no-such-device");
    QVERIFY(!pools.canDropMimeData(&unknown, Qt::CopyAction, -1, -1, {}));
    QVERIFY(!pools.dropMimeData(&unknown, Qt::CopyAction, -1, -1, {}));
    QMimeData text;
    text.setText(u"mi300x"_s);
    QVERIFY(!pools.canDropMimeData(&text, Qt::CopyAction, -1, -1, {}));
}

void TestDevicePalette::buttonAddsTheSelectedDevice() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::PoolTableModel pools(&document);
    CatalogDeviceModel devices(*catalog_);
    choreo::ui::DevicePalette palette(&devices, &pools);
    auto* add = palette.findChild<QPushButton*>(u"addDevicePoolButton"_s);
    QVERIFY(!add->isEnabled());
    palette.findChild<QLineEdit*>(u"deviceSearchEdit"_s)->setText(u"h200"_s);
    auto* view = palette.findChild<QTreeView*>(u"deviceView"_s);
    QCOMPARE(view->model()->rowCount(), 1); // NVIDIA, open
    const QModelIndex family = view->model()->index(0, 0);
    QVERIFY(view->isExpanded(family));
    QVERIFY(view->model()->rowCount(family) >= 1);
    view->setCurrentIndex(family); // a heading: nothing to add
    QVERIFY(!palette.addSelected());
    const QModelIndex first = view->model()->index(0, 0, family);
    view->setCurrentIndex(first);
    QVERIFY(add->isEnabled());
    add->click();
    QCOMPARE(document.scenario().cluster.pools.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(document.scenario().cluster.pools[1].device),
             first.data(choreo::ui::KeyRole).toString());
    document.undoStack()->undo();
    QVERIFY(document.scenario() == original_);
}

QTEST_MAIN(TestDevicePalette)
#include "tst_devicepalette.moc"
