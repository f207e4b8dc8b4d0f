#pragma once

#include <QSize>
#include <QString>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

// Writes a chart shown on screen (it must be in a scene, as a QChartView puts it) as a PNG of `size`
// pixels (twice the on-screen resolution by default) or as an SVG drawing; false with `error` otherwise.
bool exportChartPng(QChart& chart, const QString& path, QString& error, QSize size = {});
bool exportChartSvg(QChart& chart, const QString& path, QString& error);

} // namespace choreo::ui
