// The serving result: the scenario's stream, then the rate search under the SLOs (MLPerf Server's: the
// highest Poisson rate whose p99 TTFT and p99 TPOT meet their bounds) and the devices a target rate needs.
// Each simulation is a child process (SimGrid keeps process-wide state).

#include "models/servestageio.h"
#include "sim/isolate.h"
#include "sim/serving.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace choreo::sim {

namespace {

// Probes of the search send this many requests (the stream's own count within these bounds), and a Poisson
// probe at least kMinProbeSeconds of arrivals (MLPerf's min_duration, 600 s), so that the queue a rate
// builds shows in its p99: enough for a p99 that is not its maximum, few enough that a search of a dozen
// probes stays within seconds.
constexpr std::int64_t kMinProbeRequests = 200;
constexpr std::int64_t kMaxProbeRequests = 100000;
constexpr double kMinProbeSeconds = 600;
constexpr int kBisections = 8;
constexpr int kMaxDoublings = 4;

std::string formatRate(double rps) {
    char b[48];
    std::snprintf(b, sizeof b, "%.3g", rps);
    return b;
}

class Prober {
public:
    Prober(const models::ResolvedScenario& rs, const SimulationOptions& options, int jobs)
        : rs_(rs)
        , options_(options)
        , jobs_(jobs) {}

    // Each override's measurement, simulated in children (`jobs` at a time).
    std::vector<models::ServingMeasurement> measure(const std::vector<models::StreamOverride>& overrides) {
        if (options_.fidelity == Fidelity::Analytical) {
            std::vector<models::ServingMeasurement> out;
            out.reserve(overrides.size());
            for (const auto& o : overrides)
                out.push_back(simulateServing(rs_, options_.fidelity, o));
            probes_ += static_cast<int>(overrides.size());
            return out;
        }
        std::vector<std::function<std::string()>> work;
        work.reserve(overrides.size());
        for (const auto& o : overrides)
            work.emplace_back([this, o] {
                return models::measurementToJson(simulateServing(rs_, options_.fidelity, o)).dump();
            });
        const auto outcomes = runIsolated(work, jobs_);
        std::vector<models::ServingMeasurement> out;
        for (const auto& outcome : outcomes) {
            if (!outcome.ok)
                throw SimulationError(outcome.output);
            models::Diagnostics errors;
            auto m = models::measurementFromJson(models::Json::parse(outcome.output), errors);
            if (!m)
                throw SimulationError("a serving simulation returned a malformed measurement: " +
                                      models::joinDiagnostics(errors));
            out.push_back(std::move(*m));
        }
        probes_ += static_cast<int>(overrides.size());
        if (options_.progress)
            options_.progress(std::min(0.95, probes_ / 12.0), "simulating request streams");
        return out;
    }
    models::ServingMeasurement one(const models::StreamOverride& o) { return measure({o}).front(); }
    [[nodiscard]] int probes() const { return probes_; }

private:
    const models::ResolvedScenario& rs_;
    const SimulationOptions& options_;
    int jobs_;
    int probes_ = 0;
};

// The requests a probe sends: the stream's own count, within the probes' bounds.
std::int64_t probeCount(const models::ResolvedServing& s) {
    return std::clamp(models::requestCount(s.stage.requests, s.trace), kMinProbeRequests,
                      kMaxProbeRequests / 10);
}

// A rate is sustained when the queue does not grow through the probe: the requests arriving in its last
// quarter wait at most kSteadyWaitRatio times as long as those of its second quarter, or at most a tolerance
// longer (a twentieth of the TTFT bound, or kSteadyWaitFloorS without one), whichever is more. A backlog that
// grows would break the bounds of a longer stream at the same rate, so such a rate is not within the SLOs
// however short the probe that measured it.
constexpr double kSteadyWaitRatio = 1.5;
constexpr double kSteadyWaitBoundFraction = 0.05;
constexpr double kSteadyWaitFloorS = 0.05;

bool queueGrows(const models::ServeSlo& slo, const models::ServingMeasurement& m) {
    const double tolerance = slo.ttft_p99_s ? kSteadyWaitBoundFraction * *slo.ttft_p99_s : kSteadyWaitFloorS;
    return m.queue_last_quarter_s >
           std::max(kSteadyWaitRatio * m.queue_second_quarter_s, m.queue_second_quarter_s + tolerance);
}

bool meets(const models::ServeSlo& slo, const models::ServingMeasurement& m) {
    return (!slo.ttft_p99_s || m.ttft_s.p99 <= *slo.ttft_p99_s) &&
           (!slo.tpot_p99_s || m.tpot_s.p99 <= *slo.tpot_p99_s) && !queueGrows(slo, m);
}

std::string missed(const models::ServeSlo& slo, const models::ServingMeasurement& m) {
    char b[160];
    if (queueGrows(slo, m) && (!slo.ttft_p99_s || m.ttft_s.p99 <= *slo.ttft_p99_s))
        std::snprintf(b, sizeof b, "the queue grows: the last requests wait %.3g s against %.3g s earlier",
                      m.queue_last_quarter_s, m.queue_second_quarter_s);
    else if (slo.ttft_p99_s && m.ttft_s.p99 > *slo.ttft_p99_s)
        std::snprintf(b, sizeof b, "p99 TTFT %.3g s above the SLO's %.3g s", m.ttft_s.p99, *slo.ttft_p99_s);
    else
        std::snprintf(b, sizeof b, "p99 TPOT %.3g s above the SLO's %.3g s", m.tpot_s.p99, *slo.tpot_p99_s);
    return b;
}

// The output a Poisson rate gives: with a steady queue, the rate times its requests' mean output, as a run
// of any length at that rate converges to (MLPerf Server's tokens a second over a run of 600 s or more);
// the probe's tokens over its own span would also count the drain after its last arrival, a quarter of a
// 600 s probe when requests last minutes. A growing queue gives what the probe achieved.
double outputTokensPerS(bool queueGrew, double rate, const models::ServingMeasurement& m) {
    if (queueGrew || m.completed <= 0)
        return m.span_s > 0 ? m.output_tokens / m.span_s : 0.0;
    return rate * m.output_tokens / static_cast<double>(m.completed);
}

// A probe's point on the latency-against-throughput curve; whether it meets the SLOs.
bool addPoint(models::RateSearch& search, const models::ServeSlo& slo, double rate,
              const models::ServingMeasurement& m) {
    const bool meetsSlo = meets(slo, m);
    const bool grew = queueGrows(slo, m);
    search.curve.push_back({rate, outputTokensPerS(grew, rate, m), m.ttft_s, m.tpot_s, meetsSlo, grew});
    return meetsSlo;
}

// Probes at these fractions of the highest rate found fill in the curve below it (the bisection's probes
// crowd near that rate).
constexpr std::array<double, 3> kCurveFractions{0.25, 0.5, 0.75};

void recordAt(models::RateSearch& search, const models::ServeSlo& slo, double rate,
              const models::ServingMeasurement& m) {
    search.max_rate_rps = rate;
    search.output_tokens_per_s_at_max = outputTokensPerS(queueGrows(slo, m), rate, m);
    search.loadgen_tokens_per_s_at_max =
        m.final_request_done_s > 0 ? m.output_tokens / m.final_request_done_s : 0;
    search.ttft_at_max_s = m.ttft_s;
    search.tpot_at_max_s = m.tpot_s;
}

// The highest Poisson rate meeting the SLOs: first the stream's capacity (all requests at once) and an idle
// stream; then bisection between the idle rate and 1.2 x the capacity. With `fillCurve`, three more loads
// below the highest rate fill in the latency curve (a result's; validation needs only the rate).
models::RateSearch searchRate(const models::ResolvedServing& s, Prober& prober, std::int64_t count,
                              bool fillCurve) {
    models::RateSearch search;
    search.searched = true;
    const auto& slo = s.stage.slo;
    search.ttft_slo_s = slo.ttft_p99_s;
    search.tpot_slo_s = slo.tpot_p99_s;
    models::StreamOverride offline{std::nullopt, count, true};
    const auto capacity = prober.one(offline);
    const double capacityRps =
        capacity.span_s > 0 ? static_cast<double>(capacity.completed) / capacity.span_s : 0;
    const double idleRate = capacityRps / 1000.0;
    const std::int64_t idleCount = std::min<std::int64_t>(count, 50);
    const auto idle = prober.one({idleRate, idleCount, false});
    if (!addPoint(search, slo, idleRate, idle)) {
        search.verdict = "cannot meet the SLOs even idle: " + missed(slo, idle) +
                         " (faster devices, more tensor parallelism or shorter prompts)";
        search.probes = prober.probes();
        return search;
    }
    recordAt(search, slo, idleRate, idle);
    auto at = [&](double rate) -> models::StreamOverride {
        const auto atRate = static_cast<std::int64_t>(std::ceil(rate * kMinProbeSeconds));
        return {rate, std::clamp(atRate, count, kMaxProbeRequests), false};
    };
    // A probe at `rate`: its measurement, and whether it meets the SLOs.
    auto probeAt = [&](double rate) {
        auto m = prober.one(at(rate));
        const bool ok = addPoint(search, slo, rate, m);
        return std::pair{std::move(m), ok};
    };
    // A queue of `count` drains with a shrinking batch, so the capacity it shows may be below what a steady
    // stream sustains: the upper bound grows until a rate misses the SLOs.
    double lo = idleRate, hi = 1.2 * capacityRps;
    for (int i = 0; i < kMaxDoublings; ++i) {
        const auto [m, ok] = probeAt(hi);
        if (!ok)
            break;
        lo = hi;
        recordAt(search, slo, hi, m);
        hi *= 2;
    }
    for (int i = 0; i < kBisections; ++i) {
        const double mid = 0.5 * (lo + hi);
        const auto [m, ok] = probeAt(mid);
        if (ok) {
            lo = mid;
            recordAt(search, slo, mid, m);
        } else {
            hi = mid;
        }
    }
    if (fillCurve && lo > idleRate) { // the curve below the highest rate, in one batch of children
        std::vector<models::StreamOverride> fill;
        fill.reserve(kCurveFractions.size());
        for (double f : kCurveFractions)
            fill.push_back(at(f * lo));
        const auto measured = prober.measure(fill);
        for (std::size_t i = 0; i < fill.size(); ++i)
            addPoint(search, slo, *fill[i].poisson_rate_per_s, measured[i]);
    }
    std::sort(search.curve.begin(), search.curve.end(),
              [](const models::LoadPoint& a, const models::LoadPoint& b) { return a.rate_rps < b.rate_rps; });
    search.verdict = "meets the SLOs up to " + formatRate(lo) +
                     " requests/s (Poisson, with a steady queue; " + formatRate(capacityRps) +
                     " requests/s with every request queued at once)";
    search.probes = prober.probes();
    return search;
}

// The replicas (and devices) a target rate needs, from the rate one replica sustains within the SLOs (or,
// without SLOs, its throughput with every request queued).
void sizeForTarget(models::ServingResult& r, const models::ResolvedServing& s, double sustainedRps) {
    if (!s.stage.target_rate_per_s || sustainedRps <= 0)
        return;
    const double perReplica = sustainedRps / static_cast<double>(s.serve.replicas);
    const auto replicas = static_cast<std::int64_t>(std::ceil(*s.stage.target_rate_per_s / perReplica));
    r.replicas_for_target = replicas;
    double devices = static_cast<double>(replicas * s.serve.parallel.devices());
    if (s.prefill) // prefill replicas in the same proportion
        devices += std::ceil(static_cast<double>(replicas * s.prefill->replicas) /
                             static_cast<double>(s.serve.replicas)) *
                   static_cast<double>(s.prefill->parallel.devices());
    r.devices_for_target = static_cast<std::int64_t>(devices);
}

} // namespace

models::RateSearch searchServingRate(const models::ResolvedScenario& rs, const SimulationOptions& options,
                                     int jobs) {
    if (!rs.serving)
        throw SimulationError("the scenario has no serve stage");
    Prober prober(rs, options, std::max(1, jobs));
    return searchRate(*rs.serving, prober, probeCount(*rs.serving), false);
}

models::ServingResult serveScenario(const models::ResolvedScenario& rs, const SimulationOptions& options,
                                    int jobs) {
    if (!rs.serving)
        throw SimulationError("the scenario has no serve stage");
    const models::ResolvedServing& s = *rs.serving;
    Prober prober(rs, options, std::max(1, jobs));
    const auto stream = prober.one({});
    models::ServingResult r = models::finishServing(rs, stream);
    const std::int64_t count = probeCount(s);
    double sustained = r.requests_per_s;
    if (s.stage.slo.ttft_p99_s || s.stage.slo.tpot_p99_s) {
        r.search = searchRate(s, prober, count, true);
        sustained = r.search.max_rate_rps.value_or(0.0);
    } else if (s.stage.target_rate_per_s) {
        const auto capacity = prober.one({std::nullopt, count, true});
        sustained = capacity.span_s > 0 ? static_cast<double>(capacity.completed) / capacity.span_s : 0;
    }
    sizeForTarget(r, s, sustained);
    if (options.progress)
        options.progress(1.0, "done");
    return r;
}

} // namespace choreo::sim
