#include "ui/charts/chartstyle.h"

#include <QChart>
#include <QFont>
#include <QLegend>
#include <QLogValueAxis>
#include <QValueAxis>

#include <cmath>

using namespace Qt::StringLiterals;

namespace choreo::ui::chartstyle {

void apply(QChart& chart) {
    chart.setTheme(QChart::ChartThemeLight);
    chart.setAnimationOptions(QChart::NoAnimation);
    chart.setDropShadowEnabled(false);
    chart.setBackgroundRoundness(0);
    chart.setMargins(QMargins(6, 6, 6, 6));
    QFont title = chart.titleFont();
    title.setBold(true);
    title.setPointSizeF(11);
    chart.setTitleFont(title);
    chart.legend()->setAlignment(Qt::AlignBottom);
    QFont legend = chart.legend()->font();
    legend.setPointSizeF(8);
    chart.legend()->setFont(legend);
}

void niceTicks(QValueAxis& axis, double end) {
    if (!(end > 0.0))
        return;
    const double raw = end / 10.0;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    double step = decade;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= raw) {
            step = m * decade;
            break;
        }
    axis.setTickType(QValueAxis::TicksDynamic);
    axis.setTickAnchor(0.0);
    axis.setTickInterval(step);
}

QValueAxis* addStepTimeAxis(QChart& chart, double end_ms) {
    auto* x = new QValueAxis;
    x->setTitleText(QObject::tr("Time in the step (ms)"));
    x->setRange(0.0, end_ms);
    x->setLabelFormat(u"%.0f"_s);
    niceTicks(*x, end_ms);
    chart.addAxis(x, Qt::AlignBottom);
    return x;
}

QLogValueAxis* addLatencyAxis(QChart& chart, double min_ms, double max_ms) {
    auto* y = new QLogValueAxis;
    y->setBase(10.0);
    y->setTitleText(QObject::tr("p99 latency (ms)"));
    y->setLabelFormat(u"%g"_s);
    y->setMinorTickCount(8);
    const double low = std::pow(10.0, std::floor(std::log10(min_ms)));
    const double high = std::pow(10.0, std::ceil(std::log10(max_ms)));
    y->setRange(low, high > low ? high : low * 10.0); // one decade at least
    chart.addAxis(y, Qt::AlignLeft);
    return y;
}

} // namespace choreo::ui::chartstyle
