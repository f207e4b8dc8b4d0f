#include "sim/platform.h"

#include <simgrid/plugins/energy.h>

#include <algorithm>
#include <string>

namespace choreo::sim {

namespace {

sg4::NetZone* starZone(const std::string& name, sg4::NetZone* parent) {
    sg4::NetZone* z = sg4::create_star_zone(name);
    z->set_parent(parent);
    return z;
}

sg4::SplitDuplexLink* duplex(sg4::NetZone* zone, const std::string& name, double bandwidth, double latency) {
    sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, bandwidth);
    link->set_latency(latency);
    link->seal();
    return link;
}

// A host with its energy properties (set before seal()) and its own split-duplex link to the zone's
// centre.
sg4::Host* attachedHost(sg4::NetZone* zone, const std::string& name, double speed, const std::string& wattage,
                        double bandwidth, double latency) {
    sg4::Host* h = zone->create_host(name, speed);
    h->set_property("wattage_per_state", wattage);
    h->set_property("wattage_off", "0");
    h->seal();
    auto* link = duplex(zone, name + "-link", bandwidth, latency);
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}},
                    true);
    return h;
}

} // namespace

Platform::Platform(sg4::Engine& engine, const PlatformSpec& spec)
    : spec_(spec) {
    (void)engine;
    sg4::NetZone* root = sg4::create_full_zone("choreo");

    // Scale-up: one star per cluster holding every device; each device reaches its node's switch
    // over its own link. Only devices of one node ever exchange traffic through this zone.
    sg4::NetZone* scaleUp = starZone("scale-up", root);
    devices_.reserve(static_cast<std::size_t>(spec.devices));
    const std::string wattage =
        std::to_string(spec.idle_W) + ":" + std::to_string(spec.busy_W) + ":" + std::to_string(spec.busy_W);
    for (std::int64_t i = 0; i < spec.devices; ++i)
        devices_.push_back(attachedHost(scaleUp, "dev" + std::to_string(i), spec.device_speed_flops, wattage,
                                        spec.scale_up_Bps, spec.scale_up_latency_s));
    scaleUp->seal();

    // Scale-out: each NIC has its own link to the fabric. A non-blocking fabric (fat tree without
    // oversubscription, single switch) never limits a flow beyond the NIC links, so it is one star: a
    // crossbar. An oversubscribed fat tree is a spine (star) of leaf switches (stars), each leaf with
    // one aggregate uplink whose capacity carries the oversubscription. (Every zone makes each later
    // host and link creation slower: SimGrid checks names across all zones.)
    sg4::NetZone* spine = starZone("scale-out", root);
    nics_.reserve(static_cast<std::size_t>(spec.devices));
    auto addNic = [&](sg4::NetZone* zone, std::int64_t i) {
        nics_.push_back(
            attachedHost(zone, "nic" + std::to_string(i), 1.0, "0:0:0", spec.nic_Bps, spec.nic_latency_s));
    };
    if (!spec.oversubscribed) {
        for (std::int64_t i = 0; i < spec.devices; ++i)
            addNic(spine, i);
    } else {
        const std::int64_t perLeaf = spec.nodes_per_leaf * spec.devices_per_node;
        const std::int64_t leaves = (spec.devices + perLeaf - 1) / perLeaf;
        for (std::int64_t l = 0; l < leaves; ++l) {
            const std::string leafName = "leaf" + std::to_string(l);
            sg4::NetZone* leaf = starZone(leafName, spine);
            simgrid::kernel::routing::NetPoint* gateway = leaf->create_router(leafName + "-gw");
            leaf->add_route(gateway, nullptr, nullptr, nullptr, {}, true);
            for (std::int64_t i = l * perLeaf; i < std::min(spec.devices, (l + 1) * perLeaf); ++i)
                addNic(leaf, i);
            leaf->seal();
            auto* uplink = duplex(spine, leafName + "-uplink", spec.leaf_uplink_Bps, spec.switch_latency_s);
            spine->add_route(leaf->get_netpoint(), nullptr, gateway, nullptr,
                             {{uplink, sg4::LinkInRoute::Direction::UP}}, true);
        }
    }
    spine->seal();

    // A host with very many cores runs delays (latency terms) side by side without slowing one another.
    sg4::NetZone* timerZone = starZone("timer", root);
    timer_ = timerZone->create_host("timer", kTimerSpeed);
    timer_->set_core_count(1 << 20);
    timer_->set_property("wattage_per_state", "0:0:0");
    timer_->set_property("wattage_off", "0");
    timer_->seal();
    timerZone->seal();
    root->seal();
}

std::pair<sg4::Host*, sg4::Host*> Platform::endpoints(std::int64_t a, std::int64_t b) const {
    if (sameNode(a, b))
        return {device(a), device(b)};
    return {nic(a), nic(b)};
}

} // namespace choreo::sim
