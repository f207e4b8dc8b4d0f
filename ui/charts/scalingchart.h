#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class SweepResultModel;

// Which columns of an item model make a scaling chart (ValueRole of each).
struct ScalingColumns {
    int devices = 0;
    int throughput = 0; // tokens/s
    int efficiency = 0; // fraction
};

// Throughput (left axis) and scaling efficiency (right axis) against device count on a log-2 axis.
// Rows without a throughput (failed points) are marked on the device axis. The caller owns the chart.
QChart* createScalingChart(const QAbstractItemModel& model, const ScalingColumns& columns,
                           const QString& title);
QChart* createScalingChart(const SweepResultModel& sweep);

} // namespace choreo::ui
