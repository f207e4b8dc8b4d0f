#include "ui/charts/chartrender.h"

#include "ui/charts/breakdownchart.h"
#include "ui/charts/ganttchart.h"
#include "ui/charts/powerchart.h"
#include "ui/charts/scalingchart.h"
#include "ui/charts/servingcurvechart.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPainter>

namespace choreo::ui {

void renderChart(std::unique_ptr<QChart> chart, QPainter& painter, const QRectF& target,
                 const QSizeF& layoutSize) {
    QGraphicsScene scene;
    QChart* item = chart.release();
    scene.addItem(item); // the scene owns and deletes it
    item->setGeometry(QRectF(QPointF(0, 0), layoutSize));
    // The layout would otherwise settle on the next event loop pass; the picture is wanted now.
    if (item->layout())
        item->layout()->activate();
    scene.setSceneRect(QRectF(QPointF(0, 0), layoutSize));
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    scene.render(&painter, target, scene.sceneRect(), Qt::KeepAspectRatio);
    painter.restore();
}

void renderStepBreakdownChart(const SweepResultModel& sweep, QPainter& painter, const QRectF& target,
                              const QSizeF& layoutSize) {
    renderChart(std::unique_ptr<QChart>(createStepBreakdownChart(sweep)), painter, target, layoutSize);
}

void renderScalingChart(const SweepResultModel& sweep, QPainter& painter, const QRectF& target,
                        const QSizeF& layoutSize) {
    renderChart(std::unique_ptr<QChart>(createScalingChart(sweep)), painter, target, layoutSize);
}

void renderGanttChart(const TimelineModel& timeline, const QString& title, QPainter& painter,
                      const QRectF& target, const QSizeF& layoutSize) {
    renderChart(std::unique_ptr<QChart>(createGanttChart(timeline, title)), painter, target, layoutSize);
}

void renderPowerChart(const PowerTraceModel& power, QPainter& painter, const QRectF& target,
                      const QSizeF& layoutSize) {
    renderChart(std::unique_ptr<QChart>(createPowerChart(power)), painter, target, layoutSize);
}

void renderServingCurveChart(const ServingCurveModel& curve, QPainter& painter, const QRectF& target,
                             const QSizeF& layoutSize) {
    renderChart(std::unique_ptr<QChart>(createServingCurveChart(curve)), painter, target, layoutSize);
}

} // namespace choreo::ui
