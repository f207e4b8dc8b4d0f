#pragma once

#include "models/catalog.h"
#include "models/profile.h"
#include "models/result.h"
#include "models/scenario.h"
#include "ui/reports/reportsections.h"
#include "ui/runs/sweepoutcome.h"

#include <QDateTime>

#include <optional>
#include <vector>

namespace choreo::ui {

// Everything a report shows, as values: the scenario as run, its result, the sweep (failed points
// included) and the catalog that gave the figures. The catalog must outlive the writing.
struct ReportInput {
    models::Scenario scenario;
    models::RunResult base;
    std::vector<SweepOutcome> sweep;
    const models::Catalog* catalog = nullptr;
    QDateTime generated;
    // The calibration profile the run used (the scenario's "calibration"); the report then has a page of
    // spec sheet against measured.
    std::optional<models::Profile> profile = std::nullopt;
    // The sections to write; a section with nothing to show for this input is written as before (a
    // sentence saying so) or, for the calibration section, left out.
    ReportSections sections = ReportSections::all();
};

} // namespace choreo::ui
