#pragma once
// Internal to sim: NCCL-like ring channels, shared by the simulation (collectives.cpp) and the closed
// form (analytical.cpp). No SimGrid.

#include "sim/platformspec.h"

#include <cstdint>
#include <vector>

namespace choreo::sim {

// The rings a collective over `ranks` (in ring order) runs on. When the ring spans several nodes and
// holds the same number g > 1 of consecutive ranks in each, it runs as g channels, as NCCL does: each
// channel visits every node's ranks rotated by one more place, so each leaves the node through a
// different device's NIC, and carries 1/g of the data. Otherwise the ring itself, alone.
std::vector<std::vector<std::int64_t>> ringChannels(const PlatformSpec& spec,
                                                    const std::vector<std::int64_t>& ranks);

// g as above: how many channels ringChannels() returns.
std::int64_t ringChannelCount(const PlatformSpec& spec, const std::vector<std::int64_t>& ranks);

// Whether an all-reduce of `bytes` per rank over `ranks` runs as NCCL's tree rather than its ring
// (PlatformSpec::treeAllReduce), judged on the links' nominal rates with the ring's channels, so that
// every fidelity makes the same choice.
bool treeAllReduce(const PlatformSpec& spec, const std::vector<std::int64_t>& ranks, double bytes);

} // namespace choreo::sim
