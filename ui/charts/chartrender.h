#pragma once

#include <QRectF>
#include <QSizeF>
#include <QString>

#include <memory>

QT_BEGIN_NAMESPACE
class QChart;
class QPainter;
QT_END_NAMESPACE

namespace choreo::ui {

class PowerTraceModel;
class ServingCurveModel;
class SweepResultModel;
class TimelineModel;

// Paints a chart into `target` of `painter` as vector drawing (paths and text, no bitmap), laid out as
// it would be on a screen of `layoutSize` pixels; fonts and lines scale with it. Takes the chart.
void renderChart(std::unique_ptr<QChart> chart, QPainter& painter, const QRectF& target,
                 const QSizeF& layoutSize);

// The sweep's step-time breakdown and scaling charts, painted as renderChart() does (for reports, which
// stay out of Qt Charts).
void renderStepBreakdownChart(const SweepResultModel& sweep, QPainter& painter, const QRectF& target,
                              const QSizeF& layoutSize);
void renderScalingChart(const SweepResultModel& sweep, QPainter& painter, const QRectF& target,
                        const QSizeF& layoutSize);
// A result's step timeline (Gantt) and power trace, painted the same way.
void renderGanttChart(const TimelineModel& timeline, const QString& title, QPainter& painter,
                      const QRectF& target, const QSizeF& layoutSize);
void renderPowerChart(const PowerTraceModel& power, QPainter& painter, const QRectF& target,
                      const QSizeF& layoutSize);
// A serving result's latency against throughput, painted the same way.
void renderServingCurveChart(const ServingCurveModel& curve, QPainter& painter, const QRectF& target,
                             const QSizeF& layoutSize);

} // namespace choreo::ui
