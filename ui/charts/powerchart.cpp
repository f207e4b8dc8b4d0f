#include "ui/charts/powerchart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/powertracemodel.h"
#include "ui/itemmodels/roles.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <vector>

using namespace Qt::StringLiterals;

namespace choreo::ui {

QChart* createPowerChart(const PowerTraceModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    const int rows = model.rowCount();
    if (rows == 0) {
        chart->setTitle(QObject::tr("Power over one step (no power trace in this result)"));
        return chart;
    }
    chart->setTitle(
        QObject::tr("Power over one step: %1 per step, %2 per run (facility, PUE included)")
            .arg(formatEnergyJ(model.energyPerStep_J()), formatEnergyKWh(model.energyPerRun_kWh())));

    double peak = 0.0;
    for (int row = 0; row < rows; ++row)
        peak = std::max(peak, model.index(row, PowerTraceModel::TotalColumn).data(ValueRole).toDouble());
    // Megawatts read better than 12,000 kW on an axis.
    const double scale = peak >= 1e3 ? 1e3 : 1.0;
    const QString unit = peak >= 1e3 ? QObject::tr("MW") : QObject::tr("kW");

    const double end_ms = model.index(rows - 1, PowerTraceModel::EndColumn).data(ValueRole).toDouble();
    QValueAxis* x = chartstyle::addStepTimeAxis(*chart, end_ms);
    auto* y = new QValueAxis;
    y->setTitleText(QObject::tr("Power (%1)").arg(unit));
    y->setRange(0.0, peak > 0 ? peak / scale * 1.1 : 1.0);
    y->applyNiceNumbers();
    y->setLabelFormat(u"%.3g"_s);
    chart->addAxis(y, Qt::AlignLeft);

    // Stacked: each series' area lies on the sum of those before it, drawn as steps over the bins.
    const std::array<int, 4> columns = {PowerTraceModel::AcceleratorsColumn, PowerTraceModel::CpusColumn,
                                        PowerTraceModel::NetworkColumn, PowerTraceModel::CoolingColumn};
    std::vector<double> below(static_cast<std::size_t>(rows), 0.0);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        auto* upper = new QLineSeries;
        auto* lower = new QLineSeries;
        double energy = 0.0;
        for (int row = 0; row < rows; ++row) {
            const double t0 = model.index(row, PowerTraceModel::StartColumn).data(ValueRole).toDouble();
            const double t1 = model.index(row, PowerTraceModel::EndColumn).data(ValueRole).toDouble();
            const double v = model.index(row, columns[c]).data(ValueRole).toDouble() / scale;
            const double b = below[static_cast<std::size_t>(row)];
            lower->append(t0, b);
            lower->append(t1, b);
            upper->append(t0, b + v);
            upper->append(t1, b + v);
            below[static_cast<std::size_t>(row)] = b + v;
            energy += v * (t1 - t0);
        }
        auto* area = new QAreaSeries(upper, lower);
        upper->setParent(area);
        lower->setParent(area);
        const QString header = model.headerData(columns[c], Qt::Horizontal).toString().remove(u" (kW)"_s);
        // A series that stays at zero says so in the legend; the notes under the chart say why.
        area->setName(energy > 0.0 ? header : QObject::tr("%1: 0 W").arg(header));
        const QColor color = chartstyle::kPower[c];
        area->setColor(color);
        area->setPen(QPen(color.darker(125), 1.0));
        chart->addSeries(area);
        area->attachAxis(x);
        area->attachAxis(y);
    }
    auto* average = new QLineSeries;
    const double mean = model.energyPerStep_J() / (end_ms / 1e3) / 1e3 / scale;
    average->setName(QObject::tr("Average %1 %2").arg(formatSignificant(mean), unit));
    average->append(0.0, mean);
    average->append(end_ms, mean);
    average->setPen(QPen(QColor(0x30, 0x30, 0x30), 1.5, Qt::DashLine));
    chart->addSeries(average);
    average->attachAxis(x);
    average->attachAxis(y);
    return chart;
}

} // namespace choreo::ui
