#pragma once

#include "models/diagnostic.h"
#include "models/profile.h"
#include "models/resolved.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// Applies `profile` to every pool of `rs` whose device is `deviceId` (default: the device the profile
// names): those pools then point to a calibrated copy of the catalog device, and rs.calibration names the
// profile. False with diagnostics under "calibration" when the profile does not fit; `rs` is unchanged.
bool applyCalibrationProfile(ResolvedScenario& rs, const Profile& profile,
                             const std::optional<std::string>& deviceId, Diagnostics& errors);

// Loads the profile rs.scenario.calibration names, looking in `folders` in order (the scenario file's
// folder, then assets/calibration), and applies it. True and unchanged when the scenario names none.
bool applyScenarioCalibration(ResolvedScenario& rs, const std::vector<std::filesystem::path>& folders,
                              Diagnostics& errors);

} // namespace choreo::models
