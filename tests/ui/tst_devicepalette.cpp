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

void TestDevicePalette::modelShowsTheCatalogWithSources() {
    CatalogDeviceModel model(*catalog_);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), int(catalog_->devices().size()));
    int h100 = -1;
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, 0).data(choreo::ui::KeyRole).toString() == u"h100-sxm"_s)
            h100 = row;
    QVERIFY(h100 >= 0);
    const auto* device = catalog_->find("h100-sxm");
    QCOMPARE(model.index(h100, CatalogDeviceModel::MemoryColumn).data(choreo::ui::ValueRole).toDouble(),
             device->memory_GB.value);
    // The tooltip cites the memory figure's source by title.
    const QString tip = model.index(h100, CatalogDeviceModel::NameColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QString::fromStdString(catalog_->source(device->memory_GB.source)->title)),
             qPrintable(tip));
    std::unique_ptr<QMimeData> mime(model.mimeData({model.index(h100, 0)}));
    QVERIFY(mime);
    QCOMPARE(mime->data(QString::fromLatin1(choreo::ui::kDeviceMimeType)), QByteArray("h100-sxm"));
    QVERIFY(model.flags(model.index(h100, 0)).testFlag(Qt::ItemIsDragEnabled));
}

void TestDevicePalette::filters() {
    CatalogDeviceModel model(*catalog_);
    choreo::ui::DeviceFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(filter.rowCount(), model.rowCount());
    filter.setSearchText(u"H100"_s);
    QVERIFY(filter.rowCount() >= 1);
    QVERIFY(filter.rowCount() < model.rowCount());
    for (int row = 0; row < filter.rowCount(); ++row)
        QVERIFY(filter.index(row, 0).data().toString().contains(u"H100"_s, Qt::CaseInsensitive) ||
                filter.index(row, 0).data(choreo::ui::KeyRole).toString().contains(u"h100"_s));
    filter.setSearchText({});
    filter.setKind(static_cast<int>(choreo::models::DeviceKind::Cpu));
    QVERIFY(filter.rowCount() >= 1);
    for (int row = 0; row < filter.rowCount(); ++row)
        QCOMPARE(filter.index(row, 0).data(CatalogDeviceModel::KindRole).toInt(),
                 static_cast<int>(choreo::models::DeviceKind::Cpu));
    filter.setKind(std::nullopt);
    filter.setVendor(u"AMD"_s);
    QVERIFY(filter.rowCount() >= 1);
    for (int row = 0; row < filter.rowCount(); ++row)
        QCOMPARE(filter.index(row, CatalogDeviceModel::VendorColumn).data().toString(), u"AMD"_s);
    filter.setSearchText(u"no such device anywhere"_s);
    QCOMPARE(filter.rowCount(), 0);
    // Numeric columns sort by value, unknown figures last.
    filter.setSearchText({});
    filter.setVendor({});
    filter.sort(CatalogDeviceModel::MemoryColumn, Qt::AscendingOrder);
    double previous = 0;
    bool unknownSeen = false;
    for (int row = 0; row < filter.rowCount(); ++row) {
        const QVariant v = filter.index(row, CatalogDeviceModel::MemoryColumn).data(choreo::ui::ValueRole);
        if (!v.isValid()) {
            unknownSeen = true;
            continue;
        }
        QVERIFY(!unknownSeen);
        QVERIFY(v.toDouble() >= previous);
        previous = v.toDouble();
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
    QVERIFY(view->model()->rowCount() >= 1);
    view->setCurrentIndex(view->model()->index(0, 0));
    QVERIFY(add->isEnabled());
    add->click();
    QCOMPARE(document.scenario().cluster.pools.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(document.scenario().cluster.pools[1].device),
             view->model()->index(0, 0).data(choreo::ui::KeyRole).toString());
    document.undoStack()->undo();
    QVERIFY(document.scenario() == original_);
}

QTEST_MAIN(TestDevicePalette)
#include "tst_devicepalette.moc"
