#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QTableView;
QT_END_NAMESPACE

namespace choreo::ui {

// Any table as RFC 4180 CSV, as the user sees it: a header of the column titles, then one line per row
// of the displayed text (units included). With `rowHeaders` the first column holds the row titles (for
// tables whose rows are named, as the compare view's).
QString tableCsv(const QAbstractItemModel& model, bool rowHeaders = false);
// Writes tableCsv() to `path` atomically; false with `error` when it cannot.
bool writeTableCsv(const QAbstractItemModel& model, const QString& path, QString& error,
                   bool rowHeaders = false);
// Gives `view` a context menu entry "Export table as CSV…" (file name suggested from `name`).
void addCsvExport(QTableView* view, const QString& name);

} // namespace choreo::ui
