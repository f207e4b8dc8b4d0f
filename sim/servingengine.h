#pragma once
// Internal to sim: the serving simulation's actors (includes SimGrid). The state every actor shares is
// plain data: SimGrid runs one actor at a time, so no lock guards it; condition variables only wake idle
// schedulers.

#include "models/requeststream.h"
#include "models/resolved.h"
#include "models/servingresult.h"

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace choreo::sim::serving {

namespace sg4 = simgrid::s4u;

// One request through its life: waiting, admitted, prefilling (in chunks), decoding, done.
struct Request {
    models::ServeRequest drawn;
    std::int64_t id = 0;
    std::int64_t generated = 0; // output tokens sent
    std::int64_t cached = 0;    // tokens whose K and V the replica holds
    std::int64_t prefill_target =
        0;                   // tokens to prefill on admission: the prompt, or all so far after preemption
    std::int64_t blocks = 0; // cache blocks held
    double first_token_s = -1, done_s = -1, admitted_s = -1;
    double kv_sent_s = -1, kv_arrived_s = -1;
    bool rejected = false;
    [[nodiscard]] bool prefilled() const { return cached >= prefill_target; }
};

enum class Role { Serve, Prefill, Decode };
const char* toString(Role role);

class Replica;

// What every actor shares: the requests, the replicas, the clock-weighted count in the system.
struct Shared {
    const models::ResolvedServing& serving;
    std::vector<Request> requests;
    std::vector<std::unique_ptr<Replica>> first;  // where requests arrive (serve, or prefill replicas)
    std::vector<std::unique_ptr<Replica>> decode; // disaggregated: where prefilled requests go
    sg4::Host* frontend = nullptr;
    std::int64_t remaining = 0; // requests neither done nor rejected
    std::int64_t in_system = 0;
    double in_system_area = 0, in_system_since = 0;
    std::int64_t preemptions = 0;
    double kv_transferred_bytes = 0;

    explicit Shared(const models::ResolvedServing& s)
        : serving(s) {}
    void enter(double now);
    void leave(double now);
    void settle(Request& r, double now); // done or rejected: wakes everyone when it was the last
    void wakeAll();
    // The replica with the fewest requests outstanding (the lowest index on ties).
    static Replica& leastLoaded(const std::vector<std::unique_ptr<Replica>>& replicas);
};

// One model replica and its engine's scheduler (vLLM V1's order: running decodes first, then a partial
// prefill, then admissions from the waiting queue, within the token budget and the batch limit; blocks taken
// as tokens come, the newest request preempted and later recomputed when they run out, unless the engine
// reserves every request's whole output on admission). An engine without mixed batches (vLLM V0) runs
// prefills alone and first; one with several decode steps runs a decode batch that many iterations before
// it schedules again.
class Replica {
public:
    Replica(Shared& shared, const models::ServeReplicas& kind, Role role, sg4::Host* host);
    void run();               // the scheduler actor's body
    void arrive(Request& r);  // joins the waiting queue
    void wake();              // the stream has ended, or blocks were freed
    void release(Request& r); // frees the request's cache blocks
    [[nodiscard]] std::int64_t outstanding() const { return outstanding_; }
    [[nodiscard]] sg4::Host* host() const { return host_; }
    [[nodiscard]] models::ReplicaLoad load(double span_s) const;
    [[nodiscard]] std::int64_t capacityTokens() const;

private:
    struct Chunk {
        Request* request;
        std::int64_t tokens;
    };
    struct Plan {
        std::vector<Request*> decodes;
        std::vector<Chunk> chunks;
        models::BatchShape shape;
    };
    Plan plan();
    void scheduleDecodes(Plan& plan, std::int64_t& budget);
    void schedulePrefills(Plan& plan, std::int64_t& budget);
    bool admit(Plan& plan, std::int64_t& budget);
    bool takeBlocks(Request& r, std::int64_t tokens);
    void preemptNewest();
    static models::BatchShape decodeShape(const std::vector<Request*>& decodes);
    void runIteration(const Plan& p);
    void continueDecodes(Plan& p);
    void finishIteration(const Plan& plan, double now);
    void emitToken(Request& r, double now);
    void handOff(Request& r); // disaggregated: the KV cache to a decode replica
    void retire(Request& r, double now);

    Shared& shared_;
    const models::ServeReplicas& kind_;
    Role role_;
    sg4::Host* host_;
    sg4::ConditionVariablePtr wake_;
    sg4::MutexPtr mutex_;
    std::deque<Request*> waiting_;
    std::vector<Request*> running_; // in admission order
    std::int64_t free_blocks_ = 0;
    std::int64_t outstanding_ = 0;
    // What the load reports.
    double busy_s_ = 0, busy_energy_fraction_s_ = 0;
    std::int64_t iterations_ = 0, batched_sequences_ = 0, peak_blocks_ = 0;
};

} // namespace choreo::sim::serving
