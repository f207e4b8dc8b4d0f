// Analytical fidelity for serving: a closed form from the same iteration costs as the event simulation, no
// SimGrid. Each replica takes its share of the arrival rate; the decode batch B is the fixed point of
// Little's law, B = (requests a second per replica) x (output tokens) x (iteration time at B), capped by the
// engine's batch and the cache; the time to first token adds an M/D/1 queue for the prefill work to the
// prompt's own prefill. It gives means only: every percentile it reports is its mean.

#include "models/servingresult.h"
#include "sim/serving.h"

#include <algorithm>
#include <cmath>

namespace choreo::sim {

namespace {

struct StreamMeans {
    double input = 0, output = 0, rate = 0, arrival_span = 0;
    bool offline = false;
    std::int64_t count = 0;
};

StreamMeans meansOf(const std::vector<models::ServeRequest>& drawn) {
    StreamMeans m;
    for (const auto& r : drawn) {
        m.input += static_cast<double>(r.input_tokens);
        m.output += static_cast<double>(r.output_tokens);
    }
    m.count = static_cast<std::int64_t>(drawn.size());
    m.input /= static_cast<double>(m.count);
    m.output /= static_cast<double>(m.count);
    m.arrival_span = drawn.back().arrival_s - drawn.front().arrival_s;
    m.offline = m.arrival_span <= 0.0;
    m.rate = m.offline ? 0.0 : static_cast<double>(m.count - 1) / m.arrival_span;
    return m;
}

// One iteration with `batch` sequences decoding at mean context and `prefillTokens` of prompts beside them.
double iterationTime(const models::ResolvedServing& s, const StreamMeans& m, double batch,
                     double prefillTokens) {
    models::BatchShape shape;
    shape.decode_sequences = std::max<std::int64_t>(0, std::llround(batch));
    shape.decode_context_tokens = batch * (m.input + m.output / 2.0);
    shape.prefill_tokens = std::llround(prefillTokens);
    shape.prefill_attention_pairs = prefillTokens * m.input / 2.0;
    shape.logits = shape.decode_sequences;
    return models::iterationCost(s, s.serve, shape).total_s;
}

double prefillAlone(const models::ResolvedServing& s, const StreamMeans& m) {
    models::BatchShape shape;
    shape.prefill_tokens = std::max<std::int64_t>(1, std::llround(m.input));
    shape.prefill_attention_pairs = m.input * m.input / 2.0;
    shape.logits = 1;
    const double chunks = std::ceil(m.input / static_cast<double>(s.max_tokens_per_iteration));
    return models::iterationCost(s, s.serve, shape).total_s +
           (chunks - 1.0) * s.engine->iteration_overhead_us.value * 1e-6;
}

models::Percentiles flat(double value) {
    return {value, value, value, value};
}

} // namespace

models::ServingMeasurement estimateServing(const models::ResolvedServing& s,
                                           const std::vector<models::ServeRequest>& drawn) {
    const StreamMeans m = meansOf(drawn);
    const double replicas = static_cast<double>(s.serve.replicas);
    const double perSequence = m.input + m.output;
    const double cacheBatch = static_cast<double>(models::kvTokenCapacity(s, s.serve)) / perSequence;
    const double maxBatch = std::max(1.0, std::min(static_cast<double>(s.max_batch), cacheBatch));
    const double full = iterationTime(s, m, maxBatch, maxBatch * m.input / m.output);
    const double capacityRps = replicas * maxBatch / (full * m.output); // requests a second, all replicas

    models::ServingMeasurement out;
    out.requests = out.completed = m.count;
    out.input_tokens = m.input * static_cast<double>(m.count);
    out.output_tokens = m.output * static_cast<double>(m.count);
    out.arrival_span_s = m.arrival_span;
    double tpot = 0, ttft = 0, busy = 1, meanBatch = maxBatch;
    if (m.offline || m.rate >= capacityRps) {
        // Saturated: every replica runs its largest batch; what arrives beyond it queues.
        const double serviceSpan = static_cast<double>(m.count) / capacityRps;
        out.span_s = std::max(serviceSpan, m.arrival_span);
        tpot = full;
        ttft = out.span_s / 2.0;
        if (!m.offline) { // the backlog grows by the excess of arrivals: a wait of t (rate / capacity - 1)
            const double growth = m.arrival_span * (m.rate / capacityRps - 1.0);
            out.queue_second_quarter_s = 0.375 * growth;
            out.queue_last_quarter_s = 0.875 * growth;
        }
    } else {
        const double perReplica = m.rate / replicas;
        double batch = 1.0, t = iterationTime(s, m, 1.0, 0.0);
        for (int i = 0; i < 200; ++i) {
            t = iterationTime(s, m, batch, perReplica * m.input * t);
            batch = std::clamp(0.5 * batch + 0.5 * perReplica * m.output * t, 0.0, maxBatch);
        }
        tpot = t;
        meanBatch = batch;
        const double prefill = prefillAlone(s, m);
        const double rho = std::min(0.99, perReplica * prefill);
        ttft = prefill + t / 2.0 + rho / (2.0 * (1.0 - rho)) * prefill;
        busy = std::min(1.0, perReplica * (ttft + tpot * (m.output - 1.0)));
        out.span_s = m.arrival_span + ttft + tpot * (m.output - 1.0);
    }
    out.final_request_done_s = out.span_s; // the last arrival's mean latency after it
    out.ttft_s = flat(ttft);
    out.tpot_s = flat(tpot);
    out.e2e_s = flat(ttft + tpot * (m.output - 1.0));
    out.mean_in_system = out.span_s > 0 ? static_cast<double>(m.count) * out.e2e_s.mean / out.span_s : 0;
    const bool meets = (!s.stage.slo.ttft_p99_s || ttft <= *s.stage.slo.ttft_p99_s) &&
                       (!s.stage.slo.tpot_p99_s || tpot <= *s.stage.slo.tpot_p99_s);
    out.within_slo_fraction = meets ? 1.0 : 0.0;
    models::ReplicaLoad load;
    load.role = "serve";
    load.pool = s.serve.pool;
    load.replicas = s.serve.replicas;
    load.devices = s.serve.devices();
    load.busy_fraction = busy;
    load.mean_batch = meanBatch;
    const auto& d = *s.serve.device;
    const double fraction = models::kMemoryBoundPowerFraction;
    load.it_energy_J = static_cast<double>(load.devices) * out.span_s *
                       (d.idle_W.value + busy * fraction * (d.tdp_W.value - d.idle_W.value));
    load.kv_tokens_per_replica = models::kvTokenCapacity(s, s.serve);
    out.loads.push_back(load);
    out.fidelity =
        toString(Fidelity::Analytical) + " (closed form, means only; a disaggregated stage as one)";
    return out;
}

} // namespace choreo::sim
