#include "models/calibration.h"

#include <algorithm>

namespace choreo::models {

bool applyCalibrationProfile(ResolvedScenario& rs, const Profile& profile,
                             const std::optional<std::string>& deviceId, Diagnostics& errors) {
    const std::string target = deviceId.value_or(profile.device);
    if (target.empty()) {
        errors.push_back({"calibration.device",
                          "profile " + profile.name + " names no catalog device; set the device it refines"});
        return false;
    }
    auto uses = [&](const Device& d) {
        return d.id == target || std::find(d.aliases.begin(), d.aliases.end(), target) != d.aliases.end();
    };
    const Device* original = nullptr;
    for (const auto& p : rs.pools)
        if (p.device && uses(*p.ratedDevice()))
            original = p.ratedDevice();
    if (!original) {
        errors.push_back({"calibration.device", "no pool of the scenario uses \"" + target + "\" (profile " +
                                                    profile.name + " refines it)"});
        return false;
    }
    auto device = std::make_shared<Device>(*original);
    Diagnostics problems;
    if (!applyProfile(profile, *device, problems)) {
        for (const auto& d : problems)
            errors.push_back({"calibration.profile", profile.name + ": " + d.text()});
        return false;
    }
    for (auto& p : rs.pools)
        if (p.ratedDevice() == original) {
            p.device = device.get();
            p.rated_device = nullptr;
        }
    rs.device_copies.push_back(device);
    rs.calibration = profile.name;
    rs.calibration_source = profileSource(profile);
    // A pool's power limit holds the calibrated device now.
    return applyPowerLimits(rs, errors);
}

bool applyScenarioCalibration(ResolvedScenario& rs, const std::vector<std::filesystem::path>& folders,
                              Diagnostics& errors) {
    if (!rs.scenario.calibration)
        return true;
    const auto& ref = *rs.scenario.calibration;
    const auto file = findProfile(ref.profile, folders);
    if (!file) {
        std::string where;
        for (const auto& f : folders)
            where += (where.empty() ? "" : ", ") + f.string();
        errors.push_back({"calibration.profile", "no profile \"" + ref.profile + "\" (looked in " +
                                                     (where.empty() ? std::string("no folder") : where) +
                                                     ")"});
        return false;
    }
    Diagnostics problems;
    auto profile = loadProfileFile(*file, problems);
    if (!profile) {
        for (const auto& d : problems)
            errors.push_back({"calibration.profile", file->string() + ": " + d.text()});
        return false;
    }
    return applyCalibrationProfile(rs, *profile, ref.device, errors);
}

} // namespace choreo::models
