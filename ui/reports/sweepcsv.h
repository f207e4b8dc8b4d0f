#pragma once

#include <QString>

namespace choreo::ui {

class SweepResultModel;

// One RFC 4180 field: quoted (inner quotes doubled) when it holds a comma, a quote or a line break.
QString csvField(const QString& field);

// The sweep as RFC 4180 CSV: a header of machine names, then one row per point (failed points
// included, with their message in `note`); numbers in C locale, shortest exact form.
QString sweepCsv(const SweepResultModel& sweep);
// Writes sweepCsv() to `path` atomically; false with `error` set when it cannot.
bool writeSweepCsv(const SweepResultModel& sweep, const QString& path, QString& error);
// The CSV written next to a report (PDF or HTML): the same path with a .csv extension.
QString csvPathForReport(const QString& pdfPath);

} // namespace choreo::ui
