#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class PowerTraceModel;

// Facility power over one step as stacked areas (accelerators, CPUs, network, cooling overhead from PUE),
// with the step's average as a dashed line; the title gives the energy per step and per run. An empty
// model gives an empty chart saying so. The caller owns the chart.
QChart* createPowerChart(const PowerTraceModel& model);

} // namespace choreo::ui
