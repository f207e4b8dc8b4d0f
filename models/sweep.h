#pragma once

#include "models/catalog.h"
#include "models/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace choreo::models {

// One point of a sweep: a variant of the base scenario.
struct SweepPoint {
    std::string label;
    std::int64_t devices = 0;
    Scenario scenario;
};

// The divisors of n (n >= 1), ascending.
std::vector<std::int64_t> divisors(std::int64_t n);

// Strong-scaling sweep over the data-parallel degree: dp in {dp/8 .. 4*dp} (powers of two), the same
// global batch, tp and pp, the training pool resized to tp*pp*dp. Points whose global batch cannot be
// split evenly are left out; points that do not fit in memory are kept (the simulator reports them).
std::vector<SweepPoint> scalingSweep(const Scenario& base, int pointsBelow = 3, int pointsAbove = 2);

// The base scenario on every catalog device that can run it: the training pool's device replaced, its
// nodes no larger than the device's scale-up domain, kept only when models::resolveScenario accepts it
// (memory included). Labelled with the device id.
std::vector<SweepPoint> deviceTypeSweep(const Scenario& base, const Catalog& catalog);

// The base scenario under every parallel layout of its training pool over tp (dividing the node) and
// pp (dividing the layers), dp taking the rest, that resolves (fits in memory, batch divides); at most
// `limit` points, smallest tp * pp first. Labelled "tp2 pp4 dp16".
std::vector<SweepPoint> layoutSweep(const Scenario& base, const Catalog& catalog, std::size_t limit = 48);

} // namespace choreo::models
