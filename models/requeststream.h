#pragma once
// The requests of a serving stage, drawn from its stream's seed: the same scenario gives the same requests,
// and a stream at another rate reuses the same draws scaled in time (so load can be compared with load).

#include "models/diagnostic.h"
#include "models/scenario.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace choreo::models {

struct ServeRequest {
    double arrival_s = 0;
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
};

// A trace file's rows: seconds since the start, input tokens, output tokens (a header row is allowed).
struct TraceRow {
    double time_s = 0;
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
};

// How a probe of the rate search replaces the stream's arrivals.
struct StreamOverride {
    std::optional<double> poisson_rate_per_s; // Poisson at this rate
    std::optional<std::int64_t> count;        // this many requests
    bool offline = false;                     // all at time 0
};

// The requests of `stream` (trace rows for a trace), in arrival order.
std::vector<ServeRequest> drawRequests(const RequestStream& stream, const std::vector<TraceRow>& trace,
                                       const StreamOverride& override = {});

// The number of requests the stream sends (before drawing them).
std::int64_t requestCount(const RequestStream& stream, const std::vector<TraceRow>& trace,
                          const StreamOverride& override = {});

// Reads a trace file; nullopt with errors naming the file, line and column on any bad row, an empty trace,
// times that go back, or lengths outside 1 .. kMaxRequestTokens.
std::optional<std::vector<TraceRow>> readTrace(const std::filesystem::path& file, Diagnostics& errors);

// A deterministic generator (SplitMix64): the same seed gives the same draws on every platform.
class SeededDraws {
public:
    explicit SeededDraws(std::uint64_t seed)
        : state_(seed) {}
    double uniform(); // in (0, 1)
    double exponential() { return -std::log(uniform()); }
    double normal();

private:
    std::uint64_t next();
    std::uint64_t state_;
};

} // namespace choreo::models
