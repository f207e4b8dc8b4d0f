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

// The share of a device's ring traffic that crosses edge a -> b when the ring runs as g channels: 1/g
// over its NIC (the channel it leaves the node on), (g-1)/g over the scale-up fabric; all of it for g = 1.
double ringEdgeShare(const PlatformSpec& spec, double g, std::int64_t a, std::int64_t b);

// How an all-reduce of `bytes` per rank over `ranks` runs: NCCL's ring, or its tree where NCCL's tuner
// would pick it (the smaller latency + bytes / bandwidth, judged on the links' nominal rates with the
// ring's channels, so that every fidelity makes the same choice; never without the tree's figures).
struct AllReduceAlgorithm {
    bool tree = false;
    double latency_s = 0;      // PlatformSpec::ringLatency or treeLatency
    double bytes_factor = 1.0; // its bytes time over the ring's (PlatformSpec::treeBytesFactor)
};
AllReduceAlgorithm allReduceAlgorithm(const PlatformSpec& spec, const std::vector<std::int64_t>& ranks,
                                      double bytes);

} // namespace choreo::sim
