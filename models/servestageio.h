#pragma once
// The serve stage's part of a scenario file (workload.stages, kind "serve"): its reader, with every number
// bounded and refused by path past its range, and its writer.

#include "models/jsonreader.h"
#include "models/scenario.h"

#include <string>
#include <vector>

namespace choreo::models {

// Bounds of a serve stage's numbers: past them a file is refused, never clamped. Requests and tokens are
// bounded so that a stream the simulator would take hours over, or could not hold, is refused up front.
inline constexpr std::int64_t kMaxServeReplicas = 65536;
inline constexpr std::int64_t kMaxServeParallel = 1024; // tp, pp or ep of one replica
inline constexpr std::int64_t kMaxServeBatch = 65536;
inline constexpr std::int64_t kMaxIterationTokens = 1 << 20;
inline constexpr std::int64_t kMaxKvBlockTokens = 4096;
inline constexpr std::int64_t kMaxRequestTokens = 1 << 22; // one request's input or output
inline constexpr std::size_t kMaxLengthPercentiles = 1001; // points of a length percentile table
inline constexpr std::int64_t kMaxServeRequests = 2000000;
inline constexpr double kMaxRequestRate = 1e6;      // requests per second
inline constexpr double kMaxStreamSeconds = 864000; // ten days of arrivals
inline constexpr double kMaxSloSeconds = 86400;
inline constexpr double kMaxHorizonMonths = 600;

// The storage types serving engines hold weights in (bf16, fp16, fp8, int8, int4, fp4), or a KV cache in
// (the first four).
std::vector<Precision> servePrecisions(bool kvCache);

// Reads the serve stage at `path` (its "kind" already read); records a Diagnostic per problem.
ServeStage readServeStage(JsonReader& r, const Json& j, const std::string& path);
// The stage as the file writes it, defaults of the engine profile left out.
Json serveStageToJson(const ServeStage& stage);

// A length as a scenario file writes it: a number when fixed, else {"distribution": ...}.
Json lengthsToJson(const TokenLengths& lengths);

} // namespace choreo::models
