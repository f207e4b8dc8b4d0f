#pragma once

#include <QColor>
#include <QList>
#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class SweepResultModel;

// A segment of the bars: the column whose ValueRole gives its seconds, its colour, and its name in the
// legend (empty: the column's header, less its unit).
struct BreakdownSegment {
    int column = 0;
    QColor color;
    QString legend;
};

// Which columns of an item model make a stacked-bar step-time chart.
struct BreakdownColumns {
    int category = 0; // DisplayRole gives the bar's label
    QList<BreakdownSegment> segments;
};

// A stacked bar per row: where the step time goes. Rows without values give an empty bar, labelled
// "(failed)" when their StatusRole says so. The caller owns the chart.
QChart* createStepBreakdownChart(const QAbstractItemModel& model, const BreakdownColumns& columns,
                                 const QString& title);
// The same for a sweep: one bar per device count (compute, exposed communication, pipeline bubble, and the
// waits for data and the evaluation pauses where any point has them).
QChart* createStepBreakdownChart(const SweepResultModel& sweep);

} // namespace choreo::ui
