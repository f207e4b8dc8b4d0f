#pragma once
// Internal to sim: includes SimGrid. Never include from a public sim header.

#include "sim/platformspec.h"

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace choreo::sim {

namespace sg4 = simgrid::s4u;

// The SimGrid platform of one pool: per device a compute host (its scale-up link goes to the node's
// switch) and a NIC endpoint on the scale-out network (ScaleOutFabric). Traffic between devices of one
// node uses the scale-up fabric; traffic between nodes uses the NICs.
// Build it after the Engine and before Engine::run(); it keeps its own host tables (no name lookups).
class Platform {
public:
    Platform(sg4::Engine& engine, const PlatformSpec& spec);

    [[nodiscard]] const PlatformSpec& spec() const { return spec_; }
    [[nodiscard]] sg4::Host* device(std::int64_t i) const { return devices_[static_cast<std::size_t>(i)]; }
    [[nodiscard]] sg4::Host* nic(std::int64_t i) const { return nics_[static_cast<std::size_t>(i)]; }
    [[nodiscard]] sg4::Host* timer() const { return timer_; }
    // The data stage's storage tier and CPU pool endpoints (PlatformSpec::data); null when it has none.
    [[nodiscard]] sg4::Host* storage() const { return storage_; }
    [[nodiscard]] sg4::Host* dataPool() const { return dataPool_; }
    // The expert pool's endpoint (PlatformSpec::experts); null when it has none.
    [[nodiscard]] sg4::Host* expertPool() const { return expertPool_; }
    // The optimizer's CPU pool's endpoint (PlatformSpec::optimizer); null when it has none.
    [[nodiscard]] sg4::Host* optimizerPool() const { return optimizerPool_; }
    [[nodiscard]] bool sameNode(std::int64_t a, std::int64_t b) const { return spec_.sameNode(a, b); }
    // Endpoints a transfer from device a to device b uses (device hosts or NIC endpoints).
    [[nodiscard]] std::pair<sg4::Host*, sg4::Host*> endpoints(std::int64_t a, std::int64_t b) const;
    // One-way latency from device a to device b.
    [[nodiscard]] double latency(std::int64_t a, std::int64_t b) const { return spec_.latency(a, b); }
    [[nodiscard]] std::int64_t leafOf(std::int64_t device) const { return spec_.leafOf(device); }
    // Speed of the timer host, which runs delays as executions (seconds * this = flops).
    static constexpr double kTimerSpeed = 1e9;

private:
    // Device i's NIC link (made in `zone`) and its NIC endpoint in `zone` over `link`.
    sg4::SplitDuplexLink* nicLink(sg4::NetZone* zone, std::int64_t i) const;
    void addNic(sg4::NetZone* zone, std::int64_t i, sg4::SplitDuplexLink* link);
    std::vector<std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*>>
    edgeGroups(sg4::NetZone* parent, const std::string& prefix);
    [[nodiscard]] bool hasPools() const; // any other pool's endpoint (PlatformSpec::data, experts, optimizer)
    void attachPools(sg4::NetZone* zone);
    // A star zone of its own under `parent` holding the other pools' endpoints; with its gateway.
    std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*> poolsZone(sg4::NetZone* parent);
    void buildLeaves(sg4::NetZone* root);
    void buildDragonfly(sg4::NetZone* root);
    void buildTorus(sg4::NetZone* root);

    PlatformSpec spec_;
    std::vector<sg4::Host*> devices_;
    std::vector<sg4::Host*> nics_;
    sg4::Host* timer_ = nullptr;
    sg4::Host* storage_ = nullptr;
    sg4::Host* dataPool_ = nullptr;
    sg4::Host* expertPool_ = nullptr;
    sg4::Host* optimizerPool_ = nullptr;
};

} // namespace choreo::sim
