#include "models/powerlimit.h"

#include "models/jsonreader.h"
#include "models/resolved.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace choreo::models {

namespace {

// The clock fraction at which work whose dynamic power at full clocks is `dynamic_W` fits under `headroom_W`
// (the limit less idle power), by dynamic power ~ clock^k; 1 when it fits already.
double clockUnder(double headroom_W, double dynamic_W, double k) {
    if (dynamic_W <= 0.0 || headroom_W >= dynamic_W)
        return 1.0;
    return std::pow(headroom_W / dynamic_W, 1.0 / k);
}

// `figure` times `factor`, its note saying why.
void scale(Sourced& figure, double factor, const std::string& why) {
    if (!figure.present() || factor == 1.0)
        return;
    figure.value *= factor;
    figure.note = (figure.note.empty() ? std::string() : figure.note + "; ") + why;
}

} // namespace

std::optional<PowerLimitEffect> powerLimitEffect(const Device& device, double limit_W,
                                                 const std::string& path, Diagnostics& errors) {
    const double idle = device.idle_W.value;
    const double busy = device.tdp_W.value;
    if (!std::isfinite(limit_W) || limit_W <= 0.0) {
        errors.push_back({path, "must be a positive number of watts, got " + formatNumber(limit_W)});
        return std::nullopt;
    }
    if (limit_W <= idle) {
        errors.push_back({path, formatNumber(limit_W) + " W is at or below " + device.id + "'s idle power (" +
                                    formatNumber(idle) + " W): it could not run"});
        return std::nullopt;
    }
    if (device.min_power_limit_W.present() && limit_W < device.min_power_limit_W.value) {
        errors.push_back({path, formatNumber(limit_W) + " W is below the lowest limit " + device.id +
                                    " accepts, " + formatNumber(device.min_power_limit_W.value) + " W (" +
                                    device.min_power_limit_W.source + ")"});
        return std::nullopt;
    }
    PowerLimitEffect e;
    e.limit_W = limit_W;
    e.busy_W = busy;
    e.exponent = device.clock_power_exponent.present()
                     ? device.clock_power_exponent
                     : Sourced{kDefaultClockPowerExponent, kDefaultClockPowerExponentSource,
                               "dynamic power taken to grow as the clock squared (docs/power.md)"};
    const double memoryBound = device.memory_bound_W.present() ? device.memory_bound_W.value : busy;
    e.clock_fraction = clockUnder(limit_W - idle, busy - idle, e.exponent.value);
    e.memory_fraction = clockUnder(limit_W - idle, memoryBound - idle, e.exponent.value);
    return e;
}

Device limitDevice(const Device& device, const PowerLimitEffect& effect) {
    Device d = device;
    const std::string at = "at a " + formatNumber(effect.limit_W) + " W power limit";
    const std::string compute = "times " + formatNumber(effect.clock_fraction) + ", the clock " + at;
    DeviceEfficiency& eff = d.efficiency;
    scale(eff.gemm, effect.clock_fraction, compute);
    for (auto& [precision, fraction] : eff.gemm_by_precision)
        scale(fraction, effect.clock_fraction, compute);
    scale(eff.attention, effect.clock_fraction, compute);
    scale(eff.attention_flash2, effect.clock_fraction, compute);
    scale(eff.memory, effect.memory_fraction,
          "times " + formatNumber(effect.memory_fraction) + ", memory-bound work " + at);
    if (effect.limit_W < d.tdp_W.value) {
        d.tdp_W.note = "held at the pool's " + formatNumber(effect.limit_W) + " W power limit, from " +
                       formatNumber(d.tdp_W.value) + " W";
        d.tdp_W.value = effect.limit_W;
    }
    return d;
}

bool applyPowerLimits(ResolvedScenario& rs, Diagnostics& errors) {
    bool ok = true;
    for (std::size_t i = 0; i < rs.pools.size(); ++i) {
        ResolvedPool& pool = rs.pools[i];
        if (!pool.pool.power_limit_W || !pool.device)
            continue;
        const Device* rated = pool.ratedDevice();
        const auto effect =
            powerLimitEffect(*rated, *pool.pool.power_limit_W,
                             "cluster.pools[" + std::to_string(i) + "].power_limit_W", errors);
        if (!effect) {
            ok = false;
            continue;
        }
        auto limited = std::make_shared<const Device>(limitDevice(*rated, *effect));
        pool.rated_device = rated;
        pool.device = limited.get();
        pool.power_limit = effect;
        rs.device_copies.push_back(std::move(limited));
    }
    return ok;
}

} // namespace choreo::models
