#pragma once

#include "ui/reports/reportinput.h"

#include <QString>

#include <functional>
#include <utility>
#include <variant>
#include <vector>

QT_BEGIN_NAMESPACE
class QPainter;
class QRectF;
class QSizeF;
QT_END_NAMESPACE

namespace choreo::ui {

class ReportPainter;

// The report's content, in no format: built once from a ReportInput (buildReportDocument), then written
// as PDF pages (writeReportPdf, through ReportPainter) or as HTML (reportHtml). Besides what the report
// says it carries a few hints that only the printed page needs (page breaks, column widths, font sizes,
// chart heights); the HTML writer does without them.
namespace report {

// Body text.
struct Paragraph {
    QString text;
};

// What a chart or table shows and how to read it: smaller, in grey.
struct Note {
    QString text;
};

// A heading inside a section.
struct Subheading {
    QString text;
};

// Label and value, one pair a row (the results, the scenario as run).
struct KeyValues {
    std::vector<std::pair<QString, QString>> rows;
    double printKeyWidth = 0.45; // the labels' share of the page width
};

// One cell of a table. `link` is a web address that `text` contains, made a link where the format has
// links.
struct Cell {
    QString text;
    QString link;

    // Implicit, so that a row's cells can be listed as text.
    Cell(QString shown, QString url = {})
        : text(std::move(shown))
        , link(std::move(url)) {}
};

struct Column {
    QString header;
    QString printHeader;   // shorter, for the page's width; empty: `header`
    double printWidth = 0; // share of the page width; 0: the printed table leaves the column out
    bool numeric = false;  // a number: right-aligned
};

struct Row {
    std::vector<Cell> cells = {}; // one per column
    bool failed = false;          // a point that failed: in red
};

// A table; it has a header row when any column has a header.
struct Table {
    std::vector<Column> columns;
    std::vector<Row> rows;
    // The column that says why a row has no figures (a failed point's reason), or -1. Where that column
    // is left out (the printed page), such a row shows its leading cells and then the reason across the
    // columns it leaves empty.
    int reasonColumn = -1;
    QString whenEmpty; // said instead of a table without rows; empty: the table with its header only
    double printFontPt = 9.0;
};

// Draws a chart as vector graphics into `target`, laid out as if it were `layout` pixels large (which sets
// the size of its text).
using ChartRenderer = std::function<void(QPainter& painter, const QRectF& target, const QSizeF& layout)>;

struct Chart {
    QString title; // the drawing's own title (an SVG's <title>)
    ChartRenderer render;
    double printHeight = 0.4; // share of the page's room left below the section's heading
};

using Block = std::variant<Paragraph, Note, Subheading, KeyValues, Table, Chart>;

struct Section {
    QString title; // empty: no heading
    std::vector<Block> blocks = {};
    bool printOnNewPage = false; // unless only the report's title is on the current page
    QString htmlId = {};         // the HTML heading's id (a link target); empty: none
};

struct Document {
    QString documentTitle; // "Choreo report: <scenario>": the PDF's title, the HTML page's <title>
    QString printFooter;   // at the bottom of every printed page, beside its number
    // The title block, at the top of every report.
    QString title;
    QString scenarioName;
    QString description; // empty: none
    QString generatedNote;
    std::vector<Section> sections;
};

} // namespace report

// The report for `input`: the title block and the sections `input.sections` selects, in the order both
// formats show them. It draws its charts from models it holds; its self-rendered parts refer to `input`,
// which must outlive it.
report::Document buildReportDocument(const ReportInput& input);

} // namespace choreo::ui
