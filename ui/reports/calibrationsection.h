#pragma once

#include "ui/reports/reportcontent.h"
#include "ui/reports/reportinput.h"

namespace choreo::ui {

// The report's "Spec sheet vs measured" section, present when the run used a calibration profile
// (ReportInput::profile): which profile, measured on what, and every figure beside the catalog's. Built
// once as report content; the PDF and HTML writers render it as every other section.
report::Section calibrationReportSection(const ReportInput& input);

} // namespace choreo::ui
