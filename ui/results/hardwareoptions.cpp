#include "ui/results/hardwareoptions.h"

#include "models/resolved.h"
#include "ui/workload/layoutsearch.h"

namespace choreo::ui {

HardwareOptions hardwareOptions(const models::Scenario& base, const models::Catalog& catalog) {
    HardwareOptions out;
    if (!base.trainingPool())
        return out;
    for (const models::Device& device : catalog.devices()) {
        models::Scenario s = base;
        s.trainingPool()->device = device.id;
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
        out.points.push_back({device.name, s.trainingPool()->count, std::move(s)});
    }
    return out;
}

} // namespace choreo::ui
