#include "ui/charts/chartexport.h"

#include "models/scenarioio.h"

#include <QBuffer>
#include <QChart>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace choreo::ui {

namespace {

bool inScene(const QChart& chart, QString& error) {
    if (chart.scene() && chart.size().isValid() && !chart.size().isEmpty())
        return true;
    error = QObject::tr("the chart is not shown, so it has no size to export");
    return false;
}

void paint(QChart& chart, QPainter& painter, const QRectF& target) {
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    chart.scene()->render(&painter, target, chart.sceneBoundingRect(), Qt::KeepAspectRatio);
}

// Writes the drawn file whole or not at all: a full disk or a missing folder leaves any earlier file as it
// was, with `error` naming the path and the cause.
bool saveWhole(const QString& path, const QByteArray& bytes, QString& error) {
    std::string cause;
    if (bytes.isEmpty()) {
        error = QObject::tr("%1 cannot be written: the drawing came out empty").arg(path);
        return false;
    }
    if (models::writeTextFileAtomically(path.toStdString(), bytes.toStdString(), cause))
        return true;
    error = QObject::tr("%1 cannot be written: %2").arg(path, QString::fromStdString(cause));
    return false;
}

} // namespace

bool exportChartPng(QChart& chart, const QString& path, QString& error, QSize size) {
    if (!inScene(chart, error))
        return false;
    if (!size.isValid() || size.isEmpty())
        size = (chart.size() * 2).toSize();
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paint(chart, painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) {
        error = QObject::tr("%1 cannot be written: the PNG encoder failed").arg(path);
        return false;
    }
    return saveWhole(path, bytes, error);
}

bool exportChartSvg(QChart& chart, const QString& path, QString& error) {
    if (!inScene(chart, error))
        return false;
    const QSize size = chart.size().toSize();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(chart.title());
    svg.setDescription(QObject::tr("Chart exported by Choreo"));
    QPainter painter;
    if (!painter.begin(&svg)) {
        error = QObject::tr("%1 cannot be written").arg(path);
        return false;
    }
    paint(chart, painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
    return saveWhole(path, bytes, error);
}

} // namespace choreo::ui
