#pragma once
// What a simulated request stream gave (per-request latencies from the events), and what a serving result
// reports from it: throughput, latency percentiles, goodput under the SLOs, cost and energy per token.

#include "models/jsonreader.h"
#include "models/resolved.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

struct Percentiles {
    double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};
// The percentiles of `values` (nearest rank, as MLPerf's LoadGen); zeros when empty.
Percentiles percentilesOf(std::vector<double> values);

// One kind of replica over the stream: how busy, and the energy its devices drew.
struct ReplicaLoad {
    std::string role; // "serve", "prefill" or "decode"
    std::size_t pool = 0;
    std::int64_t replicas = 0;
    std::int64_t devices = 0;
    double busy_fraction = 0; // of the stream's span, averaged over the replicas
    double it_energy_J = 0;   // the devices, busy and idle, over the span
    std::int64_t iterations = 0;
    double mean_batch = 0; // sequences an iteration
    std::int64_t kv_tokens_per_replica = 0;
    double kv_peak_fraction = 0; // the fullest the cache got
};

// What one simulation of a request stream measured.
struct ServingMeasurement {
    std::int64_t requests = 0;  // arrived
    std::int64_t completed = 0; // all their output tokens sent
    std::int64_t rejected = 0;  // longer than a replica's whole KV cache: never admitted
    std::int64_t preemptions = 0;
    double span_s = 0;         // first arrival to last completion
    double arrival_span_s = 0; // first to last arrival
    // First arrival to the completion of the request that arrived last: the time MLPerf LoadGen divides a
    // Server run's tokens by (results.cc: token_count / final_query_all_samples_done_time).
    double final_request_done_s = 0;
    double input_tokens = 0, output_tokens = 0;
    Percentiles ttft_s, tpot_s, e2e_s, queue_s;
    double mean_in_system = 0; // time-averaged requests in the system (Little's L)
    // Mean queueing wait of the requests arriving in the second and in the last quarter of the arrivals: a
    // backlog that grows through the stream waits longer at its end (the rate is not sustained).
    double queue_second_quarter_s = 0, queue_last_quarter_s = 0;
    double within_slo_fraction = 1; // completed requests meeting both SLOs
    double kv_transferred_GB = 0;   // disaggregated: prefill to decode
    Percentiles kv_transfer_s;
    std::vector<ReplicaLoad> loads;
    std::string fidelity;
    std::int64_t simulated_activities = 0;
};

// One Poisson load the rate search simulated: the latency the system gave at that throughput.
struct LoadPoint {
    double rate_rps = 0;            // offered
    double output_tokens_per_s = 0; // sustained: rate x mean output (a growing queue: over the probe's span)
    Percentiles ttft_s, tpot_s;
    bool meets_slo = false;
    bool queue_grows = false; // not sustained: the backlog grew through the probe (so it misses the SLOs)
};

// The highest Poisson rate whose p99 TTFT and TPOT meet the SLOs, as MLPerf's Server scenario searches it.
struct RateSearch {
    bool searched = false;
    std::optional<double> max_rate_rps;    // none: even the lowest rate tried misses them
    std::string verdict;                   // "meets the SLOs up to 12.3 requests/s", or why it cannot
    double output_tokens_per_s_at_max = 0; // the highest rate times its requests' mean output
    // The probe at that rate as MLPerf LoadGen reports a Server run: its tokens over final_request_done_s,
    // which counts part of the drain after the last arrival.
    double loadgen_tokens_per_s_at_max = 0;
    Percentiles ttft_at_max_s, tpot_at_max_s;
    int probes = 0;
    std::optional<double> ttft_slo_s, tpot_slo_s; // the bounds searched under
    std::vector<LoadPoint> curve;                 // every Poisson probe, by rate: latency against throughput
};

struct ServingResult {
    ServingMeasurement stream;
    RateSearch search;
    double output_tokens_per_s = 0;
    double requests_per_s = 0;
    double goodput_rps = 0; // completed requests within the SLOs, per second
    std::int64_t devices = 0;
    std::optional<double> target_rate_rps;
    std::optional<std::int64_t> devices_for_target;
    std::optional<std::int64_t> replicas_for_target;
    double usd_per_hour = 0; // the serving pools, in the scenario's cost mode
    double usd_per_million_tokens = 0;
    std::optional<double> usd_per_million_tokens_rent;
    std::optional<double> usd_per_million_tokens_buy;
    double joules_per_token = 0; // at the facility
    double it_power_kW = 0;
    double average_power_kW = 0; // at the facility
    double weights_GB_per_device = 0;
    double kv_GB_per_device = 0;
    std::string engine;
    std::string weights, kv_cache;
    // Train here, serve there: serving over the horizon beside the training's cost.
    double horizon_months = 0;
    double horizon_serving_usd = 0;
    double horizon_serving_MWh = 0;
};

// How far serving predictions were from published measurements, over all devices together:
// `choreo-sim validate ../shared/validation/published-inference.csv`, flow fidelity (docs/validation.md,
// "Serving"). Median |error| per metric, with its row count; every serving result quotes it.
struct ServingAccuracy {
    const char* date;
    int measurements;
    double throughput_pct;
    int throughput_rows;
    double tpot_p99_pct;
    int tpot_p99_rows;
    double ttft_p99_pct;
    int ttft_p99_rows;
};
const ServingAccuracy& servingAccuracy();

// Throughput, goodput, cost and energy per token from a measured stream (`search` filled by the caller).
ServingResult finishServing(const ResolvedScenario& scenario, const ServingMeasurement& stream);

// The first headline quantity that is not a finite, non-negative number, or an empty string.
std::string unphysicalServingQuantity(const ServingResult& result);

Json servingToJson(const ServingResult& result);
// Reads what servingToJson wrote; nullopt (with diagnostics) when it is malformed.
std::optional<ServingResult> servingFromJson(const Json& json, Diagnostics& errors);
Json measurementToJson(const ServingMeasurement& m);
// Reads what measurementToJson wrote (a rate-search probe's outcome).
std::optional<ServingMeasurement> measurementFromJson(const Json& json, Diagnostics& errors);

} // namespace choreo::models
