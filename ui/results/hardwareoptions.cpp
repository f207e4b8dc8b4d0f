#include "ui/results/hardwareoptions.h"

#include "models/resolved.h"
#include "ui/workload/layoutsearch.h"

namespace choreo::ui {

HardwareOptions hardwareOptions(const models::Scenario& base, const models::Catalog& catalog,
                                const std::optional<std::string>& calibratedDevice) {
    HardwareOptions out;
    if (!base.trainingPool())
        return out;
    const models::Device* refined = calibratedDevice ? catalog.find(*calibratedDevice) : nullptr;
    for (const models::Device& device : catalog.devices()) {
        models::Scenario s = base;
        s.trainingPool()->device = device.id;
        const bool calibrated = s.calibration && refined == &device;
        if (!calibrated)
            s.calibration.reset(); // the profile measured another device: this one runs on its spec sheet
        models::Diagnostics errors;
        if (!models::resolveScenario(s, catalog, errors) || !errors.empty()) {
            const auto layouts = enumerateLayouts(s, catalog);
            if (layouts.empty()) {
                out.skipped.push_back(
                    {device.id, errors.empty() ? std::string("no layout fits") : errors.front().text()});
                continue;
            }
            s = withLayout(s, layouts.front());
        }
        out.points.push_back({calibrated ? device.name + " (calibrated)" : device.name,
                              s.trainingPool()->count, std::move(s)});
    }
    return out;
}

} // namespace choreo::ui
