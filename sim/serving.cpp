#include "sim/serving.h"

#include "sim/engine.h"
#include "sim/isolate.h"
#include "sim/servingengine.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

namespace choreo::sim {

namespace {

using serving::Replica;
using serving::Request;
using serving::Role;
using serving::Shared;
namespace sg4 = simgrid::s4u;

// Latency of a replica's link to the serving fabric (assumed: a switch hop of an RDMA fabric); what a KV
// transfer takes beyond it is its bytes over the replicas' NICs (models::ServeReplicas::link_Bps).
constexpr double kFabricLatencyS = 5e-6;
constexpr double kFrontendBps = 1e12; // the load balancer's link carries no modelled bytes

sg4::Host* attach(sg4::NetZone* zone, const std::string& name, double bandwidth) {
    sg4::Host* h = zone->create_host(name, 1e9);
    h->seal();
    sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name + "-link", bandwidth);
    link->set_latency(kFabricLatencyS);
    link->seal();
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}},
                    true);
    return h;
}

// One star: the load balancer and every replica, each on its own link (the replica's NICs together).
void buildReplicas(Shared& shared) {
    const models::ResolvedServing& s = shared.serving;
    sg4::NetZone* zone = sg4::create_star_zone("serving");
    shared.frontend = attach(zone, "frontend", kFrontendBps);
    auto add = [&](std::vector<std::unique_ptr<Replica>>& into, const models::ServeReplicas& kind,
                   Role role) {
        for (std::int64_t i = 0; i < kind.replicas; ++i) {
            const std::string name = std::string(serving::toString(role)) + std::to_string(i);
            into.push_back(std::make_unique<Replica>(shared, kind, role, attach(zone, name, kind.link_Bps)));
        }
    };
    if (s.disaggregated()) {
        add(shared.first, *s.prefill, Role::Prefill);
        add(shared.decode, s.serve, Role::Decode);
    } else {
        add(shared.first, s.serve, Role::Serve);
    }
    zone->seal();
}

// The load balancer: each request at its arrival to the replica with the fewest outstanding; one longer
// than that replica's whole cache is rejected (it could never be admitted).
void dispatch(Shared& shared) {
    for (Request& r : shared.requests) {
        sg4::this_actor::sleep_until(r.drawn.arrival_s);
        const double now = sg4::Engine::get_clock();
        Replica& to = Shared::leastLoaded(shared.first);
        if (r.drawn.input_tokens + r.drawn.output_tokens > to.capacityTokens()) {
            r.rejected = true;
            shared.settle(r, now);
            continue;
        }
        shared.enter(now);
        to.arrive(r);
    }
}

// Replicas of one role summed into one load: devices and energy add, busy fractions and batches average.
models::ReplicaLoad combine(const std::vector<std::unique_ptr<Replica>>& replicas, double span) {
    models::ReplicaLoad total;
    double batchWeighted = 0;
    for (const auto& replica : replicas) {
        const models::ReplicaLoad l = replica->load(span);
        total.role = l.role;
        total.pool = l.pool;
        total.replicas += 1;
        total.devices += l.devices;
        total.busy_fraction += l.busy_fraction;
        total.it_energy_J += l.it_energy_J;
        total.iterations += l.iterations;
        batchWeighted += l.mean_batch * static_cast<double>(l.iterations);
        total.kv_tokens_per_replica = l.kv_tokens_per_replica;
        total.kv_peak_fraction = std::max(total.kv_peak_fraction, l.kv_peak_fraction);
    }
    if (total.replicas > 0)
        total.busy_fraction /= static_cast<double>(total.replicas);
    if (total.iterations > 0)
        total.mean_batch = batchWeighted / static_cast<double>(total.iterations);
    return total;
}

bool meetsSlo(const models::ServeSlo& slo, double ttft, double tpot) {
    return (!slo.ttft_p99_s || ttft <= *slo.ttft_p99_s) && (!slo.tpot_p99_s || tpot <= *slo.tpot_p99_s);
}

// Mean queueing wait of the requests arriving in the second and in the last quarter of [first, last].
std::pair<double, double> quarterWaits(const Shared& shared, double first, double last) {
    double sum[2] = {0, 0};
    int count[2] = {0, 0};
    const double span = last - first;
    for (const Request& r : shared.requests) {
        if (r.rejected || span <= 0)
            continue;
        const double at = (r.drawn.arrival_s - first) / span;
        const int which = at >= 0.25 && at < 0.5 ? 0 : at >= 0.75 ? 1 : -1;
        if (which < 0)
            continue;
        sum[which] += r.admitted_s - r.drawn.arrival_s;
        ++count[which];
    }
    return {count[0] > 0 ? sum[0] / count[0] : 0.0, count[1] > 0 ? sum[1] / count[1] : 0.0};
}

// Per-request latencies and the span, from what the actors recorded.
models::ServingMeasurement measure(const Shared& shared) {
    models::ServingMeasurement m;
    std::vector<double> ttft, tpot, e2e, queue, transfer;
    double first = -1, lastArrival = 0, lastDone = 0, finalDone = -1;
    std::int64_t withinSlo = 0;
    for (const Request& r : shared.requests) {
        ++m.requests;
        first = first < 0 ? r.drawn.arrival_s : std::min(first, r.drawn.arrival_s);
        if (r.drawn.arrival_s >= lastArrival) {
            lastArrival = r.drawn.arrival_s;
            finalDone = r.rejected ? -1 : r.done_s;
        }
        if (r.rejected) {
            ++m.rejected;
            continue;
        }
        ++m.completed;
        m.input_tokens += static_cast<double>(r.drawn.input_tokens);
        m.output_tokens += static_cast<double>(r.drawn.output_tokens);
        lastDone = std::max(lastDone, r.done_s);
        ttft.push_back(r.first_token_s - r.drawn.arrival_s);
        e2e.push_back(r.done_s - r.drawn.arrival_s);
        queue.push_back(r.admitted_s - r.drawn.arrival_s);
        const double perToken = r.drawn.output_tokens > 1 ? (r.done_s - r.first_token_s) /
                                                                static_cast<double>(r.drawn.output_tokens - 1)
                                                          : 0.0;
        tpot.push_back(perToken);
        if (r.kv_arrived_s >= 0)
            transfer.push_back(r.kv_arrived_s - r.kv_sent_s);
        if (meetsSlo(shared.serving.stage.slo, ttft.back(), perToken))
            ++withinSlo;
    }
    m.span_s = first >= 0 ? std::max(lastDone, lastArrival) - first : 0;
    m.arrival_span_s = first >= 0 ? lastArrival - first : 0;
    m.final_request_done_s = first >= 0 ? (finalDone >= 0 ? finalDone : lastArrival) - first : 0;
    m.ttft_s = models::percentilesOf(ttft);
    m.tpot_s = models::percentilesOf(tpot);
    m.e2e_s = models::percentilesOf(e2e);
    m.queue_s = models::percentilesOf(queue);
    m.kv_transfer_s = models::percentilesOf(transfer);
    m.kv_transferred_GB = shared.kv_transferred_bytes / 1e9;
    m.preemptions = shared.preemptions;
    m.within_slo_fraction =
        m.completed > 0 ? static_cast<double>(withinSlo) / static_cast<double>(m.completed) : 1;
    m.mean_in_system = m.span_s > 0 ? shared.in_system_area / m.span_s : 0;
    if (first >= 0)
        std::tie(m.queue_second_quarter_s, m.queue_last_quarter_s) = quarterWaits(shared, first, lastArrival);
    m.loads.push_back(combine(shared.first, m.span_s));
    if (!shared.decode.empty())
        m.loads.push_back(combine(shared.decode, m.span_s));
    return m;
}

models::ServingMeasurement simulateInSimGrid(const models::ResolvedServing& s,
                                             std::vector<models::ServeRequest> drawn) {
    auto engine = makeEngine();
    Shared shared(s);
    buildReplicas(shared);
    shared.requests.reserve(drawn.size());
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        Request r;
        r.drawn = drawn[i];
        r.id = static_cast<std::int64_t>(i);
        r.prefill_target = drawn[i].input_tokens;
        shared.requests.push_back(r);
    }
    shared.remaining = static_cast<std::int64_t>(shared.requests.size());
    shared.in_system_since = drawn.empty() ? 0 : drawn.front().arrival_s;
    sg4::Actor::create("balancer", shared.frontend, [&shared] { dispatch(shared); });
    std::int64_t activities = 0;
    for (auto* group : {&shared.first, &shared.decode})
        for (auto& replica : *group) {
            Replica* r = replica.get();
            sg4::Actor::create("scheduler", r->host(), [r] { r->run(); });
        }
    engine->run();
    for (const Request& r : shared.requests)
        if (!r.rejected && r.done_s < 0)
            throw SimulationError("the serving simulation stopped with request " + std::to_string(r.id) +
                                  " unfinished (a scheduler could not admit it)");
    auto m = measure(shared);
    for (const auto& load : m.loads)
        activities += load.iterations;
    m.simulated_activities = activities;
    m.fidelity = toString(Fidelity::Flow);
    return m;
}

} // namespace

// Defined in servinganalytical.cpp.
models::ServingMeasurement estimateServing(const models::ResolvedServing& s,
                                           const std::vector<models::ServeRequest>& drawn);

models::ServingMeasurement simulateServing(const models::ResolvedScenario& rs, Fidelity fidelity,
                                           const models::StreamOverride& override) {
    if (!rs.serving)
        throw SimulationError("the scenario has no serve stage");
    const models::ResolvedServing& s = *rs.serving;
    auto drawn = models::drawRequests(s.stage.requests, s.trace, override);
    if (drawn.empty())
        throw SimulationError(s.path + ".requests: the stream sends no requests");
    if (fidelity == Fidelity::Analytical)
        return estimateServing(s, drawn);
    auto m = simulateInSimGrid(s, std::move(drawn));
    if (fidelity == Fidelity::Packet) // said, not silently swapped
        m.fidelity += " (packet asked: serving moves whole KV caches and requests, simulated as flows)";
    return m;
}

} // namespace choreo::sim
