#include "sim/servingengine.h"

#include <algorithm>
#include <mutex>
#include <string>

namespace choreo::sim::serving {

const char* toString(Role role) {
    switch (role) {
    case Role::Serve:
        return "serve";
    case Role::Prefill:
        return "prefill";
    case Role::Decode:
        return "decode";
    }
    return "serve";
}

void Shared::enter(double now) {
    in_system_area += static_cast<double>(in_system) * (now - in_system_since);
    in_system_since = now;
    ++in_system;
}

void Shared::leave(double now) {
    in_system_area += static_cast<double>(in_system) * (now - in_system_since);
    in_system_since = now;
    --in_system;
}

void Shared::settle(Request& r, double now) {
    if (!r.rejected) {
        r.done_s = now;
        leave(now);
    }
    if (--remaining == 0)
        wakeAll();
}

void Shared::wakeAll() {
    for (auto* group : {&first, &decode})
        for (auto& replica : *group)
            replica->wake();
}

Replica& Shared::leastLoaded(const std::vector<std::unique_ptr<Replica>>& replicas) {
    Replica* best = replicas.front().get();
    for (const auto& r : replicas)
        if (r->outstanding() < best->outstanding())
            best = r.get();
    return *best;
}

Replica::Replica(Shared& shared, const models::ServeReplicas& kind, Role role, sg4::Host* host)
    : shared_(shared)
    , kind_(kind)
    , role_(role)
    , host_(host)
    , wake_(sg4::ConditionVariable::create())
    , mutex_(sg4::Mutex::create())
    , free_blocks_(kind.kv_blocks) {}

std::int64_t Replica::capacityTokens() const {
    return kind_.kv_blocks * shared_.serving.kv_block_tokens;
}

void Replica::arrive(Request& r) {
    waiting_.push_back(&r);
    ++outstanding_;
    wake_->notify_all();
}

void Replica::wake() {
    wake_->notify_all();
}

bool Replica::takeBlocks(Request& r, std::int64_t tokens) {
    const std::int64_t blockTokens = shared_.serving.kv_block_tokens;
    const std::int64_t needed = (tokens + blockTokens - 1) / blockTokens - r.blocks;
    if (needed <= 0)
        return true;
    if (needed > free_blocks_)
        return false;
    free_blocks_ -= needed;
    r.blocks += needed;
    peak_blocks_ = std::max(peak_blocks_, kind_.kv_blocks - free_blocks_);
    return true;
}

void Replica::release(Request& r) {
    free_blocks_ += r.blocks;
    r.blocks = 0;
}

// Recompute preemption: the newest running request gives its blocks back and waits at the head of the queue;
// on readmission it prefills its prompt and what it had generated.
void Replica::preemptNewest() {
    Request* victim = running_.back();
    running_.pop_back();
    release(*victim);
    victim->cached = 0;
    victim->prefill_target = victim->drawn.input_tokens + victim->generated;
    waiting_.push_front(victim);
    ++shared_.preemptions;
}

void Replica::scheduleDecodes(Plan& plan, std::int64_t& budget) {
    const bool reserve = shared_.serving.reserve_full_output;
    // A batch that runs several iterations before the scheduler runs again holds blocks for all of them.
    const std::int64_t ahead = shared_.serving.decode_steps;
    for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
        Request* r = running_[i];
        if (!r->prefilled())
            continue;
        if (static_cast<std::int64_t>(plan.decodes.size() + plan.chunks.size()) >= shared_.serving.max_batch)
            return;
        while (!reserve && !takeBlocks(*r, r->cached + ahead)) {
            const bool self = running_.back() == r;
            preemptNewest();
            if (self)
                return;
        }
        plan.decodes.push_back(r);
        --budget;
    }
}

// Running requests whose prompt is not all in the cache yet (a chunked prefill carried over).
void Replica::schedulePrefills(Plan& plan, std::int64_t& budget) {
    const auto& s = shared_.serving;
    for (Request* r : running_) {
        if (r->prefilled() || budget <= 0)
            continue;
        const std::int64_t left = r->prefill_target - r->cached;
        const std::int64_t chunk = s.chunked_prefill ? std::min(left, budget) : left;
        if (!s.chunked_prefill && chunk > budget && (!plan.chunks.empty() || !plan.decodes.empty()))
            continue;
        if (!takeBlocks(*r, r->cached + chunk))
            continue;
        plan.chunks.push_back({r, chunk});
        budget -= chunk;
    }
}

// Admits the head of the waiting queue when the batch, the budget and the cache allow; false when it cannot.
bool Replica::admit(Plan& plan, std::int64_t& budget) {
    const auto& s = shared_.serving;
    // Mixed batches count what this iteration carries; otherwise every running request counts (vLLM V0's
    // max_num_seqs), since those decoding wait outside a prefill's iteration.
    const auto batch = s.mixed_batches ? plan.decodes.size() + plan.chunks.size() : running_.size();
    if (waiting_.empty() || budget <= 0 || static_cast<std::int64_t>(batch) >= s.max_batch)
        return false;
    Request* r = waiting_.front();
    const bool arrivesPrefilled = role_ == Role::Decode && r->prefilled();
    const std::int64_t left = arrivesPrefilled ? 1 : r->prefill_target - r->cached;
    const bool alone = plan.chunks.empty() && plan.decodes.empty();
    if (!s.chunked_prefill && left > budget && !alone)
        return false;
    const std::int64_t chunk = s.chunked_prefill ? std::min(left, budget) : left;
    const std::int64_t whole = r->drawn.input_tokens + r->drawn.output_tokens;
    const std::int64_t tokens = s.reserve_full_output ? whole : r->cached + chunk;
    if (!takeBlocks(*r, tokens))
        return false;
    waiting_.pop_front();
    running_.push_back(r);
    if (r->admitted_s < 0)
        r->admitted_s = sg4::Engine::get_clock();
    if (arrivesPrefilled) {
        plan.decodes.push_back(r);
        budget -= 1;
    } else {
        plan.chunks.push_back({r, chunk});
        budget -= chunk;
    }
    return true;
}

// Mixed batches: running decodes first, then prefill chunks and admissions in the budget left. Otherwise
// prefills first and alone (vLLM V0: "Don't schedule decodes if prefills are scheduled"), decodes when no
// prompt is admitted.
Replica::Plan Replica::plan() {
    Plan plan;
    std::int64_t budget = shared_.serving.max_tokens_per_iteration;
    if (shared_.serving.mixed_batches)
        scheduleDecodes(plan, budget);
    schedulePrefills(plan, budget);
    while (admit(plan, budget)) {
    }
    if (!shared_.serving.mixed_batches && plan.chunks.empty())
        scheduleDecodes(plan, budget);
    plan.shape = decodeShape(plan.decodes);
    for (const Chunk& c : plan.chunks) {
        const auto before = static_cast<double>(c.request->cached);
        const auto n = static_cast<double>(c.tokens);
        plan.shape.prefill_tokens += c.tokens;
        plan.shape.prefill_attention_pairs += n * (before + n / 2.0);
        if (c.request->cached + c.tokens >= c.request->prefill_target)
            ++plan.shape.logits;
    }
    return plan;
}

void Replica::retire(Request& r, double now) {
    running_.erase(std::find(running_.begin(), running_.end(), &r));
    release(r);
    --outstanding_;
    shared_.settle(r, now);
}

void Replica::emitToken(Request& r, double now) {
    ++r.generated;
    if (r.first_token_s < 0)
        r.first_token_s = now;
    if (r.generated >= r.drawn.output_tokens) {
        retire(r, now);
        return;
    }
    if (role_ == Role::Prefill)
        handOff(r);
}

// The prompt's cache crosses to the least-loaded decode replica; the blocks here are freed once it has.
void Replica::handOff(Request& r) {
    running_.erase(std::find(running_.begin(), running_.end(), &r));
    --outstanding_;
    Replica& to = Shared::leastLoaded(shared_.decode);
    const double bytes = shared_.serving.kv_bytes_per_token * static_cast<double>(r.cached);
    shared_.kv_transferred_bytes += bytes;
    r.kv_sent_s = sg4::Engine::get_clock();
    Request* request = &r;
    sg4::Actor::create("kv" + std::to_string(r.id), host_, [this, request, &to, bytes] {
        sg4::Comm::sendto(host_, to.host(), bytes);
        request->kv_arrived_s = sg4::Engine::get_clock();
        release(*request);
        to.arrive(*request);
        wake_->notify_all();
    });
}

void Replica::finishIteration(const Plan& plan, double now) {
    for (const Chunk& c : plan.chunks) {
        c.request->cached += c.tokens;
        if (c.request->prefilled())
            emitToken(*c.request, now);
    }
    for (Request* r : plan.decodes) {
        r->cached += 1;
        emitToken(*r, now);
    }
}

models::BatchShape Replica::decodeShape(const std::vector<Request*>& decodes) {
    models::BatchShape shape;
    shape.decode_sequences = static_cast<std::int64_t>(decodes.size());
    shape.logits = shape.decode_sequences;
    for (const Request* r : decodes)
        shape.decode_context_tokens += static_cast<double>(r->cached);
    return shape;
}

void Replica::runIteration(const Plan& p) {
    const models::IterationCost cost = models::iterationCost(shared_.serving, kind_, p.shape);
    sg4::this_actor::sleep_for(cost.total_s);
    busy_s_ += cost.total_s;
    busy_energy_fraction_s_ += cost.total_s * cost.powerFraction();
    ++iterations_;
    batched_sequences_ += static_cast<std::int64_t>(p.decodes.size() + p.chunks.size());
    finishIteration(p, sg4::Engine::get_clock());
}

// A decode batch's further iterations before the scheduler runs again (multi-step scheduling): the requests
// that finished leave it, and nothing joins.
void Replica::continueDecodes(Plan& p) {
    for (std::int64_t step = 1; step < shared_.serving.decode_steps; ++step) {
        std::erase_if(p.decodes, [](const Request* r) { return r->generated >= r->drawn.output_tokens; });
        if (p.decodes.empty())
            return;
        p.shape = decodeShape(p.decodes);
        runIteration(p);
    }
}

void Replica::run() {
    for (;;) {
        if (running_.empty() && waiting_.empty()) {
            if (shared_.remaining == 0)
                return;
            std::unique_lock lock(*mutex_);
            wake_->wait(lock);
            continue;
        }
        Plan p = plan();
        if (p.decodes.empty() && p.chunks.empty()) {
            // Nothing fits until a transfer frees blocks or more requests arrive.
            std::unique_lock lock(*mutex_);
            wake_->wait(lock);
            continue;
        }
        runIteration(p);
        if (p.chunks.empty() && role_ != Role::Prefill)
            continueDecodes(p);
    }
}

models::ReplicaLoad Replica::load(double span_s) const {
    models::ReplicaLoad l;
    l.role = toString(role_);
    l.pool = kind_.pool;
    l.replicas = 1;
    l.devices = kind_.parallel.devices();
    l.busy_fraction = span_s > 0 ? busy_s_ / span_s : 0;
    const auto& d = *kind_.device;
    const double perDevice =
        d.idle_W.value * span_s + (d.tdp_W.value - d.idle_W.value) * busy_energy_fraction_s_;
    l.it_energy_J = perDevice * static_cast<double>(l.devices);
    l.iterations = iterations_;
    l.mean_batch =
        iterations_ > 0 ? static_cast<double>(batched_sequences_) / static_cast<double>(iterations_) : 0;
    l.kv_tokens_per_replica = capacityTokens();
    l.kv_peak_fraction =
        kind_.kv_blocks > 0 ? static_cast<double>(peak_blocks_) / static_cast<double>(kind_.kv_blocks) : 0;
    return l;
}

} // namespace choreo::sim::serving
