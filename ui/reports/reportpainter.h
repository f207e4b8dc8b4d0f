#pragma once

#include <QColor>
#include <QFont>
#include <QList>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

QT_BEGIN_NAMESPACE
class QPagedPaintDevice;
class QPainter;
QT_END_NAMESPACE

namespace choreo::ui {

// A table for ReportPainter: column widths are fractions of the text width; cells wrap. A row with
// fewer cells than columns lets its last cell span the rest (a note across a table row).
struct ReportTable {
    QStringList headers;    // empty: no header row
    QList<double> widths;   // one fraction per column, summing to at most 1
    QList<bool> alignRight; // per column; missing means left
    std::vector<QStringList> rows;
    std::vector<QColor> rowColors; // per row text colour; missing or invalid means black
    double fontPt = 9.0;
};

// Lays out a paged document top to bottom inside the page margins: headings, wrapped paragraphs,
// tables that break across pages (repeating their header), and reserved boxes for drawings.
// Never draws outside the text area; long words and URLs wrap anywhere rather than overflow.
class ReportPainter {
public:
    // `device` is the painter's device; `footer` is drawn at the bottom of every page with its number.
    ReportPainter(QPagedPaintDevice& device, QPainter& painter, QString footer);

    [[nodiscard]] double width() const { return area_.width(); }
    [[nodiscard]] double remaining() const { return area_.bottom() - y_; }
    [[nodiscard]] int pageCount() const { return page_; }
    // Device pixels for `pt` typographic points.
    [[nodiscard]] double points(double pt) const;

    void title(const QString& text);
    void heading(const QString& text);
    void subheading(const QString& text);
    void paragraph(const QString& text, double fontPt = 9.5, const QColor& color = Qt::black);
    void space(double pt);
    void table(const ReportTable& table);
    // A box of the full width and `height` pixels for a drawing, on a new page when it does not fit here.
    QRectF reserve(double height);
    // Ends this page (with its footer) and starts the next.
    void newPage();
    // Draws the last footer; call once at the end.
    void finish();

private:
    // Height of `text` wrapped to `width`; draws it at `topLeft` when `draw`.
    double textBlock(const QString& text, const QFont& font, double width, bool draw, const QPointF& topLeft,
                     Qt::Alignment alignment = Qt::AlignLeft, const QColor& color = Qt::black);
    void ensure(double height);
    void drawFooter();
    [[nodiscard]] QFont font(double pt, bool bold = false) const;

    QPagedPaintDevice& device_;
    QPainter& painter_;
    QString footer_;
    QRectF area_; // the text area of a page, above the footer
    double y_ = 0;
    int page_ = 1;
};

} // namespace choreo::ui
