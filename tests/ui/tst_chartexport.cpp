// Charts: every chart view exports PNG and SVG, whole or not at all; the Pareto chart names the options on
// the front; the memory chart draws the capacity line.
#include "ui/charts/chartexport.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/modelchartview.h"
#include "ui/charts/paretochart.h"
#include "ui/itemmodels/hardwareoptionmodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/reports/validationchartfile.h"

#include <QChart>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "tests/fulldisk.h"

using namespace Qt::StringLiterals;
using choreo::ui::HardwareOptionModel;

namespace {

choreo::ui::SweepOutcome option(const QString& label, double days, double usd) {
    choreo::ui::SweepOutcome o;
    o.label = label;
    o.state = choreo::ui::SweepOutcome::State::Succeeded;
    o.result = choreo::models::RunResult{};
    o.result->time_to_train_s = days * 86400.0;
    o.result->cost_usd = usd;
    return o;
}

// Two options in `model`, shown as a Pareto chart 640 x 400.
std::unique_ptr<choreo::ui::ModelChartView> paretoView(HardwareOptionModel& model) {
    model.setOutcomes({option(u"Fast"_s, 10, 9e6), option(u"Cheap"_s, 40, 3e6)}, {u"a"_s, u"b"_s});
    auto view = std::make_unique<choreo::ui::ModelChartView>(&model, [](const QAbstractItemModel& m) {
        return choreo::ui::createParetoChart(m,
                                             {HardwareOptionModel::DeviceColumn,
                                              HardwareOptionModel::TimeToTrainColumn,
                                              HardwareOptionModel::CostColumn},
                                             u"Time to train vs total cost"_s);
    });
    view->resize(640, 400);
    view->show();
    return view;
}

QStringList seriesNames(const QChart& chart) {
    QStringList names;
    for (const QAbstractSeries* s : chart.series())
        names << s->name();
    return names;
}

} // namespace

class TestChartExport : public QObject {
    Q_OBJECT

private slots:
    void paretoChartMarksTheFront();
    void exportsPngAndSvg();
    void unshownChartIsAnError();
    void fullDiskKeepsTheEarlierChart();
    void memoryChartHasCapacityLine();
};

void TestChartExport::paretoChartMarksTheFront() {
    HardwareOptionModel model;
    model.setOutcomes(
        {option(u"Fast"_s, 10, 9e6), option(u"Cheap"_s, 40, 3e6), option(u"Worse"_s, 45, 9.5e6)},
        {u"a"_s, u"b"_s, u"c"_s});
    std::unique_ptr<QChart> chart(choreo::ui::createParetoChart(model,
                                                                {HardwareOptionModel::DeviceColumn,
                                                                 HardwareOptionModel::TimeToTrainColumn,
                                                                 HardwareOptionModel::CostColumn},
                                                                u"t"_s));
    const QStringList names = seriesNames(*chart);
    QVERIFY(names.contains(u"Fast"_s));
    QVERIFY(names.contains(u"Cheap"_s));
    QVERIFY(!names.contains(u"Worse"_s)); // dominated: in the grey series, not named
    for (QAbstractSeries* s : chart->series()) {
        if (s->name() == u"Pareto front"_s) {
            auto* line = static_cast<QLineSeries*>(s);
            QCOMPARE(line->count(), 2);
            QCOMPARE(line->at(0).x(), 10.0); // left to right
            QCOMPARE(line->at(1).y(), 3.0);  // millions of dollars
        }
        if (s->name() == u"dominated option"_s)
            QCOMPARE(static_cast<QScatterSeries*>(s)->count(), 1);
    }
}

void TestChartExport::exportsPngAndSvg() {
    HardwareOptionModel model;
    const auto shown = paretoView(model);
    choreo::ui::ModelChartView& view = *shown;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTemporaryDir dir;
    QString error;
    const QString png = dir.filePath(u"chart.png"_s);
    QVERIFY2(view.exportPng(png, error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 640);
    // Not a blank picture: the plot drew something other than the background.
    bool drawn = false;
    for (int y = 0; y < image.height() && !drawn; y += 7)
        for (int x = 0; x < image.width() && !drawn; x += 7)
            drawn = image.pixelColor(x, y) != image.pixelColor(0, 0);
    QVERIFY(drawn);

    const QString svg = dir.filePath(u"chart.svg"_s);
    QVERIFY2(view.exportSvg(svg, error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("Time to train vs total cost"));
    QVERIFY(text.contains("<path") || text.contains("<polyline"));

    QVERIFY(!view.exportPng(dir.filePath(u"no/such/folder/chart.png"_s), error));
    QVERIFY(error.contains(u"cannot be written"_s));
}

void TestChartExport::unshownChartIsAnError() {
    QChart chart; // in no scene
    QString error;
    QTemporaryDir dir;
    QVERIFY(!choreo::ui::exportChartSvg(chart, dir.filePath(u"x.svg"_s), error));
    QVERIFY(error.contains(u"not shown"_s));
}

namespace {

QByteArray contentsOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

void TestChartExport::fullDiskKeepsTheEarlierChart() {
    // The disk fills while a chart is written over an earlier one: the export fails, names the file, and
    // leaves the earlier chart whole and no temporary beside it. The view's PNG and SVG, and validate
    // --chart's SVG, PNG and PDF.
    HardwareOptionModel model;
    const auto shown = paretoView(model);
    choreo::ui::ModelChartView& view = *shown;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTemporaryDir dir;
    const std::vector<choreo::ui::ValidationChartRow> rows{{"run a", "H100", 10.0, 9.0, 0, 0},
                                                           {"run b", "H200", 8.0, 8.5, 0, 0}};
    for (const QString& name :
         {u"view.png"_s, u"view.svg"_s, u"valid.svg"_s, u"valid.png"_s, u"valid.pdf"_s}) {
        const QString path = dir.filePath(name);
        QString error;
        const auto write = [&] {
            if (name.startsWith(u"valid"_s)) {
                int argc = 0;
                error = QString::fromStdString(
                    choreo::ui::writeValidationChart(argc, nullptr, rows, "t", path.toStdString()));
                return error.isEmpty();
            }
            return name.endsWith(u".png"_s) ? view.exportPng(path, error) : view.exportSvg(path, error);
        };
        QVERIFY2(write(), qPrintable(error));
        const QByteArray earlier = contentsOf(path);
        QVERIFY(earlier.size() > 1024);
        bool written = true;
        {
            choreo::testing::FullDisk full(1024);
            if (!full.active())
                QSKIP("cannot limit the file size here");
            written = write();
        }
        QVERIFY2(!written, qPrintable(name));
        QVERIFY2(error.contains(path), qPrintable(error));
        QCOMPARE(contentsOf(path), earlier);
        QCOMPARE(QDir(dir.path()).entryList({name + u"*"_s}, QDir::Files), QStringList{name});
    }
}

void TestChartExport::memoryChartHasCapacityLine() {
    QStandardItemModel model(2, 3);
    model.setHorizontalHeaderLabels({u"Stage"_s, u"Weights (GB)"_s, u"Activations (GB)"_s});
    for (int row = 0; row < 2; ++row) {
        model.setData(model.index(row, 0), QString::number(row));
        model.setData(model.index(row, 1), 30.0, choreo::ui::ValueRole);
        model.setData(model.index(row, 2), 20.0 + 40.0 * row, choreo::ui::ValueRole);
    }
    std::unique_ptr<QChart> chart(choreo::ui::createMemoryChart(model, {0, {1, 2}}, 80.0, u"m"_s));
    const QStringList names = seriesNames(*chart);
    QVERIFY(names.contains(u"capacity 80 GB"_s));
    std::unique_ptr<QChart> none(choreo::ui::createMemoryChart(model, {0, {1, 2}}, 0.0, u"m"_s));
    QCOMPARE(none->series().size(), 1); // just the bars
}

QTEST_MAIN(TestChartExport)
#include "tst_chartexport.moc"
