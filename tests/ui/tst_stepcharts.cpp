// The step timeline (Gantt), power and serving curve charts: built from a result's models, exported as PNG
// and SVG, and shown as tabs of the results panel.
#include "ui/charts/ganttchart.h"
#include "ui/charts/modelchartview.h"
#include "ui/charts/powerchart.h"
#include "ui/charts/servingcurvechart.h"
#include "ui/itemmodels/powertracemodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/servingcurvemodel.h"
#include "ui/itemmodels/timelinemodel.h"
#include "ui/results/resultspanel.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <QXYSeries>

#include <algorithm>
#include <map>
#include <set>

#include "tests/ui/cannedstep.h"

using namespace Qt::StringLiterals;
using choreo::ui::PowerTraceModel;
using choreo::ui::TimelineModel;

namespace {

// A serving run whose rate search met its SLOs (TTFT 2 s, TPOT 0.2 s) up to 10 requests/s, then missed the
// TTFT bound at 12 and 16, where its queue also grew.
choreo::models::RunResult servingResult() {
    choreo::models::RunResult r;
    r.kind = "serve";
    r.device = "h100-sxm";
    r.devices = 8;
    choreo::models::ServingResult s;
    s.search.searched = true;
    s.search.ttft_slo_s = 2.0;
    s.search.tpot_slo_s = 0.2;
    s.search.max_rate_rps = 10.0;
    s.search.output_tokens_per_s_at_max = 2600.0;
    for (const auto& [rate, ttft] : std::vector<std::pair<double, double>>{
             {0.01, 0.04}, {2.5, 0.06}, {5.0, 0.08}, {10.0, 0.5}, {12.0, 4.0}, {16.0, 90.0}}) {
        choreo::models::LoadPoint p;
        p.rate_rps = rate;
        p.output_tokens_per_s = 260.0 * std::min(rate, 11.0);
        p.ttft_s.p99 = ttft;
        p.tpot_s.p99 = 0.02 + 0.005 * rate;
        p.meets_slo = rate <= 10.0;
        p.queue_grows = rate >= 16.0;
        s.search.curve.push_back(p);
    }
    r.serving = s;
    return r;
}

// Exports the view's chart both ways and checks each file holds a drawing with `titleText`.
void checkExports(choreo::ui::ModelChartView& view, const QString& titleText) {
    QTemporaryDir dir;
    QString error;
    const QString png = dir.filePath(u"chart.png"_s);
    QVERIFY2(view.exportPng(png, error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800);
    // Colour, not just background and black text: the bars or areas were drawn.
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 5)
        for (int x = 0; x < image.width(); x += 5)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 8, qPrintable(QString::number(colours.size())));
    const QString svg = dir.filePath(u"chart.svg"_s);
    QVERIFY2(view.exportSvg(svg, error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY(text.contains(u"<svg"_s));
    QVERIFY2(text.contains(titleText), qPrintable(titleText));
    QVERIFY(text.contains(u"<path"_s) || text.contains(u"<polyline"_s));
}

} // namespace

class TestStepCharts : public QObject {
    Q_OBJECT

private slots:
    void ganttChartHasARowPerStageAndAnEntryPerActivity() {
        const auto result = choreo::test::cannedStepResult(8, 16);
        TimelineModel model;
        model.setTimeline(result.timeline);
        QCOMPARE(static_cast<std::size_t>(model.rowCount()), result.timeline.intervalCount());
        QChart* chart = choreo::ui::createGanttChart(model, u"One step"_s);
        QChartView view(chart); // owns the chart; legend markers are laid out (and visible) once shown
        view.resize(900, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Eight stage rows, stage 0 on top.
        const auto axes = chart->axes(Qt::Vertical);
        QCOMPARE(axes.size(), 1);
        auto* y = qobject_cast<QCategoryAxis*>(axes.front());
        QVERIFY(y);
        QCOMPARE(y->categoriesLabels().size(), 8);
        QCOMPARE(y->categoriesLabels().back(), u"stage 0"_s);
        const auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
        QVERIFY(std::fabs(x->max() - result.step_time_s * 1e3) < 1e-6);
        // Every activity of the canned step once in the legend, however many rows draw it.
        QStringList legend;
        for (QLegendMarker* marker : chart->legend()->markers())
            if (marker->isVisible())
                legend << marker->label();
        const QStringList expected = {TimelineModel::kindName(choreo::models::ActivityKind::Forward),
                                      TimelineModel::kindName(choreo::models::ActivityKind::TensorComm),
                                      TimelineModel::kindName(choreo::models::ActivityKind::Bubble),
                                      TimelineModel::kindName(choreo::models::ActivityKind::Recompute),
                                      TimelineModel::kindName(choreo::models::ActivityKind::Backward),
                                      TimelineModel::kindName(choreo::models::ActivityKind::PipelineComm),
                                      TimelineModel::kindName(choreo::models::ActivityKind::DataComm),
                                      TimelineModel::kindName(choreo::models::ActivityKind::Optimizer)};
        QCOMPARE(QSet<QString>(legend.begin(), legend.end()),
                 QSet<QString>(expected.begin(), expected.end()));
        QCOMPARE(legend.size(), expected.size());
        // Sixteen forward bars on the last stage's row: four points each on the series' upper line.
        int forwardPoints = 0;
        for (QAbstractSeries* s : chart->series()) {
            auto* area = qobject_cast<QAreaSeries*>(s);
            if (area && area->name() == expected.front() && area->upperSeries()->at(0).y() < 1.0)
                forwardPoints = static_cast<int>(area->upperSeries()->count());
        }
        QCOMPARE(forwardPoints, 16 * 4);
    }

    void powerChartStacksToTheTotal() {
        const auto result = choreo::test::cannedStepResult(4, 8);
        PowerTraceModel model;
        model.setResult(result);
        QVERIFY(model.rowCount() > 0);
        std::unique_ptr<QChart> chart(choreo::ui::createPowerChart(model));
        QVERIFY(chart->title().contains(u"per run"_s));
        QList<QAreaSeries*> areas;
        for (QAbstractSeries* s : chart->series())
            if (auto* a = qobject_cast<QAreaSeries*>(s))
                areas << a;
        QCOMPARE(areas.size(), 4);
        // The top of the stack in each bin is the total (kW: well under a megawatt here).
        const QLineSeries* top = areas.back()->upperSeries();
        for (int row = 0; row < model.rowCount(); row += 17)
            QVERIFY(std::fabs(top->at(2 * row).y() - model.index(row, PowerTraceModel::TotalColumn)
                                                         .data(choreo::ui::ValueRole)
                                                         .toDouble()) < 1e-9);
        // The example has no CPU pool and no sourced network power: both say so in the legend and the notes.
        QVERIFY(areas[1]->name().contains(u"0 W"_s));
        QVERIFY(areas[2]->name().contains(u"0 W"_s));
        QVERIFY(model.notes().contains(u"no CPU pool"_s));
        // Energy per step is the trace's integral, and the cooling is the PUE's share of it.
        QVERIFY(std::fabs(model.energyPerStep_J() - 1.3 * result.power.itEnergy_J()) <
                1e-6 * model.energyPerStep_J());
    }

    void bothChartsExportPngAndSvg() {
        const auto result = choreo::test::cannedStepResult(8, 16);
        TimelineModel timeline;
        timeline.setTimeline(result.timeline);
        choreo::ui::ModelChartView gantt(&timeline, [&](const QAbstractItemModel&) {
            return choreo::ui::createGanttChart(timeline, u"Timeline of one step"_s);
        });
        gantt.resize(900, 500);
        gantt.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gantt));
        checkExports(gantt, u"Timeline of one step"_s);

        PowerTraceModel power;
        power.setResult(result);
        choreo::ui::ModelChartView chart(
            &power, [&](const QAbstractItemModel&) { return choreo::ui::createPowerChart(power); });
        chart.resize(900, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        checkExports(chart, u"Power over one step"_s);
    }

    void servingCurveShowsTheLoadsAndTheSlos() {
        choreo::ui::ServingCurveModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(servingResult());
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.index(4, choreo::ui::ServingCurveModel::TtftP99Column)
                     .data(choreo::ui::ValueRole)
                     .toDouble(),
                 4000.0);
        QCOMPARE(model.index(4, choreo::ui::ServingCurveModel::MeetsColumn).data().toString(), u"no"_s);
        QCOMPARE(model.index(5, choreo::ui::ServingCurveModel::MeetsColumn).data().toString(),
                 u"no: the queue grows"_s);
        QCOMPARE(model.ttftSlo_ms(), std::optional<double>(2000.0));
        std::unique_ptr<QChart> chart(choreo::ui::createServingCurveChart(model));
        QVERIFY(chart->title().contains(u"8 x h100-sxm"_s));
        std::map<QString, int> points; // series name -> points
        for (QAbstractSeries* s : chart->series())
            if (auto* xy = qobject_cast<QXYSeries*>(s))
                points[xy->name()] = static_cast<int>(xy->count());
        QCOMPARE(points[u"TTFT p99"_s], 6);
        QCOMPARE(points[u"TPOT p99"_s], 6);
        QCOMPARE(points[u"TTFT SLO 2,000 ms"_s], 2);
        QCOMPARE(points[u"TPOT SLO 200 ms"_s], 2);
        QCOMPARE(points[u"Misses an SLO or not sustained"_s], 2);
        QVERIFY(std::any_of(points.begin(), points.end(),
                            [](const auto& p) { return p.first.startsWith(u"Max rate in the SLOs: 10"_s); }));
        // A training result has no curve: an empty chart that says why.
        model.setResult(choreo::test::cannedStepResult(4, 8));
        QCOMPARE(model.rowCount(), 0);
        std::unique_ptr<QChart> empty(choreo::ui::createServingCurveChart(model));
        QVERIFY(empty->series().isEmpty());
    }

    void resultsPanelShowsAServingRunsCurve() {
        choreo::ui::ResultsPanel panel;
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.showBaseResult(servingResult());
        auto* tabs = panel.findChild<QTabWidget*>();
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(tabs->currentIndex()), u"Serving"_s);
        auto* chart = panel.findChild<choreo::ui::ModelChartView*>(u"servingChart"_s);
        QVERIFY(chart);
        QTRY_VERIFY(!chart->chart()->series().isEmpty());
        // No step to break down in a serving run.
        QVERIFY(!panel.findChild<choreo::ui::ModelChartView*>(u"breakdownChart"_s)->isVisible());
        panel.showBaseResult(choreo::test::cannedStepResult(4, 8));
        QVERIFY(panel.findChild<choreo::ui::ModelChartView*>(u"breakdownChart"_s)->isVisible());
    }

    void resultsPanelShowsBothTabs() {
        choreo::ui::ResultsPanel panel;
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.showBaseResult(choreo::test::cannedStepResult(4, 8));
        QVERIFY(panel.showPageTitled(u"Step timeline"_s));
        QVERIFY(panel.showPageTitled(u"power"_s));
        QVERIFY(!panel.showPageTitled(u"no such tab"_s));
        auto* gantt = panel.findChild<choreo::ui::ModelChartView*>(u"ganttChart"_s);
        auto* power = panel.findChild<choreo::ui::ModelChartView*>(u"powerChart"_s);
        QVERIFY(gantt && power);
        // The charts rebuild on the next event loop pass after the models change.
        QTRY_VERIFY(!gantt->chart()->series().isEmpty());
        QTRY_VERIFY(!power->chart()->series().isEmpty());
        QVERIFY(gantt->chart()->title().contains(u"flow"_s));
        panel.clear();
        QCOMPARE(panel.timelineModel()->rowCount(), 0);
        QTRY_VERIFY(gantt->chart()->series().isEmpty());
    }
};

QTEST_MAIN(TestStepCharts)
#include "tst_stepcharts.moc"
