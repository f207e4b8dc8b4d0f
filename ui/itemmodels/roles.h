#pragma once

#include <Qt>

namespace choreo::ui {

// Item data roles shared by Choreo's item models and their consumers (charts, reports, CSV).
enum ItemRole : int {
    ValueRole = Qt::UserRole + 1, // the raw number (double) behind a displayed value; invalid when none
    StatusRole,                   // SweepOutcome::State as int, on every column of a sweep row
    IsBaseRole,                   // bool: the row is the scenario as written (not a variant)
    GroupRole,                    // ResultSummaryModel::Group as int
    KeyRole,                      // a stable machine name for the row or column ("step_time_s")
    RankRole,                     // double: sort key, smaller is better (rows without a result last)
    ParetoRole,                   // bool: no other option is both faster and cheaper
};

} // namespace choreo::ui
