#include "ui/charts/validationchart.h"

#include "ui/charts/chartstyle.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>

#include <algorithm>
#include <cmath>
#include <map>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Distinct fixed colours for up to eight groups (then they repeat).
QColor groupColour(std::size_t i) {
    static const QColor colours[] = {chartstyle::kThroughput,  chartstyle::kCommunication,
                                     chartstyle::kEfficiency,  QColor(0x8e, 0x44, 0xad),
                                     chartstyle::kFailed,      QColor(0x16, 0xa0, 0x85),
                                     QColor(0x7f, 0x6a, 0x00), QColor(0x34, 0x49, 0x5e)};
    return colours[i % (sizeof colours / sizeof colours[0])];
}

} // namespace

QChart* createValidationChart(const std::vector<ValidationChartPoint>& points, const QString& title,
                              const QString& rangeName) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);

    double lo = 1e300, hi = 0;
    for (const auto& p : points)
        if (p.measured_s > 0 && p.predicted_s > 0) {
            lo = std::min({lo, p.measured_s, p.predicted_s});
            hi = std::max({hi, p.measured_s, p.predicted_s});
            if (p.range_min_s > 0 && p.range_max_s > p.range_min_s) {
                lo = std::min(lo, p.range_min_s);
                hi = std::max(hi, p.range_max_s);
            }
        }
    if (hi <= 0) {
        lo = 0.1;
        hi = 100;
    }
    // Whole decades around the data, so the log axes have labelled ticks at both ends.
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));

    auto* xAxis = new QLogValueAxis;
    xAxis->setBase(10);
    xAxis->setTitleText(QObject::tr("measured step time (s)"));
    xAxis->setLabelFormat(u"%g"_s);
    xAxis->setRange(lo, hi);
    xAxis->setMinorTickCount(8);
    auto* yAxis = new QLogValueAxis;
    yAxis->setBase(10);
    yAxis->setTitleText(QObject::tr("predicted step time (s)"));
    yAxis->setLabelFormat(u"%g"_s);
    yAxis->setRange(lo, hi);
    yAxis->setMinorTickCount(8);
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);

    auto attach = [&](QAbstractSeries* series) {
        chart->addSeries(series);
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
    };

    // The +-10 % band and the diagonal, drawn first so the points sit on top.
    auto* upper = new QLineSeries;
    auto* lower = new QLineSeries;
    auto* diagonal = new QLineSeries;
    const int steps = 24;
    for (int i = 0; i <= steps; ++i) {
        const double x = lo * std::pow(hi / lo, static_cast<double>(i) / steps);
        upper->append(x, 1.1 * x);
        lower->append(x, 0.9 * x);
        diagonal->append(x, x);
    }
    auto* band = new QAreaSeries(upper, lower);
    band->setName(QObject::tr("±10 %"));
    band->setColor(QColor(0x2c, 0x9c, 0x4a, 0x40));
    band->setBorderColor(QColor(0x2c, 0x9c, 0x4a, 0x80));
    attach(band);
    diagonal->setName(QObject::tr("predicted = measured"));
    diagonal->setPen(QPen(QColor(0x40, 0x40, 0x40), 1.0, Qt::DashLine));
    attach(diagonal);

    // One scatter series per group, attached after the loop so the points sit on the ranges drawn in it.
    std::map<QString, QScatterSeries*> byGroup;
    std::vector<QString> order;
    bool ranges = false;
    for (const auto& p : points) {
        if (p.measured_s <= 0 || p.predicted_s <= 0)
            continue;
        auto it = byGroup.find(p.group);
        if (it == byGroup.end()) {
            auto* s = new QScatterSeries;
            s->setName(p.group);
            s->setMarkerSize(9.0);
            s->setColor(groupColour(order.size()));
            s->setBorderColor(Qt::white);
            it = byGroup.emplace(p.group, s).first;
            order.push_back(p.group);
        }
        it->second->append(p.measured_s, p.predicted_s);
        if (p.range_min_s <= 0 || p.range_max_s <= p.range_min_s)
            continue;
        // The range, in the group's colour, out of the legend (one grey entry below names them all).
        auto* bar = new QLineSeries;
        bar->setName(QObject::tr("range of %1").arg(p.label));
        QColor colour = it->second->color();
        colour.setAlpha(0xa0);
        bar->setPen(QPen(colour, 2.0));
        bar->append(p.measured_s, p.range_min_s);
        bar->append(p.measured_s, p.range_max_s);
        attach(bar);
        for (auto* marker : chart->legend()->markers(bar))
            marker->setVisible(false);
        ranges = true;
    }
    if (ranges && !rangeName.isEmpty()) {
        auto* key = new QLineSeries;
        key->setName(rangeName);
        key->setPen(QPen(QColor(0x70, 0x70, 0x70), 2.0));
        attach(key);
    }
    for (const auto& g : order)
        attach(byGroup[g]);
    return chart;
}

} // namespace choreo::ui
