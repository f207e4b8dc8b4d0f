#pragma once

#include <string>
#include <vector>

namespace choreo::ui {

// A published run for the chart, in plain C++ so that choreo-sim's validate needs no Qt type.
struct ValidationChartRow {
    std::string label;
    std::string group;
    double measured_s = 0;
    double predicted_s = 0;
    double range_min_s = 0; // validate --vary's range; 0 when none
    double range_max_s = 0;
};

// Writes the predicted-vs-measured chart (validationchart.h) to `path`: SVG, PNG or PDF by its extension.
// Creates an offscreen QApplication when none exists. `rangeName` names the rows' ranges in the legend.
// Returns an empty string, or what went wrong.
std::string writeValidationChart(int argc, char** argv, const std::vector<ValidationChartRow>& rows,
                                 const std::string& title, const std::string& path,
                                 const std::string& rangeName = {});

} // namespace choreo::ui
