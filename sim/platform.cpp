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

// A host with its energy properties (set before seal()) and `link` to the zone's centre.
sg4::Host* hostOn(sg4::NetZone* zone, const std::string& name, double speed, const std::string& wattage,
                  sg4::SplitDuplexLink* link) {
    sg4::Host* h = zone->create_host(name, speed);
    h->set_property("wattage_per_state", wattage);
    h->set_property("wattage_off", "0");
    h->seal();
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}},
                    true);
    return h;
}

// A host with its energy properties and its own split-duplex link to the zone's centre.
sg4::Host* attachedHost(sg4::NetZone* zone, const std::string& name, double speed, const std::string& wattage,
                        double bandwidth, double latency) {
    return hostOn(zone, name, speed, wattage, duplex(zone, name + "-link", bandwidth, latency));
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
    // one aggregate uplink whose capacity carries the oversubscription. A dragonfly is a full zone of
    // groups (stars) joined pairwise by their global links; a torus is SimGrid's torus zone. (Every zone
    // makes each later host and link creation slower: SimGrid checks names across all zones.)
    nics_.assign(static_cast<std::size_t>(spec.devices), nullptr);
    switch (spec.fabric) {
    case ScaleOutFabric::Crossbar:
    case ScaleOutFabric::Leaves:
        buildLeaves(root);
        break;
    case ScaleOutFabric::Dragonfly:
        buildDragonfly(root);
        break;
    case ScaleOutFabric::Torus:
        buildTorus(root);
        break;
    }

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

sg4::SplitDuplexLink* Platform::nicLink(sg4::NetZone* zone, std::int64_t i) const {
    return duplex(zone, "nic" + std::to_string(i) + "-link", spec_.nic_Bps, spec_.nic_latency_s);
}

void Platform::addNic(sg4::NetZone* zone, std::int64_t i, sg4::SplitDuplexLink* link) {
    nics_[static_cast<std::size_t>(i)] = hostOn(zone, "nic" + std::to_string(i), 1.0, "0:0:0", link);
}

// Edge groups (leaves, dragonfly groups) as star zones under `parent`, each with a gateway; returns the
// zones and gateways in group order.
std::vector<std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*>>
Platform::edgeGroups(sg4::NetZone* parent, const std::string& prefix) {
    std::vector<std::vector<std::int64_t>> members;
    for (std::int64_t i = 0; i < spec_.devices; ++i) {
        const auto g = static_cast<std::size_t>(spec_.leafOf(i));
        if (g >= members.size())
            members.resize(g + 1);
        members[g].push_back(i);
    }
    // SimGrid checks a new link's name in every zone: the NICs' links are made in `parent` while it has no
    // zones under it, and the groups' routes use them (at 16,384 devices in 512 leaves the checks took
    // 36 % of a step's simulation).
    std::vector<sg4::SplitDuplexLink*> nicLinks;
    nicLinks.reserve(static_cast<std::size_t>(spec_.devices));
    for (std::int64_t i = 0; i < spec_.devices; ++i)
        nicLinks.push_back(nicLink(parent, i));
    std::vector<std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*>> out;
    for (std::size_t g = 0; g < members.size(); ++g) {
        const std::string name = prefix + std::to_string(g);
        sg4::NetZone* zone = starZone(name, parent);
        simgrid::kernel::routing::NetPoint* gateway = zone->create_router(name + "-gw");
        zone->add_route(gateway, nullptr, nullptr, nullptr, {}, true);
        for (std::int64_t i : members[g])
            addNic(zone, i, nicLinks[static_cast<std::size_t>(i)]);
        zone->seal();
        out.emplace_back(zone, gateway);
    }
    return out;
}

void Platform::buildLeaves(sg4::NetZone* root) {
    sg4::NetZone* spine = starZone("scale-out", root);
    if (spec_.fabric == ScaleOutFabric::Crossbar) {
        for (std::int64_t i = 0; i < spec_.devices; ++i)
            addNic(spine, i, nicLink(spine, i));
    } else {
        for (auto [leaf, gateway] : edgeGroups(spine, "leaf")) {
            auto* uplink =
                duplex(spine, leaf->get_name() + "-uplink", spec_.leaf_uplink_Bps, spec_.switch_latency_s);
            spine->add_route(leaf->get_netpoint(), nullptr, gateway, nullptr,
                             {{uplink, sg4::LinkInRoute::Direction::UP}}, true);
        }
    }
    // The other pools sit on the spine: on a crossbar as its hosts, behind leaves as a zone beside the
    // leaves (a SimGrid 3.32 star zone routes wrongly when it holds both hosts and zones).
    if (spec_.fabric == ScaleOutFabric::Crossbar) {
        attachPools(spine);
    } else if (hasPools()) {
        const auto [pools, gateway] = poolsZone(spine);
        spine->add_route(pools->get_netpoint(), nullptr, gateway, nullptr, {}, true);
    }
    spine->seal();
}

bool Platform::hasPools() const {
    return spec_.data.present || spec_.experts.present || spec_.optimizer.present;
}

void Platform::attachPools(sg4::NetZone* zone) {
    // The data stage's storage and CPU pool: batches reach a device through its own NIC link (and its
    // leaf's uplink or its group's global links), where the step's collectives also pass. The storage
    // link carries no latency: the tier's first-byte latency is paid once per batch (DataFlows).
    if (spec_.data.present) {
        storage_ = attachedHost(zone, "storage", 1.0, "0:0:0", spec_.data.storage_Bps, 0.0);
        dataPool_ =
            attachedHost(zone, "data-pool", 1.0, "0:0:0", spec_.data.pool_Bps, spec_.data.pool_latency_s);
    }
    // Offloaded experts: their pool's NICs, where every training device's dispatch and combine arrive.
    if (spec_.experts.present)
        expertPool_ = attachedHost(zone, "expert-pool", 1.0, "0:0:0", spec_.experts.pool_Bps,
                                   spec_.experts.pool_latency_s);
    // The optimizer on a CPU pool: its NICs, where every training device's gradients arrive.
    if (spec_.optimizer.present)
        optimizerPool_ = attachedHost(zone, "optimizer-pool", 1.0, "0:0:0", spec_.optimizer.pool_Bps,
                                      spec_.optimizer.pool_latency_s);
}

std::pair<sg4::NetZone*, simgrid::kernel::routing::NetPoint*> Platform::poolsZone(sg4::NetZone* parent) {
    sg4::NetZone* pools = starZone("pools", parent);
    simgrid::kernel::routing::NetPoint* gateway = pools->create_router("pools-gw");
    pools->add_route(gateway, nullptr, nullptr, nullptr, {}, true);
    attachPools(pools);
    pools->seal();
    return {pools, gateway};
}

void Platform::buildDragonfly(sg4::NetZone* root) {
    // Inside a group the routers' local links are taken as non-blocking; between two groups, minimal
    // routes share that pair's bundle of global links.
    sg4::NetZone* top = sg4::create_full_zone("scale-out");
    top->set_parent(root);
    const auto groups = edgeGroups(top, "group");
    for (std::size_t a = 0; a < groups.size(); ++a)
        for (std::size_t b = a + 1; b < groups.size(); ++b) {
            auto* global = duplex(top, "global" + std::to_string(a) + "-" + std::to_string(b),
                                  spec_.global_link_Bps, spec_.switch_latency_s);
            top->add_route(groups[a].first->get_netpoint(), groups[b].first->get_netpoint(), groups[a].second,
                           groups[b].second, {{global, sg4::LinkInRoute::Direction::UP}}, true);
        }
    // The other pools as a group of their own, joined to every group by a bundle like theirs.
    if (hasPools()) {
        const auto [pools, gateway] = poolsZone(top);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            auto* bundle =
                duplex(top, "pools-" + std::to_string(g), spec_.global_link_Bps, spec_.switch_latency_s);
            top->add_route(pools->get_netpoint(), groups[g].first->get_netpoint(), gateway, groups[g].second,
                           {{bundle, sg4::LinkInRoute::Direction::UP}}, true);
        }
    }
    top->seal();
}

void Platform::buildTorus(sg4::NetZone* root) {
    // The axes longer than 1 (a [64, 1, 1] torus is a ring of 64): SimGrid links each position to itself
    // along an axis of 1 and names those links alike, so two such axes would declare one link twice and
    // abort. Leaving them out keeps every position's number.
    std::vector<unsigned long> dims;
    for (const std::int64_t axis : spec_.network.dims)
        if (axis > 1)
            dims.push_back(static_cast<unsigned long>(axis));
    if (dims.empty())
        dims.push_back(1);
    // SimGrid numbers torus positions with x fastest, as NetworkPlan::torusCoord does.
    auto position = [this](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
        sg4::Host* h = zone->create_host("nic" + std::to_string(id), 1.0);
        h->set_property("wattage_per_state", "0:0:0");
        h->set_property("wattage_off", "0");
        h->seal();
        nics_[id] = h;
        return std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*>{
            h->get_netpoint(), nullptr};
    };
    sg4::NetZone* torus = sg4::create_torus_zone("scale-out", root, dims, sg4::ClusterCallbacks(position),
                                                 spec_.global_link_Bps, spec_.switch_latency_s,
                                                 sg4::Link::SharingPolicy::SPLITDUPLEX);
    torus->seal();
}

std::pair<sg4::Host*, sg4::Host*> Platform::endpoints(std::int64_t a, std::int64_t b) const {
    if (sameNode(a, b))
        return {device(a), device(b)};
    return {nic(a), nic(b)};
}

} // namespace choreo::sim
