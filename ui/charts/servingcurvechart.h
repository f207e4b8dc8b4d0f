#pragma once

#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class ServingCurveModel;

// Latency against throughput for a serving run: p99 time to first token and p99 time per output token
// (log scale, ms) at each load the rate search simulated, the SLOs as dashed lines in the same colours, and
// the throughput at the highest rate within them as a vertical line. An empty model gives an empty chart
// saying why. The caller owns the chart.
QChart* createServingCurveChart(const ServingCurveModel& model);

} // namespace choreo::ui
