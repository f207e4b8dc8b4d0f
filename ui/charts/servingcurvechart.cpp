#include "ui/charts/servingcurvechart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/servingcurvemodel.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

const QColor kTtft = chartstyle::kThroughput;
const QColor kTpot = chartstyle::kCommunication;

double cell(const ServingCurveModel& model, int row, int column) {
    return model.index(row, column).data(ValueRole).toDouble();
}

// One latency series (p99 against throughput), its points that miss the SLOs marked, attached to `x`, `y`.
void addLatency(QChart& chart, const ServingCurveModel& model, int column, const QString& name,
                const QColor& color, QAbstractAxis* x, QAbstractAxis* y) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPen(QPen(color, 2.0));
    line->setPointsVisible(true);
    for (int row = 0; row < model.rowCount(); ++row) // a log axis has no place for 0
        if (const double ms = cell(model, row, column); ms > 0.0)
            line->append(cell(model, row, ServingCurveModel::ThroughputColumn), ms);
    chart.addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
}

// A dashed horizontal line at an SLO, across the throughput axis.
void addSlo(QChart& chart, double slo_ms, double xMax, const QString& name, const QColor& color,
            QAbstractAxis* x, QAbstractAxis* y) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPen(QPen(color, 1.5, Qt::DashLine));
    line->append(0.0, slo_ms);
    line->append(xMax, slo_ms);
    chart.addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
}

} // namespace

QChart* createServingCurveChart(const ServingCurveModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    const int rows = model.rowCount();
    if (rows == 0) {
        chart->setTitle(QObject::tr("Latency against throughput (a serving run with SLOs searches it)"));
        return chart;
    }
    chart->setTitle(QObject::tr("Latency against throughput: %1").arg(model.subject()));
    double xMax = 0.0, yMin = std::numeric_limits<double>::max(), yMax = 0.0;
    for (int row = 0; row < rows; ++row) {
        xMax = std::max(xMax, cell(model, row, ServingCurveModel::ThroughputColumn));
        for (int column : {ServingCurveModel::TtftP99Column, ServingCurveModel::TpotP99Column}) {
            const double v = cell(model, row, column);
            if (v > 0.0) {
                yMin = std::min(yMin, v);
                yMax = std::max(yMax, v);
            }
        }
    }
    for (const auto slo : {model.ttftSlo_ms(), model.tpotSlo_ms()})
        if (slo) {
            yMin = std::min(yMin, *slo);
            yMax = std::max(yMax, *slo);
        }
    auto* x = new QValueAxis;
    x->setTitleText(QObject::tr("Throughput (output tokens/s)"));
    x->setRange(0.0, xMax > 0.0 ? xMax * 1.08 : 1.0);
    x->applyNiceNumbers();
    x->setLabelFormat(u"%.0f"_s);
    chart->addAxis(x, Qt::AlignBottom);
    if (yMax <= 0.0) {
        chart->setTitle(QObject::tr("Latency against throughput: no load was long enough to measure"));
        return chart;
    }
    QLogValueAxis* y = chartstyle::addLatencyAxis(*chart, yMin, yMax);

    const double xEnd = x->max();
    addLatency(*chart, model, ServingCurveModel::TtftP99Column, QObject::tr("TTFT p99"), kTtft, x, y);
    addLatency(*chart, model, ServingCurveModel::TpotP99Column, QObject::tr("TPOT p99"), kTpot, x, y);
    if (const auto slo = model.ttftSlo_ms())
        addSlo(*chart, *slo, xEnd, QObject::tr("TTFT SLO %1 ms").arg(formatSignificant(*slo)), kTtft, x, y);
    if (const auto slo = model.tpotSlo_ms())
        addSlo(*chart, *slo, xEnd, QObject::tr("TPOT SLO %1 ms").arg(formatSignificant(*slo)), kTpot, x, y);
    if (const auto rate = model.maxRate_rps()) {
        auto* limit = new QLineSeries;
        limit->setName(QObject::tr("Max rate in the SLOs: %1 req/s").arg(formatSignificant(*rate)));
        limit->setPen(QPen(chartstyle::kEfficiency, 1.5, Qt::DotLine));
        limit->append(model.throughputAtMax(), y->min());
        limit->append(model.throughputAtMax(), y->max());
        chart->addSeries(limit);
        limit->attachAxis(x);
        limit->attachAxis(y);
    }
    // The loads that missed an SLO, on the curve of the one they missed (TTFT's when both).
    auto* missed = new QScatterSeries;
    missed->setName(QObject::tr("Misses an SLO or not sustained"));
    missed->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    missed->setMarkerSize(7.0);
    missed->setColor(chartstyle::kFailed);
    missed->setBorderColor(chartstyle::kFailed);
    for (int row = 0; row < rows; ++row) {
        if (model.index(row, ServingCurveModel::MeetsColumn).data(ValueRole).toBool())
            continue;
        const double ttft = cell(model, row, ServingCurveModel::TtftP99Column);
        const bool ttftMissed = !model.tpotSlo_ms() || (model.ttftSlo_ms() && ttft > *model.ttftSlo_ms());
        const double shown = ttftMissed ? ttft : cell(model, row, ServingCurveModel::TpotP99Column);
        if (shown > 0.0)
            missed->append(cell(model, row, ServingCurveModel::ThroughputColumn), shown);
    }
    chart->addSeries(missed);
    missed->attachAxis(x);
    missed->attachAxis(y);
    if (missed->count() == 0)
        for (QLegendMarker* marker : chart->legend()->markers(missed))
            marker->setVisible(false);
    return chart;
}

} // namespace choreo::ui
