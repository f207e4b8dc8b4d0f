#pragma once

#include "models/catalog.h"
#include "models/scenario.h"
#include "models/sweep.h"

#include <optional>
#include <string>
#include <vector>

namespace choreo::ui {

// A catalog device that cannot train the scenario, and why (the first diagnostic, or "no layout fits").
struct SkippedOption {
    std::string device;
    std::string reason;
};

struct HardwareOptions {
    std::vector<models::SweepPoint> points; // one per device that fits; label = the device's name
    std::vector<SkippedOption> skipped;
};

// The scenario on every catalog device: the training pool's device replaced, its size kept. When the
// scenario's own layout does not fit a device, the best layout of enumerateLayouts() is used instead;
// a device where none fits is skipped. A calibration profile stays with the device it refines
// (`calibratedDevice`, an id or alias; its label says "calibrated"); every other device runs on its
// spec sheet. Pure; safe on a worker thread while the catalog is not modified.
HardwareOptions hardwareOptions(const models::Scenario& base, const models::Catalog& catalog,
                                const std::optional<std::string>& calibratedDevice = std::nullopt);

} // namespace choreo::ui
