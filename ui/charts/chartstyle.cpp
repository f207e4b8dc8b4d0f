#include "ui/charts/chartstyle.h"

#include <QChart>
#include <QFont>
#include <QLegend>

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

} // namespace choreo::ui::chartstyle
