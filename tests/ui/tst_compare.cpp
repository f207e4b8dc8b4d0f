// The compare view: two to four scenarios (snapshots or files) as columns, run together by workers,
// the best value of each result row marked; a bad file is refused with the field named.
#include "ui/compare/comparedialog.h"
#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/comparemodel.h"
#include "ui/itemmodels/roles.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QFont>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::CompareModel;

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void snapshotsAndFilesRunSideBySide();
    void atMostFour();
    void badFileNamesTheField();

private:
    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
};

void TestCompare::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_.has_value());
    original_ = *choreo::test::loadDefaultScenario();
}

void TestCompare::snapshotsAndFilesRunSideBySide() {
    choreo::ui::Document document(*catalog_, original_);
    // The fake worker's throughput grows with the pool: the larger pool must be the best on tokens/s.
    choreo::ui::CompareDialog dialog(&document, choreo::test::fakeWorker(u"scenario"_s));
    QAbstractItemModelTester tester(dialog.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(dialog.addSnapshot());
    auto bigger = original_;
    bigger.cluster.pools.front().count = 256;
    bigger.workload.parallel.dp = 16;
    document.edit(bigger, choreo::ui::NoMerge, u"grow"_s);
    QVERIFY(dialog.addSnapshot());
    QString error;
    QVERIFY2(dialog.addFile(QString::fromStdString(choreo::test::defaultScenarioPath().string()), error),
             qPrintable(error));
    auto* model = dialog.model();
    QCOMPARE(model->columnCount(), 3);
    QCOMPARE(model->index(CompareModel::DevicesRow, 0).data(choreo::ui::ValueRole).toDouble(), 128.0);
    QCOMPARE(model->index(CompareModel::DevicesRow, 1).data(choreo::ui::ValueRole).toDouble(), 256.0);
    QCOMPARE(model->headerData(2, Qt::Horizontal).toString(), u"default.json"_s);

    QSignalSpy done(&dialog, &choreo::ui::CompareDialog::runFinished);
    dialog.runAll(u"analytical"_s);
    QVERIFY(done.wait(30000));
    for (int c = 0; c < 3; ++c)
        QVERIFY(model->entries()[static_cast<std::size_t>(c)].state == CompareModel::State::Succeeded);
    QCOMPARE(model->index(CompareModel::ThroughputRow, 1).data(choreo::ui::ValueRole).toDouble(),
             2.0 * model->index(CompareModel::ThroughputRow, 0).data(choreo::ui::ValueRole).toDouble());
    QVERIFY(model->index(CompareModel::ThroughputRow, 1).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model->index(CompareModel::ThroughputRow, 0).data(Qt::FontRole).isValid());
    // Input rows are never marked.
    QVERIFY(!model->index(CompareModel::DevicesRow, 1).data(Qt::FontRole).isValid());

    model->remove(1);
    QCOMPARE(model->columnCount(), 2);
    // With the best one gone, the two equal ones tie: both bold.
    QVERIFY(model->index(CompareModel::ThroughputRow, 0).data(Qt::FontRole).value<QFont>().bold());
}

void TestCompare::atMostFour() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::CompareDialog dialog(&document, choreo::test::fakeWorker(u"scenario"_s));
    for (int i = 0; i < CompareModel::kMaxScenarios; ++i)
        QVERIFY(dialog.addSnapshot());
    QVERIFY(!dialog.addSnapshot());
    QString error;
    QVERIFY(!dialog.addFile(QString::fromStdString(choreo::test::defaultScenarioPath().string()), error));
    QVERIFY(error.contains(u"At most 4"_s));
}

void TestCompare::badFileNamesTheField() {
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::CompareDialog dialog(&document, choreo::test::fakeWorker(u"scenario"_s));
    QTemporaryDir dir;
    QFile file(dir.filePath(u"bad.json"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QFile original(QString::fromStdString(choreo::test::defaultScenarioPath().string()));
    QVERIFY(original.open(QIODevice::ReadOnly));
    file.write(original.readAll().replace("\"layers\": 80", "\"layers\": -3"));
    file.close();
    QString error;
    QVERIFY(!dialog.addFile(file.fileName(), error));
    QVERIFY2(error.contains(u"workload.model.layers"_s), qPrintable(error));
    QCOMPARE(dialog.model()->columnCount(), 0);
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
