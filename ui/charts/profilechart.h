#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

class ProfileGemmModel;
class ProfileComparisonModel;

// Matrix-multiply efficiency against size (log axis), one colour per precision: measured shapes as
// points, the fitted curve as a line. Fraction of peak when the model has peaks, else TFLOP/s.
// The caller owns the chart.
QChart* createGemmEfficiencyChart(const ProfileGemmModel& model, const QString& title);

// Spec sheet and measured side by side, one pair of bars per row of a ProfileComparisonModel whose unit
// (KeyRole) is `unit` ("TB/s" for bandwidth, "W" for power per phase). The caller owns the chart.
QChart* createSpecMeasuredChart(const ProfileComparisonModel& model, const QString& unit,
                                const QString& title);

} // namespace choreo::ui
