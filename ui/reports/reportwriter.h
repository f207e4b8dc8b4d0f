#pragma once

#include "ui/reports/reportinput.h"

#include <QString>

namespace choreo::ui {

// Writes the PDF report (A4, vector charts) to `path` atomically. Returns the number of pages
// written, or 0 with `error` set. Needs a QApplication (charts are widgets' graphics items).
int writeReportPdf(const ReportInput& input, const QString& path, QString& error);

} // namespace choreo::ui
