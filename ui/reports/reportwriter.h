#pragma once

#include "ui/reports/reportinput.h"

#include <QString>

namespace choreo::ui {

// Writes the PDF report (A4, vector charts) to `path` atomically. Returns the number of pages
// written, or 0 with `error` set. Needs a QApplication (charts are widgets' graphics items).
int writeReportPdf(const ReportInput& input, const QString& path, QString& error);
// The same report as one self-contained HTML file (charts as inline SVG), written atomically; false
// with `error` set when it cannot be. Needs a QApplication, as the PDF does.
bool writeReportHtml(const ReportInput& input, const QString& path, QString& error);
// The report as HTML text (what writeReportHtml writes).
QString reportHtml(const ReportInput& input);

} // namespace choreo::ui
