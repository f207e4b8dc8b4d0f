#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

// Which columns of an item model make a time-to-train vs cost chart.
struct ParetoColumns {
    int label = 0; // DisplayRole names the option
    int time = 0;  // ValueRole: time to train (days)
    int cost = 0;  // ValueRole: total cost (US dollars)
};

// Every option as a point (time to train across, cost up); the options marked by ParetoRole are joined
// as the front and named in the legend. Rows without values are left out. The caller owns the chart.
QChart* createParetoChart(const QAbstractItemModel& model, const ParetoColumns& columns,
                          const QString& title);

} // namespace choreo::ui
