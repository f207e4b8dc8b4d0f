#pragma once

#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class CompareModel;

// Charts of the compare view, one bar, line or point per compared scenario (column of the model), each
// scenario in its chartstyle::kScenario colour. Scenarios without a result have an empty bar and no line
// or point. The caller owns the chart.

// Step time of each scenario as a stacked bar: compute, exposed communication, pipeline bubble.
QChart* createCompareBreakdownChart(const CompareModel& model);
// Facility power over one step of each scenario, overlaid on a time axis normalised to each step
// (0-100 %); the legend gives each scenario's energy per run.
QChart* createComparePowerChart(const CompareModel& model);
// Time to train against total cost, one labelled point per scenario.
QChart* createCompareCostChart(const CompareModel& model);
// Memory per device of each scenario as a stacked bar (weights ... buffers), with its device's capacity
// marked across the bar.
QChart* createCompareMemoryChart(const CompareModel& model);
// Serving scenarios' latency against throughput: each one's p99 TTFT (solid) and p99 TPOT (dashed) over the
// loads its rate search simulated, log scale, with every SLO they searched under as a grey dashed line.
QChart* createCompareServingChart(const CompareModel& model);

} // namespace choreo::ui
