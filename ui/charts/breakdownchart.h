#pragma once

#include <QList>
#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class SweepResultModel;

// Which columns of an item model make a stacked-bar step-time chart.
struct BreakdownColumns {
    int category = 0;    // DisplayRole gives the bar's label
    QList<int> segments; // ValueRole gives each segment's seconds; the header names the segment
};

// A stacked bar per row: where the step time goes. Rows without values give an empty bar, labelled
// "(failed)" when their StatusRole says so. The caller owns the chart.
QChart* createStepBreakdownChart(const QAbstractItemModel& model, const BreakdownColumns& columns,
                                 const QString& title);
// The same for a sweep: one bar per device count (compute, exposed communication, pipeline bubble).
QChart* createStepBreakdownChart(const SweepResultModel& sweep);

} // namespace choreo::ui
