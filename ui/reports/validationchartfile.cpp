#include "ui/reports/validationchartfile.h"

#include "models/scenarioio.h"
#include "ui/charts/chartrender.h"
#include "ui/charts/validationchart.h"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <memory>

using namespace Qt::StringLiterals;

namespace choreo::ui {

std::string writeValidationChart(int argc, char** argv, const std::vector<ValidationChartRow>& rows,
                                 const std::string& title, const std::string& path,
                                 const std::string& rangeName) {
    std::unique_ptr<QApplication> ownApp;
    if (!QCoreApplication::instance()) {
        qputenv("QT_QPA_PLATFORM", "offscreen"); // drawn, never shown
        ownApp = std::make_unique<QApplication>(argc, argv);
    } else if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
        return "charts need a QApplication, not a QCoreApplication";
    }
    std::vector<ValidationChartPoint> points;
    points.reserve(rows.size());
    for (const auto& r : rows)
        points.push_back({QString::fromStdString(r.label), QString::fromStdString(r.group), r.measured_s,
                          r.predicted_s, r.range_min_s, r.range_max_s});
    const QString file = QString::fromStdString(path);
    const QString suffix = QFileInfo(file).suffix().toLower();
    const QSizeF layout(900, 720);
    auto chart = [&] {
        return std::unique_ptr<QChart>(
            createValidationChart(points, QString::fromStdString(title), QString::fromStdString(rangeName)));
    };
    // Drawn in memory, then written whole: a full disk leaves any earlier chart as it was.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (suffix == u"svg"_s) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(layout.toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), layout));
        svg.setTitle(QString::fromStdString(title));
        QPainter painter;
        if (!painter.begin(&svg))
            return "cannot draw the SVG for " + path;
        renderChart(chart(), painter, QRectF(QPointF(0, 0), layout), layout);
        painter.end();
    } else if (suffix == u"png"_s) {
        QImage image(layout.toSize() * 2, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        renderChart(chart(), painter, QRectF(QPointF(0, 0), layout * 2), layout);
        painter.end();
        if (!image.save(&buffer, "PNG"))
            return "cannot encode the PNG for " + path;
    } else if (suffix == u"pdf"_s) {
        QPdfWriter pdf(&buffer);
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageOrientation(QPageLayout::Landscape);
        pdf.setTitle(QString::fromStdString(title));
        QPainter painter;
        if (!painter.begin(&pdf))
            return "cannot draw the PDF for " + path;
        const QRect page = painter.viewport();
        renderChart(chart(), painter, QRectF(page), layout);
        painter.end();
    } else {
        return "unknown chart format \"." + suffix.toStdString() + "\" (known: .svg, .png, .pdf)";
    }
    std::string error;
    if (bytes.isEmpty())
        return "cannot write " + path + ": the drawing came out empty";
    if (!models::writeTextFileAtomically(path, bytes.toStdString(), error))
        return error;
    return {};
}

} // namespace choreo::ui
