#pragma once

#include "ui/reports/reportinput.h"

#include <QString>

namespace choreo::ui {

class ReportPainter;

// The report's "Spec sheet vs measured" part, present when the run used a calibration profile
// (ReportInput::profile): which profile, measured on what, and every figure beside the catalog's.

// Writes the section on the current page of `page`; nothing without a profile.
void writeCalibrationPage(ReportPainter& page, const ReportInput& input);
// The same section as HTML (an <h3> and a table); empty without a profile.
QString calibrationSectionHtml(const ReportInput& input);

} // namespace choreo::ui
