#include "ui/reports/reportpainter.h"

#include <QFontMetricsF>
#include <QPagedPaintDevice>
#include <QPainter>
#include <QTextLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr double kFooterPt = 7.5;
constexpr double kCellPaddingPt = 2.5;

} // namespace

ReportPainter::ReportPainter(QPagedPaintDevice& device, QPainter& painter, QString footer)
    : device_(device)
    , painter_(painter)
    , footer_(std::move(footer)) {
    // The painter's origin is the top-left of the page's paint rectangle (inside the margins).
    const QRect paint = device_.pageLayout().paintRectPixels(device_.logicalDpiX());
    const double footerHeight = points(kFooterPt) * 2.5;
    area_ = QRectF(0, 0, paint.width(), paint.height() - footerHeight);
    y_ = area_.top();
}

double ReportPainter::points(double pt) const {
    return pt * device_.logicalDpiX() / 72.0;
}

QFont ReportPainter::font(double pt, bool bold) const {
    QFont f(u"DejaVu Sans"_s);
    f.setStyleHint(QFont::SansSerif);
    f.setPointSizeF(pt);
    f.setBold(bold);
    return f;
}

double ReportPainter::textBlock(const QString& text, const QFont& f, double width, bool draw,
                                const QPointF& topLeft, Qt::Alignment alignment, const QColor& color) {
    QTextLayout layout(text, f, painter_.device());
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    option.setAlignment(alignment);
    layout.setTextOption(option);
    const double leading = QFontMetricsF(f, painter_.device()).leading();
    double height = 0;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        line.setPosition(QPointF(0, height));
        height += line.height() + std::max(0.0, leading);
    }
    layout.endLayout();
    if (draw) {
        painter_.save();
        painter_.setPen(color);
        layout.draw(&painter_, topLeft);
        painter_.restore();
    }
    return height;
}

void ReportPainter::ensure(double height) {
    if (y_ + height > area_.bottom() && y_ > area_.top())
        newPage();
}

void ReportPainter::title(const QString& text) {
    const QFont f = font(20, true);
    const double h = textBlock(text, f, width(), false, {});
    ensure(h);
    textBlock(text, f, width(), true, {area_.left(), y_});
    y_ += h + points(4);
}

void ReportPainter::heading(const QString& text) {
    const QFont f = font(13, true);
    const double h = textBlock(text, f, width(), false, {});
    // Keep a heading with at least a few lines of what follows it.
    ensure(h + points(40));
    y_ += points(6);
    textBlock(text, f, width(), true, {area_.left(), y_}, Qt::AlignLeft, QColor(0x1f, 0x3f, 0x6f));
    y_ += h + points(3);
}

void ReportPainter::subheading(const QString& text) {
    const QFont f = font(10.5, true);
    const double h = textBlock(text, f, width(), false, {});
    ensure(h + points(30));
    y_ += points(3);
    textBlock(text, f, width(), true, {area_.left(), y_});
    y_ += h + points(2);
}

void ReportPainter::paragraph(const QString& text, double fontPt, const QColor& color) {
    const QFont f = font(fontPt);
    const double h = textBlock(text, f, width(), false, {});
    ensure(h);
    textBlock(text, f, width(), true, {area_.left(), y_}, Qt::AlignLeft, color);
    y_ += h + points(3);
}

void ReportPainter::space(double pt) {
    y_ = std::min(y_ + points(pt), area_.bottom());
}

void ReportPainter::table(const ReportTable& t) {
    const QFont body = font(t.fontPt);
    const QFont bold = font(t.fontPt, true);
    const double pad = points(kCellPaddingPt);
    QList<double> xs; // left edge of each column
    double x = area_.left();
    for (double fraction : t.widths) {
        xs << x;
        x += fraction * width();
    }
    // The last cell of a row with fewer cells than columns spans the remaining columns.
    const auto cellWidth = [&](const QStringList& cells, int c) {
        double fraction = t.widths[c];
        if (c == cells.size() - 1)
            for (int rest = c + 1; rest < t.widths.size(); ++rest)
                fraction += t.widths[rest];
        return fraction * width();
    };
    const auto rowHeight = [&](const QStringList& cells, const QFont& f) {
        double h = 0;
        for (int c = 0; c < cells.size() && c < t.widths.size(); ++c)
            h = std::max(h, textBlock(cells[c], f, cellWidth(cells, c) - 2 * pad, false, {}));
        return h + 2 * pad;
    };
    const auto drawRow = [&](const QStringList& cells, const QFont& f, const QColor& color, bool header) {
        const double h = rowHeight(cells, f);
        if (header)
            painter_.fillRect(QRectF(area_.left(), y_, width(), h), QColor(0xe8, 0xec, 0xf2));
        for (int c = 0; c < cells.size() && c < t.widths.size(); ++c) {
            const bool spans = c == cells.size() - 1 && cells.size() < t.widths.size();
            const bool right = !spans && c < t.alignRight.size() && t.alignRight[c];
            textBlock(cells[c], f, cellWidth(cells, c) - 2 * pad, true, {xs[c] + pad, y_ + pad},
                      right ? Qt::AlignRight : Qt::AlignLeft, color);
        }
        painter_.save();
        painter_.setPen(QPen(QColor(0xc8, 0xc8, 0xc8), points(0.5)));
        painter_.drawLine(QPointF(area_.left(), y_ + h), QPointF(area_.left() + width(), y_ + h));
        painter_.restore();
        y_ += h;
    };
    const bool hasHeader = !t.headers.isEmpty();
    const double headerHeight = hasHeader ? rowHeight(t.headers, bold) : 0.0;
    ensure(headerHeight + (t.rows.empty() ? 0.0 : rowHeight(t.rows.front(), body)));
    if (hasHeader)
        drawRow(t.headers, bold, Qt::black, true);
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const double h = rowHeight(t.rows[r], body);
        if (y_ + h > area_.bottom()) {
            newPage();
            if (hasHeader)
                drawRow(t.headers, bold, Qt::black, true);
        }
        const QColor color =
            r < t.rowColors.size() && t.rowColors[r].isValid() ? t.rowColors[r] : QColor(Qt::black);
        drawRow(t.rows[r], body, color, false);
    }
    y_ += points(4);
}

QRectF ReportPainter::reserve(double height) {
    height = std::min(height, area_.height());
    ensure(height);
    const QRectF box(area_.left(), y_, width(), height);
    y_ += height;
    return box;
}

void ReportPainter::drawFooter() {
    const QFont f = font(kFooterPt);
    const QRect paint = device_.pageLayout().paintRectPixels(device_.logicalDpiX());
    const double h = textBlock(footer_, f, width(), false, {});
    const double top = paint.height() - h;
    painter_.save();
    painter_.setPen(QPen(QColor(0xa0, 0xa0, 0xa0), points(0.5)));
    painter_.drawLine(QPointF(area_.left(), top - points(2)), QPointF(area_.right(), top - points(2)));
    painter_.restore();
    textBlock(footer_, f, width() * 0.8, true, {area_.left(), top}, Qt::AlignLeft, QColor(0x60, 0x60, 0x60));
    textBlock(QObject::tr("page %1").arg(page_), f, width() * 0.2, true, {area_.left() + width() * 0.8, top},
              Qt::AlignRight, QColor(0x60, 0x60, 0x60));
}

void ReportPainter::newPage() {
    drawFooter();
    device_.newPage();
    ++page_;
    y_ = area_.top();
}

void ReportPainter::finish() {
    drawFooter();
}

} // namespace choreo::ui
