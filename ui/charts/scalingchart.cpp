#include "ui/charts/scalingchart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/sweepresultmodel.h"

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

using namespace Qt::StringLiterals;

namespace choreo::ui {

QChart* createScalingChart(const QAbstractItemModel& model, const ScalingColumns& columns,
                           const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);

    double minDevices = 0, maxDevices = 0, maxThroughput = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const double devices = model.index(row, columns.devices).data(ValueRole).toDouble();
        if (devices <= 0)
            continue;
        minDevices = minDevices > 0 ? std::min(minDevices, devices) : devices;
        maxDevices = std::max(maxDevices, devices);
        maxThroughput =
            std::max(maxThroughput, model.index(row, columns.throughput).data(ValueRole).toDouble());
    }
    // Millions of tokens per second read better than 1.2e+06 on an axis.
    double scale = 1.0;
    QString unit = QObject::tr("tokens/s");
    if (maxThroughput >= 1e6) {
        scale = 1e6;
        unit = QObject::tr("M tokens/s");
    } else if (maxThroughput >= 1e3) {
        scale = 1e3;
        unit = QObject::tr("k tokens/s");
    }

    auto* throughput = new QLineSeries;
    throughput->setName(QObject::tr("Throughput (%1)").arg(unit));
    throughput->setPen(QPen(chartstyle::kThroughput, 2.5));
    throughput->setPointsVisible(true);
    auto* efficiency = new QLineSeries;
    efficiency->setName(QObject::tr("Scaling efficiency (%)"));
    QPen dashed(chartstyle::kEfficiency, 2.0, Qt::DashLine);
    efficiency->setPen(dashed);
    efficiency->setPointsVisible(true);
    auto* failed = new QScatterSeries;
    failed->setName(QObject::tr("Failed point"));
    failed->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    failed->setMarkerSize(9);
    failed->setColor(chartstyle::kFailed);
    failed->setBorderColor(chartstyle::kFailed);

    for (int row = 0; row < model.rowCount(); ++row) {
        const double devices = model.index(row, columns.devices).data(ValueRole).toDouble();
        if (devices <= 0)
            continue;
        const QVariant t = model.index(row, columns.throughput).data(ValueRole);
        const QVariant e = model.index(row, columns.efficiency).data(ValueRole);
        const int state = model.index(row, columns.devices).data(StatusRole).toInt();
        if (t.isValid()) {
            throughput->append(devices, t.toDouble() / scale);
            if (e.isValid())
                efficiency->append(devices, e.toDouble() * 100.0);
        } else if (state == static_cast<int>(SweepOutcome::State::Failed)) {
            failed->append(devices, 0.0);
        }
    }
    chart->addSeries(throughput);
    chart->addSeries(efficiency);
    chart->addSeries(failed);

    auto* x = new QLogValueAxis;
    x->setBase(2.0);
    x->setLabelFormat(u"%.0f"_s);
    x->setTitleText(QObject::tr("Devices (log scale)"));
    x->setMinorTickCount(0);
    if (minDevices > 0)
        x->setRange(minDevices / std::sqrt(2.0), maxDevices * std::sqrt(2.0));
    else
        x->setRange(1.0, 16.0);
    chart->addAxis(x, Qt::AlignBottom);

    auto* yThroughput = new QValueAxis;
    yThroughput->setTitleText(QObject::tr("Throughput (%1)").arg(unit));
    yThroughput->setRange(0.0, maxThroughput > 0 ? maxThroughput / scale * 1.15 : 1.0);
    yThroughput->applyNiceNumbers();
    yThroughput->setLabelFormat(u"%.3g"_s);
    yThroughput->setLinePenColor(chartstyle::kThroughput);
    yThroughput->setLabelsColor(chartstyle::kThroughput);
    chart->addAxis(yThroughput, Qt::AlignLeft);

    auto* yEfficiency = new QValueAxis;
    yEfficiency->setTitleText(QObject::tr("Scaling efficiency (%)"));
    yEfficiency->setRange(0.0, 120.0);
    yEfficiency->setTickCount(7);
    yEfficiency->setLabelFormat(u"%.0f"_s);
    yEfficiency->setLinePenColor(chartstyle::kEfficiency);
    yEfficiency->setLabelsColor(chartstyle::kEfficiency);
    yEfficiency->setGridLineVisible(false);
    chart->addAxis(yEfficiency, Qt::AlignRight);

    throughput->attachAxis(x);
    throughput->attachAxis(yThroughput);
    efficiency->attachAxis(x);
    efficiency->attachAxis(yEfficiency);
    failed->attachAxis(x);
    failed->attachAxis(yEfficiency);
    if (failed->count() == 0)
        for (QLegendMarker* marker : chart->legend()->markers(failed))
            marker->setVisible(false);
    return chart;
}

QChart* createScalingChart(const SweepResultModel& sweep) {
    return createScalingChart(sweep,
                              {SweepResultModel::DevicesColumn, SweepResultModel::TokensPerSecondColumn,
                               SweepResultModel::EfficiencyColumn},
                              QObject::tr("Scaling: throughput and efficiency"));
}

} // namespace choreo::ui
