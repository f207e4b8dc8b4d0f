#include "models/servestageio.h"

#include <algorithm>
#include <cmath>

namespace choreo::models {

std::string toString(Arrival arrival) {
    switch (arrival) {
    case Arrival::Offline:
        return "offline";
    case Arrival::Trace:
        return "trace";
    case Arrival::Poisson:
        break;
    }
    return "poisson";
}

std::string toString(LengthShape shape) {
    switch (shape) {
    case LengthShape::Uniform:
        return "uniform";
    case LengthShape::Lognormal:
        return "lognormal";
    case LengthShape::Percentiles:
        return "percentiles";
    case LengthShape::Fixed:
        break;
    }
    return "fixed";
}

double percentileTableMean(const std::vector<LengthPercentile>& table) {
    double mean = 0.0;
    for (std::size_t i = 1; i < table.size(); ++i)
        mean += (table[i].percent - table[i - 1].percent) / 100.0 * 0.5 *
                static_cast<double>(table[i].tokens + table[i - 1].tokens);
    return table.size() == 1 ? static_cast<double>(table.front().tokens) : mean;
}

std::string toString(WorkloadKind kind) {
    return kind == WorkloadKind::Serve ? "serve" : "train";
}

namespace {

// An integer in [minimum, maximum]; past the maximum an error names the bound.
std::optional<std::int64_t> boundedCount(JsonReader& r, const Json& j, const std::string& path,
                                         const char* key, std::int64_t minimum, std::int64_t maximum,
                                         bool required = false) {
    auto value = r.integer(j, path, key, minimum, required);
    if (value && *value > maximum) {
        r.error(JsonReader::join(path, key),
                "must be at most " + std::to_string(maximum) + ", got " + std::to_string(*value));
        return std::nullopt;
    }
    return value;
}

// A positive finite number up to `maximum`.
std::optional<double> boundedAmount(JsonReader& r, const Json& j, const std::string& path, const char* key,
                                    double maximum, bool required = false) {
    auto value = r.number(j, path, key, true, required);
    if (value && *value > maximum) {
        r.error(JsonReader::join(path, key),
                "must be at most " + formatNumber(maximum) + ", got " + formatNumber(*value));
        return std::nullopt;
    }
    return value;
}

ServeParallel readServeParallel(JsonReader& r, const Json& j, const std::string& path) {
    ServeParallel p;
    auto it = j.find("parallel");
    if (it == j.end())
        return p;
    const std::string here = JsonReader::join(path, "parallel");
    if (!r.expectObject(*it, here))
        return p;
    r.rejectUnknownKeys(*it, here, {"tp", "pp", "ep"});
    p.tp = boundedCount(r, *it, here, "tp", 1, kMaxServeParallel).value_or(p.tp);
    p.pp = boundedCount(r, *it, here, "pp", 1, kMaxServeParallel).value_or(p.pp);
    p.ep = boundedCount(r, *it, here, "ep", 1, kMaxServeParallel).value_or(p.ep);
    return p;
}

// One [percent, tokens] point of a percentile table, or nullopt after an error at `here`.
std::optional<LengthPercentile> readPercentilePoint(JsonReader& r, const Json& point,
                                                    const std::string& here) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number()) {
        r.error(here, "must be a pair [percent, tokens], got " + JsonReader::typeName(point));
        return std::nullopt;
    }
    const double percent = point[0].get<double>();
    if (!std::isfinite(percent) || percent < 0.0 || percent > 100.0) {
        r.error(here + "[0]", "a percent must be between 0 and 100, got " + formatNumber(percent));
        return std::nullopt;
    }
    const double tokens = point[1].get<double>();
    if (!(tokens >= 1.0 && tokens <= static_cast<double>(kMaxRequestTokens)) ||
        tokens != std::floor(tokens)) {
        r.error(here + "[1]", "tokens must be a whole number between 1 and " +
                                  std::to_string(kMaxRequestTokens) + ", got " + formatNumber(tokens));
        return std::nullopt;
    }
    return LengthPercentile{percent, static_cast<std::int64_t>(tokens)};
}

// A percentile table: from the 0th to the 100th, percents rising and lengths never falling.
void readPercentiles(JsonReader& r, const Json& j, const std::string& path, TokenLengths& lengths) {
    const std::string here = JsonReader::join(path, "percentiles");
    for (const char* derived : {"mean", "sigma", "min", "max"})
        if (j.contains(derived))
            r.error(JsonReader::join(path, derived),
                    "not used by a percentiles distribution (it follows from "
                    "the table)");
    auto it = j.find("percentiles");
    if (it == j.end() || !it->is_array() || it->size() < 2 || it->size() > kMaxLengthPercentiles) {
        r.error(here, "required: an array of 2 to " + std::to_string(kMaxLengthPercentiles) +
                          " [percent, tokens] pairs, from 0 to 100");
        return;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
        const std::string at = JsonReader::index(here, i);
        auto point = readPercentilePoint(r, (*it)[i], at);
        if (!point)
            return;
        if (!lengths.percentiles.empty() && point->percent <= lengths.percentiles.back().percent) {
            r.error(at + "[0]", "percents must rise, got " + formatNumber(point->percent) + " after " +
                                    formatNumber(lengths.percentiles.back().percent));
            return;
        }
        if (!lengths.percentiles.empty() && point->tokens < lengths.percentiles.back().tokens) {
            r.error(at + "[1]", "lengths must not fall as the percent rises, got " +
                                    std::to_string(point->tokens) + " after " +
                                    std::to_string(lengths.percentiles.back().tokens));
            return;
        }
        lengths.percentiles.push_back(*point);
    }
    if (lengths.percentiles.front().percent != 0.0 || lengths.percentiles.back().percent != 100.0) {
        r.error(here, "must run from the 0th percentile to the 100th");
        return;
    }
    lengths.min = lengths.percentiles.front().tokens;
    lengths.max = lengths.percentiles.back().tokens;
    lengths.mean = percentileTableMean(lengths.percentiles);
}

// A length: a number (fixed), or {"distribution": ..., "mean", "sigma", "min", "max"}, or
// {"distribution": "percentiles", "percentiles": [[0, tokens], ..., [100, tokens]]}.
TokenLengths readLengths(JsonReader& r, const Json& j, const std::string& path, const char* key) {
    TokenLengths lengths;
    const std::string here = JsonReader::join(path, key);
    auto it = j.find(key);
    if (it == j.end()) {
        r.error(here, "missing required field (a number of tokens, or {\"distribution\": ...})");
        return lengths;
    }
    if (it->is_number()) {
        if (auto fixed = boundedCount(r, j, path, key, 1, kMaxRequestTokens))
            lengths.mean = static_cast<double>(*fixed);
        return lengths;
    }
    if (!r.expectObject(*it, here))
        return lengths;
    r.rejectUnknownKeys(*it, here, {"distribution", "mean", "sigma", "min", "max", "percentiles"});
    readChoice(r, *it, here, "distribution", true,
               {LengthShape::Fixed, LengthShape::Uniform, LengthShape::Lognormal, LengthShape::Percentiles},
               "distribution", lengths.shape);
    if (lengths.shape == LengthShape::Percentiles) {
        readPercentiles(r, *it, here, lengths);
        return lengths;
    }
    if (it->contains("percentiles"))
        r.error(JsonReader::join(here, "percentiles"), "only for \"distribution\": \"percentiles\"");
    lengths.min = boundedCount(r, *it, here, "min", 1, kMaxRequestTokens).value_or(1);
    lengths.max = boundedCount(r, *it, here, "max", 1, kMaxRequestTokens).value_or(0);
    if (lengths.shape == LengthShape::Uniform) {
        if (!it->contains("max"))
            r.error(JsonReader::join(here, "max"), "required for a uniform distribution");
        else if (lengths.max < lengths.min)
            r.error(JsonReader::join(here, "max"), "below min (" + std::to_string(lengths.min) + ")");
        lengths.mean = 0.5 * static_cast<double>(lengths.min + lengths.max);
        return lengths;
    }
    lengths.mean =
        boundedAmount(r, *it, here, "mean", static_cast<double>(kMaxRequestTokens), true).value_or(0);
    if (lengths.shape == LengthShape::Lognormal) {
        lengths.sigma = r.number(*it, here, "sigma", false, true).value_or(0);
        if (lengths.sigma > 4.0)
            r.error(JsonReader::join(here, "sigma"),
                    "must be at most 4 (a log-space deviation), got " + formatNumber(lengths.sigma));
    }
    if (lengths.max > 0 && lengths.mean > static_cast<double>(lengths.max))
        r.error(JsonReader::join(here, "mean"), "above max (" + std::to_string(lengths.max) + ")");
    return lengths;
}

RequestStream readRequests(JsonReader& r, const Json& j, const std::string& path) {
    RequestStream s;
    const std::string here = JsonReader::join(path, "requests");
    auto it = j.find("requests");
    if (it == j.end()) {
        r.error(here, "missing required field");
        return s;
    }
    if (!r.expectObject(*it, here))
        return s;
    const Json& q = *it;
    r.rejectUnknownKeys(
        q, here,
        {"arrival", "rate_per_s", "count", "duration_s", "trace", "seed", "input_tokens", "output_tokens"});
    readChoice(r, q, here, "arrival", false, {Arrival::Poisson, Arrival::Offline, Arrival::Trace}, "arrival",
               s.arrival);
    s.count = boundedCount(r, q, here, "count", 1, kMaxServeRequests).value_or(0);
    s.seed = r.integer(q, here, "seed", 0, false).value_or(s.seed);
    switch (s.arrival) {
    case Arrival::Poisson:
        s.rate_per_s = boundedAmount(r, q, here, "rate_per_s", kMaxRequestRate, true).value_or(0);
        s.duration_s = boundedAmount(r, q, here, "duration_s", kMaxStreamSeconds).value_or(0);
        if (s.count == 0 && s.duration_s == 0 && q.contains("rate_per_s"))
            r.error(JsonReader::join(here, "duration_s"), "a Poisson stream needs duration_s or count");
        if (s.count == 0 && s.rate_per_s * s.duration_s > static_cast<double>(kMaxServeRequests))
            r.error(JsonReader::join(here, "duration_s"),
                    formatNumber(s.rate_per_s * s.duration_s) +
                        " requests (rate_per_s x duration_s), more than " +
                        std::to_string(kMaxServeRequests) + " this version simulates");
        break;
    case Arrival::Offline:
        if (s.count == 0)
            r.error(JsonReader::join(here, "count"), "required for an offline batch");
        break;
    case Arrival::Trace:
        s.trace = r.text(q, here, "trace").value_or("");
        break;
    }
    for (const char* key : {"rate_per_s", "duration_s"})
        if (s.arrival != Arrival::Poisson && q.contains(key))
            r.error(JsonReader::join(here, key), "only for Poisson arrivals");
    if (s.arrival != Arrival::Trace) {
        s.input = readLengths(r, q, here, "input_tokens");
        s.output = readLengths(r, q, here, "output_tokens");
    } else {
        for (const char* key : {"input_tokens", "output_tokens", "count"})
            if (q.contains(key))
                r.error(JsonReader::join(here, key), "a trace gives every request's lengths");
    }
    return s;
}

ServeSlo readSlo(JsonReader& r, const Json& j, const std::string& path) {
    ServeSlo slo;
    auto it = j.find("slo");
    if (it == j.end())
        return slo;
    const std::string here = JsonReader::join(path, "slo");
    if (!r.expectObject(*it, here))
        return slo;
    r.rejectUnknownKeys(*it, here, {"ttft_p99_s", "tpot_p99_s"});
    slo.ttft_p99_s = boundedAmount(r, *it, here, "ttft_p99_s", kMaxSloSeconds);
    slo.tpot_p99_s = boundedAmount(r, *it, here, "tpot_p99_s", kMaxSloSeconds);
    return slo;
}

std::optional<PrefillReplicas> readPrefill(JsonReader& r, const Json& j, const std::string& path) {
    auto it = j.find("prefill");
    if (it == j.end())
        return std::nullopt;
    const std::string here = JsonReader::join(path, "prefill");
    if (!r.expectObject(*it, here))
        return std::nullopt;
    r.rejectUnknownKeys(*it, here, {"pool", "replicas", "parallel"});
    PrefillReplicas p;
    p.pool = r.text(*it, here, "pool").value_or("");
    p.replicas = boundedCount(r, *it, here, "replicas", 1, kMaxServeReplicas);
    p.parallel = readServeParallel(r, *it, here);
    return p;
}

// Weights and KV-cache precisions: the storage types serving engines use.
std::optional<Precision> readServePrecision(JsonReader& r, const Json& j, const std::string& path,
                                            const char* key, bool kvCache) {
    const auto name = r.text(j, path, key, false);
    if (!name)
        return std::nullopt;
    const auto precision = precisionFromString(*name);
    const auto known = servePrecisions(kvCache);
    if (!precision || std::find(known.begin(), known.end(), *precision) == known.end()) {
        std::string names;
        for (Precision p : known)
            names += (names.empty() ? "" : ", ") + toString(p);
        r.error(JsonReader::join(path, key), "unknown " + std::string(kvCache ? "KV-cache" : "weight") +
                                                 " precision \"" + *name + "\" (known: " + names + ")");
        return std::nullopt;
    }
    return precision;
}

} // namespace

std::vector<Precision> servePrecisions(bool kvCache) {
    std::vector<Precision> out{Precision::Bf16, Precision::Fp16, Precision::Fp8, Precision::Int8};
    if (!kvCache) {
        out.push_back(Precision::Int4);
        out.push_back(Precision::Fp4);
    }
    return out;
}

ServeStage readServeStage(JsonReader& r, const Json& j, const std::string& path) {
    ServeStage s;
    r.rejectUnknownKeys(j, path,
                        {"kind", "pool", "replicas", "parallel", "weights", "kv_cache", "engine", "max_batch",
                         "max_tokens_per_iteration", "chunked_prefill", "kv_block_tokens", "memory_fraction",
                         "requests", "slo", "prefill", "target_rate_per_s", "horizon_months"});
    s.pool = r.text(j, path, "pool", false);
    s.replicas = boundedCount(r, j, path, "replicas", 1, kMaxServeReplicas);
    s.parallel = readServeParallel(r, j, path);
    s.weights = readServePrecision(r, j, path, "weights", false).value_or(s.weights);
    s.kv_cache = readServePrecision(r, j, path, "kv_cache", true);
    s.engine = r.text(j, path, "engine", false).value_or(s.engine);
    s.max_batch = boundedCount(r, j, path, "max_batch", 1, kMaxServeBatch);
    s.max_tokens_per_iteration = boundedCount(r, j, path, "max_tokens_per_iteration", 1, kMaxIterationTokens);
    s.chunked_prefill = r.boolean(j, path, "chunked_prefill", false);
    s.kv_block_tokens = boundedCount(r, j, path, "kv_block_tokens", 1, kMaxKvBlockTokens);
    s.memory_fraction = r.number(j, path, "memory_fraction", true, false);
    if (s.memory_fraction && *s.memory_fraction > 1.0) {
        r.error(JsonReader::join(path, "memory_fraction"),
                "a fraction of memory, at most 1, got " + formatNumber(*s.memory_fraction));
        s.memory_fraction.reset();
    }
    s.requests = readRequests(r, j, path);
    s.slo = readSlo(r, j, path);
    s.prefill = readPrefill(r, j, path);
    s.target_rate_per_s = boundedAmount(r, j, path, "target_rate_per_s", kMaxRequestRate);
    s.horizon_months =
        boundedAmount(r, j, path, "horizon_months", kMaxHorizonMonths).value_or(s.horizon_months);
    return s;
}

Json lengthsToJson(const TokenLengths& lengths) {
    if (lengths.shape == LengthShape::Fixed && lengths.max == 0 && lengths.min == 1)
        return static_cast<std::int64_t>(std::llround(lengths.mean));
    Json j{{"distribution", toString(lengths.shape)}};
    if (lengths.shape == LengthShape::Percentiles) {
        Json table = Json::array();
        for (const auto& point : lengths.percentiles)
            table.push_back(Json::array({point.percent, point.tokens}));
        j["percentiles"] = std::move(table);
        return j;
    }
    if (lengths.shape == LengthShape::Uniform) {
        j["min"] = lengths.min;
        j["max"] = lengths.max;
        return j;
    }
    j["mean"] = lengths.mean;
    if (lengths.shape == LengthShape::Lognormal)
        j["sigma"] = lengths.sigma;
    if (lengths.min != 1)
        j["min"] = lengths.min;
    if (lengths.max > 0)
        j["max"] = lengths.max;
    return j;
}

namespace {

Json parallelToJson(const ServeParallel& p) {
    Json j{{"tp", p.tp}};
    if (p.pp != 1)
        j["pp"] = p.pp;
    if (p.ep != 1)
        j["ep"] = p.ep;
    return j;
}

Json requestsToJson(const RequestStream& q) {
    Json j{{"arrival", toString(q.arrival)}};
    if (q.arrival == Arrival::Poisson) {
        j["rate_per_s"] = q.rate_per_s;
        if (q.duration_s > 0)
            j["duration_s"] = q.duration_s;
    }
    if (q.arrival == Arrival::Trace)
        j["trace"] = q.trace;
    if (q.count > 0)
        j["count"] = q.count;
    j["seed"] = q.seed;
    if (q.arrival != Arrival::Trace) {
        j["input_tokens"] = lengthsToJson(q.input);
        j["output_tokens"] = lengthsToJson(q.output);
    }
    return j;
}

template <typename T>
void putIfSet(Json& j, const char* key, const std::optional<T>& value) {
    if (value)
        j[key] = *value;
}

} // namespace

Json serveStageToJson(const ServeStage& s) {
    Json j{{"kind", "serve"}};
    putIfSet(j, "pool", s.pool);
    putIfSet(j, "replicas", s.replicas);
    j["parallel"] = parallelToJson(s.parallel);
    j["weights"] = toString(s.weights);
    if (s.kv_cache)
        j["kv_cache"] = toString(*s.kv_cache);
    j["engine"] = s.engine;
    putIfSet(j, "max_batch", s.max_batch);
    putIfSet(j, "max_tokens_per_iteration", s.max_tokens_per_iteration);
    putIfSet(j, "chunked_prefill", s.chunked_prefill);
    putIfSet(j, "kv_block_tokens", s.kv_block_tokens);
    putIfSet(j, "memory_fraction", s.memory_fraction);
    j["requests"] = requestsToJson(s.requests);
    Json slo = Json::object();
    putIfSet(slo, "ttft_p99_s", s.slo.ttft_p99_s);
    putIfSet(slo, "tpot_p99_s", s.slo.tpot_p99_s);
    if (!slo.empty())
        j["slo"] = slo;
    if (s.prefill) {
        Json prefill{{"pool", s.prefill->pool}};
        putIfSet(prefill, "replicas", s.prefill->replicas);
        prefill["parallel"] = parallelToJson(s.prefill->parallel);
        j["prefill"] = prefill;
    }
    putIfSet(j, "target_rate_per_s", s.target_rate_per_s);
    if (s.horizon_months != ServeStage{}.horizon_months)
        j["horizon_months"] = s.horizon_months;
    return j;
}

} // namespace choreo::models
