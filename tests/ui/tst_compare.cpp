// The compare view: two to four scenarios (snapshots or files) as columns, run together by workers,
// the best value of each result row marked (serving devices at equal SLOs too); a bad file is refused
// with the field named. Under the table,
// charts overlay the scenarios (one bar, line or point each, in the same colour) and export PNG and SVG.
#include "ui/charts/chartstyle.h"
#include "ui/charts/comparecharts.h"
#include "ui/charts/modelchartview.h"
#include "ui/compare/comparedialog.h"
#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/comparemodel.h"
#include "ui/itemmodels/roles.h"

#include <QAbstractItemModelTester>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QFile>
#include <QFont>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStackedBarSeries>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

#include "tests/ui/cannedstep.h"
#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::CompareModel;

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void snapshotsAndFilesRunSideBySide();
    void chartsOverlayEveryScenario();
    void hybridPartsJoinTheBreakdown();
    void atMostFour();
    void badFileNamesTheField();
    void servingDevicesAtEqualSlos();

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
    // Each pool of each result, and its bottleneck.
    QCOMPARE(model->headerData(CompareModel::PoolsRow, Qt::Vertical).toString(), u"Pools"_s);
    QCOMPARE(model->index(CompareModel::PoolsRow, 1).data().toString(),
             u"gpus: 256 × h100-sxm, train, busy 75.0 %, $5,000"_s);
    QCOMPARE(model->index(CompareModel::BottleneckRow, 0).data().toString(), u"train on gpus"_s);

    model->remove(1);
    QCOMPARE(model->columnCount(), 2);
    // With the best one gone, the two equal ones tie: both bold.
    QVERIFY(model->index(CompareModel::ThroughputRow, 0).data(Qt::FontRole).value<QFont>().bold());
}

namespace {

QStackedBarSeries* barsOf(const QChart& chart) {
    for (QAbstractSeries* s : chart.series())
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
            return bars;
    return nullptr;
}

template <typename Series>
QList<Series*> seriesOf(const QChart& chart) {
    QList<Series*> out;
    for (QAbstractSeries* s : chart.series())
        if (s->type() != QAbstractSeries::SeriesTypeBar && s->type() != QAbstractSeries::SeriesTypeStackedBar)
            if (auto* x = qobject_cast<Series*>(s); x && x->metaObject() == &Series::staticMetaObject)
                out << x;
    return out;
}

QStringList categoriesOf(const QChart& chart) {
    const auto axes = chart.axes(Qt::Horizontal);
    for (QAbstractAxis* a : axes)
        if (auto* c = qobject_cast<QBarCategoryAxis*>(a))
            return c->categories();
    return {};
}

} // namespace

void TestCompare::chartsOverlayEveryScenario() {
    // Three scenarios: 128 devices, 256 devices, and one the fake worker fails (by its name).
    choreo::ui::Document document(*catalog_, original_);
    choreo::ui::CompareDialog dialog(&document, choreo::test::fakeWorker(u"scenario"_s));
    dialog.resize(1280, 800);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(dialog.addSnapshot());
    auto bigger = original_;
    bigger.cluster.pools.front().count = 256;
    bigger.workload.parallel.dp = 16;
    document.edit(bigger, choreo::ui::NoMerge, u"grow"_s);
    QVERIFY(dialog.addSnapshot());
    auto failing = bigger;
    failing.name = "fail here";
    document.edit(failing, choreo::ui::NoMerge, u"rename"_s);
    QVERIFY(dialog.addSnapshot());
    const auto& charts = dialog.charts();
    QCOMPARE(charts.size(), 5); // step time, power, time and cost, memory, serving
    QCOMPARE(charts[4]->objectName(), u"compareServingChart"_s);
    auto* breakdown = charts[0];
    auto* power = charts[1];
    auto* cost = charts[2];
    auto* memory = charts[3];
    QCOMPARE(breakdown->objectName(), u"compareBreakdownChart"_s);
    // Adding columns rebuilds the charts: one (empty) bar per scenario before any run.
    QTRY_COMPARE(categoriesOf(*breakdown->chart()).size(), 3);
    QVERIFY(categoriesOf(*breakdown->chart())[0].contains(u"not run"_s));

    QSignalSpy done(&dialog, &choreo::ui::CompareDialog::runFinished);
    dialog.runAll(u"analytical"_s);
    QVERIFY(done.wait(30000));
    QVERIFY(dialog.model()->entries()[2].state == CompareModel::State::Failed);

    // Step-time breakdown: compute, communication, bubble, one value per scenario; the failed one empty.
    QTRY_VERIFY(categoriesOf(*breakdown->chart()).value(2).contains(u"failed"_s));
    QStackedBarSeries* bars = barsOf(*breakdown->chart());
    QVERIFY(bars);
    QCOMPARE(bars->count(), 3);
    const double segments[] = {1.5, 0.3, 0.2}; // the fake worker's breakdown
    for (int s = 0; s < 3; ++s) {
        QCOMPARE(bars->barSets()[s]->count(), 3);
        QCOMPARE(bars->barSets()[s]->at(0), segments[s]);
        QCOMPARE(bars->barSets()[s]->at(1), segments[s]);
        QCOMPARE(bars->barSets()[s]->at(2), 0.0);
    }
    QVERIFY(categoriesOf(*breakdown->chart())[1].contains(u"Snapshot 2"_s));
    QVERIFY(categoriesOf(*breakdown->chart())[1].contains(choreo::ui::chartstyle::kScenario[1].name()));

    // Power: one line per scenario with a result, on 0-100 % of the step, in kW, in the scenario's colour.
    auto lines = seriesOf<QLineSeries>(*power->chart());
    QCOMPARE(lines.size(), 2);
    for (int c = 0; c < 2; ++c) {
        const double devices = c == 0 ? 128.0 : 256.0;
        QVERIFY2(lines[c]->name().startsWith(u"Snapshot %1: 100 kWh per run"_s.arg(c + 1)),
                 qPrintable(lines[c]->name()));
        QCOMPARE(lines[c]->pen().color(), choreo::ui::chartstyle::kScenario[static_cast<std::size_t>(c)]);
        const QList<QPointF> points = lines[c]->points();
        QCOMPARE(points.size(), 4);
        QCOMPARE(points[0], QPointF(0.0, 0.77 * devices));
        QCOMPARE(points[1], QPointF(25.0, 0.77 * devices));
        QCOMPARE(points[2], QPointF(25.0, 0.11 * devices));
        QCOMPARE(points[3], QPointF(100.0, 0.11 * devices));
    }

    // Time against cost: one labelled point per scenario with a result (days, k$).
    auto points = seriesOf<QScatterSeries>(*cost->chart());
    QCOMPARE(points.size(), 2);
    for (int c = 0; c < 2; ++c) {
        QCOMPARE(points[c]->name(), u"Snapshot %1"_s.arg(c + 1));
        QVERIFY(points[c]->pointLabelsVisible());
        QCOMPARE(points[c]->points(), QList<QPointF>{QPointF(2000.0 / 86400.0, 5.0)});
        QCOMPARE(points[c]->color(), choreo::ui::chartstyle::kScenario[static_cast<std::size_t>(c)]);
    }

    // Memory: weights .. buffers per scenario, and a capacity mark across each bar (one legend entry).
    bars = barsOf(*memory->chart());
    QVERIFY(bars);
    QCOMPARE(bars->count(), 5);
    const double parts[] = {10.0, 10.0, 20.0, 15.0, 5.0};
    for (int s = 0; s < 5; ++s) {
        QCOMPARE(bars->barSets()[s]->at(0), parts[s]);
        QCOMPARE(bars->barSets()[s]->at(1), parts[s]);
    }
    const choreo::models::Device* device = catalog_->find(original_.cluster.pools.front().device);
    QVERIFY(device);
    const double capacity = device->memory_GB.value;
    auto marks = seriesOf<QLineSeries>(*memory->chart());
    QCOMPARE(marks.size(), 3);
    int visibleMarkers = 0;
    for (int c = 0; c < 3; ++c) {
        QCOMPARE(marks[c]->points(),
                 (QList<QPointF>{QPointF(c - 0.4, capacity), QPointF(c + 0.4, capacity)}));
        visibleMarkers += memory->chart()->legend()->markers(marks[c]).front()->isVisible() ? 1 : 0;
    }
    QCOMPARE(visibleMarkers, 1);

    // Each chart exports as PNG and SVG once its tab is shown.
    QTemporaryDir dir;
    for (int i = 0; i < charts.size(); ++i) {
        dialog.showChart(i);
        QTRY_VERIFY(charts[i]->isVisible());
        QString error;
        const QString png = dir.filePath(u"chart%1.png"_s.arg(i));
        const QString svg = dir.filePath(u"chart%1.svg"_s.arg(i));
        QVERIFY2(charts[i]->exportPng(png, error), qPrintable(error));
        QVERIFY2(charts[i]->exportSvg(svg, error), qPrintable(error));
        QVERIFY(!QImage(png).isNull());
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("<svg"));
    }

    // Removing a scenario rebuilds the charts without it.
    dialog.model()->remove(0);
    QTRY_COMPARE(seriesOf<QLineSeries>(*power->chart()).size(), 1);
    QVERIFY(seriesOf<QLineSeries>(*power->chart()).front()->name().startsWith(u"Snapshot 2"_s));
    QCOMPARE(barsOf(*breakdown->chart())->barSets()[0]->count(), 2);
    QCOMPARE(seriesOf<QScatterSeries>(*cost->chart()).size(), 1);
}

// Two devices serving under the same SLOs: the rate each sustains within them, the tokens/s there, and the
// price of a million tokens at that rate (its pools' $/h over the tokens an hour), best marked in bold; a
// device that cannot meet them says so, and a training scenario leaves the rows empty.
void TestCompare::servingDevicesAtEqualSlos() {
    CompareModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto serving = [](double maxRate, double tokensAtMax, double usdPerHour, double joules) {
        choreo::models::RunResult r;
        r.kind = "serve";
        choreo::models::ServingResult s;
        s.search.searched = true;
        s.search.ttft_slo_s = 2.0;
        if (maxRate > 0) // two loads: one within the SLO, one past the knee
            for (const double f : {0.5, 1.2}) {
                choreo::models::LoadPoint p;
                p.rate_rps = f * maxRate;
                p.output_tokens_per_s = f * tokensAtMax;
                p.ttft_s.p99 = f < 1.0 ? 0.1 : 30.0;
                p.tpot_s.p99 = 0.03;
                p.meets_slo = f < 1.0;
                s.search.curve.push_back(p);
            }
        if (maxRate > 0)
            s.search.max_rate_rps = maxRate;
        s.search.output_tokens_per_s_at_max = tokensAtMax;
        s.usd_per_hour = usdPerHour;
        s.joules_per_token = joules;
        r.serving = s;
        return r;
    };
    for (const char* title : {"h100", "l40s", "slow", "training"})
        QVERIFY(
            model.add({QString::fromLatin1(title), {}, original_, 0, CompareModel::State::NotRun, {}, {}}));
    model.setResult(0, serving(40.0, 12000.0, 32.0, 2.0));
    model.setResult(1, serving(10.0, 3000.0, 4.0, 1.5));
    model.setResult(2, serving(0.0, 0.0, 8.0, 3.0));
    model.setResult(3, choreo::test::cannedStepResult(4, 8));
    auto value = [&](int row, int column) { return model.index(row, column).data(choreo::ui::ValueRole); };
    QCOMPARE(value(CompareModel::ServingRateRow, 0).toDouble(), 40.0);
    // $32/h over 12,000 tokens/s = $0.741 a million; $4/h over 3,000 tokens/s = $0.370.
    QVERIFY(std::fabs(value(CompareModel::UsdPerMillionTokensRow, 0).toDouble() - 32.0 / 43.2) < 1e-9);
    QVERIFY(std::fabs(value(CompareModel::UsdPerMillionTokensRow, 1).toDouble() - 4.0 / 10.8) < 1e-9);
    auto bold = [&](int row, int column) {
        return model.index(row, column).data(Qt::FontRole).value<QFont>().bold();
    };
    QVERIFY(bold(CompareModel::ServingRateRow, 0));         // more requests/s is better
    QVERIFY(bold(CompareModel::UsdPerMillionTokensRow, 1)); // fewer dollars are better
    QVERIFY(bold(CompareModel::JoulesPerTokenRow, 1));
    QCOMPARE(model.index(CompareModel::ServingRateRow, 2).data().toString(), u"misses the SLOs"_s);
    // A serving run has no step: its training rows stay empty rather than zero (and never "best").
    QVERIFY(model.index(CompareModel::StepTimeRow, 0).data().toString().isEmpty());
    QVERIFY(!model.index(CompareModel::StepTimeRow, 0).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!value(CompareModel::UsdPerMillionTokensRow, 2).isValid());
    QVERIFY(model.index(CompareModel::ServingRateRow, 3).data().toString().isEmpty());
    // The serving chart overlays the curves that exist: TTFT and TPOT for two scenarios, one SLO line.
    std::unique_ptr<QChart> chart(choreo::ui::createCompareServingChart(model));
    QCOMPARE(seriesOf<QLineSeries>(*chart).size(), 5);
    QCOMPARE(seriesOf<QLineSeries>(*chart).front()->name(), u"h100"_s);
    QCOMPARE(seriesOf<QLineSeries>(*chart).back()->name(), u"SLO 2,000 ms"_s);
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
// A compared run that waits for its data stage shows that wait in the breakdown, so that its bar reaches its
// step time; a dense run alone has no such segment.
void TestCompare::hybridPartsJoinTheBreakdown() {
    CompareModel model;
    const auto withBreakdown = [](double dataWait) {
        choreo::models::RunResult r = choreo::test::cannedStepResult(4, 8);
        r.breakdown = {1.5, 0.3, 0.2, dataWait, 0.0};
        r.step_time_s = 2.0 + dataWait;
        return r;
    };
    for (int c = 0; c < 2; ++c) {
        CompareModel::Entry e;
        e.title = QString::number(c);
        e.scenario = original_;
        QVERIFY(model.add(e));
    }
    model.setResult(0, withBreakdown(0.0));
    model.setResult(1, withBreakdown(0.0));
    std::unique_ptr<QChart> dense(choreo::ui::createCompareBreakdownChart(model));
    QCOMPARE(barsOf(*dense)->count(), 3);
    model.setResult(1, withBreakdown(1.25));
    std::unique_ptr<QChart> hybrid(choreo::ui::createCompareBreakdownChart(model));
    QStackedBarSeries* bars = barsOf(*hybrid);
    QCOMPARE(bars->count(), 4);
    QCOMPARE(bars->barSets()[3]->label(), u"Waiting for data"_s);
    QCOMPARE(bars->barSets()[3]->at(0), 0.0);
    QCOMPARE(bars->barSets()[3]->at(1), 1.25);
}

#include "tst_compare.moc"
