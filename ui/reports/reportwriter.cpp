#include "ui/reports/reportwriter.h"

#include "models/scenarioio.h"
#include "ui/reports/reportcontent.h"
#include "ui/reports/reportpainter.h"

#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Both writers render the one report::Document that buildReportDocument makes of the input.

// The PDF: A4 pages laid out by ReportPainter.

constexpr int kResolutionDpi = 300;
const QColor kFailedText(0xb0, 0x20, 0x20);
const QColor kNoteText(0x40, 0x40, 0x40);
constexpr double kNotePt = 8.5;

// Screen pixels a chart is laid out in before it is scaled onto the page: sets the size of its text.
constexpr double kChartLayoutWidth = 760.0;

ReportTable printedKeyValues(const report::KeyValues& keyValues) {
    ReportTable t;
    t.widths = {keyValues.printKeyWidth, 1.0 - keyValues.printKeyWidth};
    t.alignRight = {false, false};
    for (const auto& [key, value] : keyValues.rows)
        t.rows.push_back({key, value});
    return t;
}

bool hasHeaderRow(const report::Table& table) {
    return std::any_of(table.columns.begin(), table.columns.end(),
                       [](const report::Column& c) { return !c.header.isEmpty(); });
}

// One row's cells in the printed columns `shown`. A row with a reason the page leaves out shows its leading
// cells and then the reason, which spans the columns it leaves empty.
QStringList printedCells(const report::Table& table, const report::Row& row, const QList<int>& shown) {
    QStringList cells;
    const auto cell = [&row](int c) {
        return c >= 0 && c < static_cast<int>(row.cells.size()) ? row.cells[static_cast<std::size_t>(c)].text
                                                                : QString();
    };
    const bool reasonLeftOut = table.reasonColumn >= 0 && !shown.contains(table.reasonColumn);
    if (reasonLeftOut && !cell(table.reasonColumn).isEmpty()) {
        for (int c : shown) {
            if (cell(c).isEmpty())
                break;
            cells << cell(c);
        }
        return cells << cell(table.reasonColumn);
    }
    for (int c : shown)
        cells << cell(c);
    return cells;
}

ReportTable printedTable(const report::Table& table) {
    ReportTable t;
    QList<int> shown;
    const bool header = hasHeaderRow(table);
    for (int c = 0; c < static_cast<int>(table.columns.size()); ++c) {
        const report::Column& column = table.columns[static_cast<std::size_t>(c)];
        if (column.printWidth <= 0)
            continue;
        shown << c;
        if (header)
            t.headers << (column.printHeader.isEmpty() ? column.header : column.printHeader);
        t.widths << column.printWidth;
        t.alignRight << column.numeric;
    }
    t.fontPt = table.printFontPt;
    for (const report::Row& row : table.rows) {
        t.rows.push_back(printedCells(table, row, shown));
        t.rowColors.push_back(row.failed ? kFailedText : QColor());
    }
    return t;
}

// Writes one section's blocks onto the page. Charts share the room left below the heading; one that
// follows other blocks keeps a little space from them.
void printSection(ReportPainter& page, QPainter& painter, const report::Section& section) {
    if (!section.title.isEmpty())
        page.heading(section.title);
    const double room = page.remaining();
    bool first = true;
    for (const report::Block& block : section.blocks) {
        if (const auto* paragraph = std::get_if<report::Paragraph>(&block)) {
            page.paragraph(paragraph->text);
        } else if (const auto* note = std::get_if<report::Note>(&block)) {
            page.paragraph(note->text, kNotePt, kNoteText);
        } else if (const auto* subheading = std::get_if<report::Subheading>(&block)) {
            page.subheading(subheading->text);
        } else if (const auto* keyValues = std::get_if<report::KeyValues>(&block)) {
            page.table(printedKeyValues(*keyValues));
        } else if (const auto* table = std::get_if<report::Table>(&block)) {
            if (table->rows.empty() && !table->whenEmpty.isEmpty())
                page.paragraph(table->whenEmpty);
            else
                page.table(printedTable(*table));
        } else if (const auto* chart = std::get_if<report::Chart>(&block)) {
            if (!first)
                page.space(6);
            const QRectF box = page.reserve(room * chart->printHeight);
            chart->render(painter, box,
                          QSizeF(kChartLayoutWidth, kChartLayoutWidth * box.height() / box.width()));
        }
        first = false;
    }
}

// The title block, then each section; a section marked so starts a page unless only the title is on
// this one.
void printDocument(ReportPainter& page, QPainter& painter, const report::Document& document) {
    page.title(document.title);
    page.paragraph(document.scenarioName, 14);
    if (!document.description.isEmpty())
        page.paragraph(document.description, 9.5, kNoteText);
    page.paragraph(document.generatedNote, kNotePt, QColor(0x50, 0x50, 0x50));
    bool titleOnly = true;
    for (const report::Section& section : document.sections) {
        if (section.printOnNewPage && !titleOnly)
            page.newPage();
        titleOnly = false;
        printSection(page, painter, section);
    }
}

} // namespace

int writeReportPdf(const ReportInput& in, const QString& path, QString& error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return 0;
    }
    const report::Document document = buildReportDocument(in);
    int pages = 0;
    {
        QPdfWriter writer(&file);
        writer.setResolution(kResolutionDpi);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                         QMarginsF(18, 16, 18, 14), QPageLayout::Millimeter));
        writer.setTitle(document.documentTitle);
        writer.setCreator(u"Choreo"_s);
        QPainter painter;
        if (!painter.begin(&writer)) {
            error = QObject::tr("cannot start a PDF on %1").arg(path);
            file.cancelWriting();
            return 0;
        }
        ReportPainter page(writer, painter, document.printFooter);
        printDocument(page, painter, document);
        page.finish();
        pages = page.pageCount();
        painter.end();
    }
    // flush() first: Qt 6.4's commit() reports success when its own final flush wrote only part of the
    // file (a full disk), and would put a truncated report in place of the earlier one.
    if (!file.flush() || !file.commit()) {
        error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        file.cancelWriting();
        return 0;
    }
    return pages;
}

namespace {

// The HTML: one self-contained page, charts as inline SVG.

QString esc(const QString& text) {
    return text.toHtmlEscaped();
}

QString htmlKeyValues(const report::KeyValues& keyValues) {
    QString out = u"<table class=\"kv\">\n"_s;
    for (const auto& [key, value] : keyValues.rows)
        out += u"<tr><th>%1</th><td>%2</td></tr>\n"_s.arg(esc(key), esc(value));
    return out + u"</table>\n"_s;
}

// A cell's text, escaped, with its web address as a link.
QString htmlCellText(const report::Cell& cell) {
    const auto at = cell.link.isEmpty() ? -1 : cell.text.lastIndexOf(cell.link);
    if (at < 0)
        return esc(cell.text);
    return esc(cell.text.left(at)) + u"<a href=\"%1\">%1</a>"_s.arg(esc(cell.link)) +
           esc(cell.text.mid(at + cell.link.size()));
}

QString htmlTable(const report::Table& table) {
    if (table.rows.empty() && !table.whenEmpty.isEmpty())
        return u"<p>%1</p>\n"_s.arg(esc(table.whenEmpty));
    QString h = u"<table>"_s;
    if (hasHeaderRow(table)) {
        h += u"<tr>"_s;
        for (const report::Column& column : table.columns)
            h += u"<th>%1</th>"_s.arg(esc(column.header));
        h += u"</tr>"_s;
    }
    h += u"\n"_s;
    for (const report::Row& row : table.rows) {
        h += row.failed ? u"<tr class=\"failed\">"_s : u"<tr>"_s;
        for (std::size_t c = 0; c < row.cells.size(); ++c) {
            const report::Cell& cell = row.cells[c];
            const bool number = c < table.columns.size() && table.columns[c].numeric && !cell.text.isEmpty();
            h += (number ? u"<td class=\"num\">%1</td>"_s : u"<td>%1</td>"_s).arg(htmlCellText(cell));
        }
        h += u"</tr>\n"_s;
    }
    return h + u"</table>\n"_s;
}

// A chart as inline SVG: the same vector drawing the PDF gets.
QString htmlChart(const report::Chart& chart) {
    const QSize size(760, 380);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(chart.title);
        QPainter painter(&svg);
        chart.render(painter, QRectF(QPointF(0, 0), QSizeF(size)), QSizeF(size));
    }
    QString text = QString::fromUtf8(buffer.data());
    // Inline SVG needs no XML prolog.
    if (const auto start = text.indexOf(u"<svg"_s); start > 0)
        text = text.mid(start);
    return u"<figure>"_s + text + u"</figure>\n"_s;
}

QString htmlBlock(const report::Block& block) {
    if (const auto* paragraph = std::get_if<report::Paragraph>(&block))
        return u"<p>%1</p>\n"_s.arg(esc(paragraph->text));
    if (const auto* note = std::get_if<report::Note>(&block))
        return u"<p class=\"note\">%1</p>\n"_s.arg(esc(note->text));
    if (const auto* subheading = std::get_if<report::Subheading>(&block))
        return u"<h4>%1</h4>\n"_s.arg(esc(subheading->text));
    if (const auto* keyValues = std::get_if<report::KeyValues>(&block))
        return htmlKeyValues(*keyValues);
    if (const auto* table = std::get_if<report::Table>(&block))
        return htmlTable(*table);
    if (const auto* chart = std::get_if<report::Chart>(&block))
        return htmlChart(*chart);
    return {};
}

QString htmlSection(const report::Section& section) {
    const QString id = section.htmlId.isEmpty() ? QString() : u" id=\"%1\""_s.arg(esc(section.htmlId));
    QString h = section.title.isEmpty() ? QString() : u"<h3%1>%2</h3>\n"_s.arg(id, esc(section.title));
    for (const report::Block& block : section.blocks)
        h += htmlBlock(block);
    return h;
}

} // namespace

QString reportHtml(const ReportInput& in) {
    const report::Document document = buildReportDocument(in);
    QString h;
    h += u"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"_s;
    h += u"<title>%1</title>\n"_s.arg(esc(document.documentTitle));
    h += u"<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#202020}"
         "table{border-collapse:collapse;margin:0.5em 0 1em}th,td{border:1px solid #ccc;padding:2px 8px;"
         "text-align:left;font-size:90%}table.kv th{font-weight:normal;color:#404040}td.num{text-align:right}"
         "tr.failed td{color:#b02020}figure{margin:1em 0}p.note{color:#505050;font-size:85%}</style>\n"_s;
    h += u"</head><body>\n"_s;
    h += u"<h1>%1</h1>\n<h2>%2</h2>\n"_s.arg(esc(document.title), esc(document.scenarioName));
    if (!document.description.isEmpty())
        h += u"<p>%1</p>\n"_s.arg(esc(document.description));
    h += u"<p class=\"note\">%1</p>\n"_s.arg(esc(document.generatedNote));
    for (const report::Section& section : document.sections)
        h += htmlSection(section);
    h += u"</body></html>\n"_s;
    return h;
}

bool writeReportHtml(const ReportInput& input, const QString& path, QString& error) {
    std::string message;
    if (!models::writeTextFileAtomically(path.toStdString(), reportHtml(input).toStdString(), message)) {
        error = QString::fromStdString(message);
        return false;
    }
    return true;
}

} // namespace choreo::ui
