#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class TimelineModel;

// One step as a Gantt chart: a row per pipeline stage (stage 0 on top), a bar per interval coloured by
// activity (forward, backward, recompute, optimizer, communication, bubble), time in ms. Hovering a bar
// names its activity, micro-batch and times. An empty model gives an empty chart saying so. The caller
// owns the chart.
QChart* createGanttChart(const TimelineModel& model, const QString& title);

} // namespace choreo::ui
