#pragma once

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/sourced.h"

#include <optional>
#include <string>

namespace choreo::models {

struct ResolvedScenario;

// What a board power limit (`nvidia-smi -pl`) does to a device. The firmware holds the board under the limit
// by lowering the clocks of whatever would cross it:
// - compute-bound work draws idle + (busy - idle) * c^k at clock fraction c, so under a limit L below the
//   device's busy power it runs at c = ((L - idle) / (busy - idle))^(1/k), and its rate follows c;
// - memory-bound work draws Device::memory_bound_W at full clocks, and slows the same way only under a limit
//   below that (DRAM bandwidth does not follow the SM clock until the limit reaches memory-bound work);
// - communication is unchanged.
// k is the device's Device::clock_power_exponent, else kDefaultClockPowerExponent.
struct PowerLimitEffect {
    double limit_W = 0;
    double busy_W = 0;          // the device's busy power without the limit (Device::tdp_W)
    double clock_fraction = 1;  // compute-bound work's clock and rate, relative to no limit
    double memory_fraction = 1; // memory-bound work's rate, relative to no limit
    Sourced exponent;           // k, with its source
};

// k where a device gives none, with its source key (docs/power.md says how it was chosen).
inline constexpr double kDefaultClockPowerExponent = 2.0;
inline constexpr const char* kDefaultClockPowerExponentSource = kAssumedSource;

// The effect of `limit_W` on `device`, or nullopt after an error at `path`: a limit that is not a finite
// number, one at or below the device's idle power, or one below the lowest the board accepts.
std::optional<PowerLimitEffect> powerLimitEffect(const Device& device, double limit_W,
                                                 const std::string& path, Diagnostics& errors);

// `device` as it runs under `effect`: its compute efficiencies times clock_fraction, its memory efficiency
// times memory_fraction, its busy power the lower of its own and the limit; each changed figure's note says
// so. The dense peaks stay the rated ones, so MFU is still counted against them.
Device limitDevice(const Device& device, const PowerLimitEffect& effect);

// Points each pool that sets Pool::power_limit_W at a limited copy of its rated device, kept in
// rs.device_copies, and records the effect; pools already limited are limited again from their rated device
// (after a calibration profile replaced it). False after an error, which names the pool's field.
bool applyPowerLimits(ResolvedScenario& rs, Diagnostics& errors);

} // namespace choreo::models
