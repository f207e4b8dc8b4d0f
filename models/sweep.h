#pragma once

#include "models/scenario.h"

#include <string>
#include <vector>

namespace choreo::models {

// One point of a sweep: a variant of the base scenario.
struct SweepPoint {
    std::string label;
    std::int64_t devices = 0;
    Scenario scenario;
};

// Strong-scaling sweep over the data-parallel degree: dp in {dp/8 .. 4*dp} (powers of two), the same
// global batch, tp and pp, the training pool resized to tp*pp*dp. Points whose global batch cannot be
// split evenly are left out; points that do not fit in memory are kept (the simulator reports them).
std::vector<SweepPoint> scalingSweep(const Scenario& base, int pointsBelow = 3, int pointsAbove = 2);

} // namespace choreo::models
