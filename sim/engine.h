#pragma once
// Internal to sim: the process-wide SimGrid engine set-up shared by every simulation entry point.

#include <simgrid/s4u.hpp>

#include <memory>

namespace choreo::sim {

// Creates the SimGrid engine with Choreo's configuration: CM02 network model without cross-traffic
// (textbook latency + size/bandwidth timings; efficiency factors come from the catalog), quiet logs,
// host energy plugin on. Call once per process before building a platform.
std::unique_ptr<simgrid::s4u::Engine> makeEngine();

} // namespace choreo::sim
