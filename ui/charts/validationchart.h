#pragma once

#include <QString>

#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

// One published run: its measured and predicted step time, and the group it is coloured by.
struct ValidationChartPoint {
    QString label;
    QString group;
    double measured_s = 0;
    double predicted_s = 0;
    // The range of predictions over layouts the source leaves open (validate --vary); none when equal.
    double range_min_s = 0;
    double range_max_s = 0;
};

// Predicted against measured step time on log-log axes, one scatter series per group, with the diagonal
// (a perfect prediction) and the band of +-10 % around it; a point with a range gets a vertical bar over
// it in its group's colour, and the legend one grey entry for them all named `rangeName`. The caller owns
// the chart.
QChart* createValidationChart(const std::vector<ValidationChartPoint>& points, const QString& title,
                              const QString& rangeName = {});

} // namespace choreo::ui
