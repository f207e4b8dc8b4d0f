#pragma once
// Internal to sim: includes SimGrid. Never include from a public sim header.

#include "models/resolved.h"

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <vector>

namespace choreo::sim {

namespace sg4 = simgrid::s4u;

// Link figures of a platform, in SI units, after efficiency factors.
struct PlatformSpec {
    std::int64_t devices = 0;
    std::int64_t devices_per_node = 1;
    std::int64_t nodes_per_leaf = 4;
    double device_speed_flops = 1e12; // host speed: the dense peak at the workload's precision
    double idle_W = 0;
    double busy_W = 0;
    double scale_up_Bps = 0; // effective, per device, one direction
    double scale_up_latency_s = 0;
    double nic_Bps = 0; // effective, per device, one direction
    double nic_latency_s = 0;
    double leaf_uplink_Bps = 0;  // aggregate leaf-to-spine capacity (oversubscription applied)
    bool oversubscribed = false; // leaf uplinks narrower than their downlinks: model them
    double switch_latency_s = 0;

    // The spec of a resolved scenario's training pool.
    static PlatformSpec fromScenario(const models::ResolvedScenario& scenario);
};

// The SimGrid platform of one pool: per device a compute host (its scale-up link goes to the node's
// switch) and a NIC endpoint (its NIC link goes to the leaf switch of a two-tier fat tree). Traffic
// between devices of one node uses the scale-up fabric; traffic between nodes uses the NICs.
// Build it after the Engine and before Engine::run(); it keeps its own host tables (no name lookups).
class Platform {
public:
    Platform(sg4::Engine& engine, const PlatformSpec& spec);

    [[nodiscard]] const PlatformSpec& spec() const { return spec_; }
    [[nodiscard]] sg4::Host* device(std::int64_t i) const { return devices_[static_cast<std::size_t>(i)]; }
    [[nodiscard]] sg4::Host* nic(std::int64_t i) const { return nics_[static_cast<std::size_t>(i)]; }
    [[nodiscard]] sg4::Host* timer() const { return timer_; }
    [[nodiscard]] std::int64_t nodeOf(std::int64_t device) const { return device / spec_.devices_per_node; }
    [[nodiscard]] bool sameNode(std::int64_t a, std::int64_t b) const { return nodeOf(a) == nodeOf(b); }
    // Endpoints a transfer from device a to device b uses (device hosts or NIC endpoints).
    [[nodiscard]] std::pair<sg4::Host*, sg4::Host*> endpoints(std::int64_t a, std::int64_t b) const;
    // One-way latency of the route from a to b.
    [[nodiscard]] double latency(std::int64_t a, std::int64_t b) const;
    [[nodiscard]] std::int64_t leafOf(std::int64_t device) const {
        return device / (spec_.nodes_per_leaf * spec_.devices_per_node);
    }
    // Speed of the timer host, which runs delays as executions (seconds * this = flops).
    static constexpr double kTimerSpeed = 1e9;

private:
    PlatformSpec spec_;
    std::vector<sg4::Host*> devices_;
    std::vector<sg4::Host*> nics_;
    sg4::Host* timer_ = nullptr;
};

} // namespace choreo::sim
