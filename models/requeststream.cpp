#include "models/requeststream.h"

#include "models/servestageio.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

namespace choreo::models {

std::uint64_t SeededDraws::next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double SeededDraws::uniform() {
    // 53 random bits, shifted off zero so that log() stays finite.
    return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
}

double SeededDraws::normal() {
    // Box-Muller; the second value is dropped so that each draw uses a fixed number of uniforms.
    const double u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

namespace {

// Separate generators for arrivals and lengths: a probe at another rate keeps every request's lengths.
constexpr std::uint64_t kArrivalStream = 0x61727269766C73ULL;
constexpr std::uint64_t kLengthStream = 0x6C656E67746873ULL;
// A truncated draw is redrawn at most this often; past it the bound itself is used (a distribution whose mass
// lies almost all past its bound, which the reader's mean <= max check makes rare).
constexpr int kMaxRedraws = 64;

// A length from a percentile table: a uniform percent, placed linearly between the table's two points
// around it.
std::int64_t drawFromPercentiles(const std::vector<LengthPercentile>& table, SeededDraws& draws) {
    if (table.empty())
        return 1;
    const double percent = 100.0 * draws.uniform();
    auto above = std::lower_bound(table.begin(), table.end(), percent,
                                  [](const LengthPercentile& p, double value) { return p.percent < value; });
    if (above == table.begin())
        return table.front().tokens;
    if (above == table.end())
        return table.back().tokens;
    const auto below = std::prev(above);
    const double share = (percent - below->percent) / (above->percent - below->percent);
    const double tokens =
        static_cast<double>(below->tokens) + share * static_cast<double>(above->tokens - below->tokens);
    return std::clamp<std::int64_t>(std::llround(tokens), below->tokens, above->tokens);
}

std::int64_t drawLength(const TokenLengths& lengths, SeededDraws& draws) {
    const auto upper = lengths.max > 0 ? lengths.max : kMaxRequestTokens;
    switch (lengths.shape) {
    case LengthShape::Fixed:
        return std::max<std::int64_t>(1, std::llround(lengths.mean));
    case LengthShape::Uniform: {
        const double span = static_cast<double>(upper - lengths.min + 1);
        return std::min(upper, lengths.min + static_cast<std::int64_t>(draws.uniform() * span));
    }
    case LengthShape::Lognormal: {
        const double mu = std::log(std::max(lengths.mean, 1.0)) - 0.5 * lengths.sigma * lengths.sigma;
        for (int attempt = 0; attempt < kMaxRedraws; ++attempt) {
            const auto value = std::llround(std::exp(mu + lengths.sigma * draws.normal()));
            if (value >= lengths.min && value <= upper)
                return value;
        }
        return upper;
    }
    case LengthShape::Percentiles:
        return drawFromPercentiles(lengths.percentiles, draws);
    }
    return 1;
}

} // namespace

std::int64_t requestCount(const RequestStream& stream, const std::vector<TraceRow>& trace,
                          const StreamOverride& override) {
    if (override.count)
        return *override.count;
    if (stream.arrival == Arrival::Trace && !override.poisson_rate_per_s && !override.offline)
        return static_cast<std::int64_t>(trace.size());
    if (stream.count > 0)
        return stream.count;
    const double rate = override.poisson_rate_per_s.value_or(stream.rate_per_s);
    return static_cast<std::int64_t>(std::ceil(rate * stream.duration_s));
}

std::vector<ServeRequest> drawRequests(const RequestStream& stream, const std::vector<TraceRow>& trace,
                                       const StreamOverride& override) {
    const bool replay = stream.arrival == Arrival::Trace;
    const bool offline =
        override.offline || (!override.poisson_rate_per_s && stream.arrival == Arrival::Offline);
    const bool keepTraceTimes = replay && !offline && !override.poisson_rate_per_s;
    const double rate = override.poisson_rate_per_s.value_or(stream.rate_per_s);
    // A Poisson stream bounded by duration alone ends at its first arrival past the duration.
    const bool byDuration = !offline && !keepTraceTimes && !override.count && stream.count == 0 && !replay &&
                            stream.duration_s > 0;
    const std::int64_t wanted = byDuration ? kMaxServeRequests : requestCount(stream, trace, override);
    if (replay && trace.empty())
        return {};

    SeededDraws arrivals(static_cast<std::uint64_t>(stream.seed) ^ kArrivalStream);
    SeededDraws lengths(static_cast<std::uint64_t>(stream.seed) ^ kLengthStream);
    std::vector<ServeRequest> requests;
    requests.reserve(static_cast<std::size_t>(std::min<std::int64_t>(wanted, 1 << 20)));
    double clock = 0;
    for (std::int64_t i = 0; i < wanted; ++i) {
        ServeRequest request;
        if (replay) {
            const TraceRow& row = trace[static_cast<std::size_t>(i) % trace.size()];
            request.input_tokens = row.input_tokens;
            request.output_tokens = row.output_tokens;
            request.arrival_s = row.time_s;
        } else {
            request.input_tokens = drawLength(stream.input, lengths);
            request.output_tokens = drawLength(stream.output, lengths);
        }
        if (offline) {
            request.arrival_s = 0;
        } else if (!keepTraceTimes) {
            clock += arrivals.exponential() / rate;
            if (byDuration && clock > stream.duration_s)
                break;
            request.arrival_s = clock;
        }
        requests.push_back(request);
    }
    return requests;
}

namespace {

std::optional<double> parseNumber(const std::string& text) {
    try {
        std::size_t used = 0;
        const double value = std::stod(text, &used);
        while (used < text.size() && (text[used] == ' ' || text[used] == '\t'))
            ++used;
        if (used != text.size() || !std::isfinite(value))
            return std::nullopt;
        return value;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::vector<std::string> splitFields(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    std::string field;
    while (std::getline(in, field, ','))
        fields.push_back(field);
    if (!line.empty() && line.back() == ',')
        fields.emplace_back();
    for (auto& f : fields) {
        const auto first = f.find_first_not_of(" \t\r");
        f = first == std::string::npos ? "" : f.substr(first, f.find_last_not_of(" \t\r") - first + 1);
    }
    return fields;
}

constexpr const char* kTraceColumns[] = {"time_s", "input_tokens", "output_tokens"};

// One row's three numbers, or an error naming the line and column.
std::optional<TraceRow> readTraceRow(const std::vector<std::string>& fields, const std::string& where,
                                     Diagnostics& errors) {
    if (fields.size() != 3) {
        errors.push_back({where, "expected 3 columns (time_s, input_tokens, output_tokens), got " +
                                     std::to_string(fields.size())});
        return std::nullopt;
    }
    double values[3] = {};
    for (int c = 0; c < 3; ++c) {
        auto value = parseNumber(fields[static_cast<std::size_t>(c)]);
        const std::string column = where + " " + kTraceColumns[c];
        if (!value) {
            errors.push_back({column, "not a number: '" + fields[static_cast<std::size_t>(c)] + "'"});
            return std::nullopt;
        }
        const bool tokens = c > 0;
        if (tokens &&
            (*value < 1 || *value > static_cast<double>(kMaxRequestTokens) || *value != std::floor(*value))) {
            errors.push_back({column, "must be a whole number of tokens in 1.." +
                                          std::to_string(kMaxRequestTokens) + ", got " +
                                          fields[static_cast<std::size_t>(c)]});
            return std::nullopt;
        }
        if (!tokens && (*value < 0 || *value > kMaxStreamSeconds)) {
            errors.push_back({column, "must be a time in 0.." +
                                          std::to_string(static_cast<long>(kMaxStreamSeconds)) + " s, got " +
                                          fields[0]});
            return std::nullopt;
        }
        values[c] = *value;
    }
    return TraceRow{values[0], static_cast<std::int64_t>(values[1]), static_cast<std::int64_t>(values[2])};
}

} // namespace

std::optional<std::vector<TraceRow>> readTrace(const std::filesystem::path& file, Diagnostics& errors) {
    std::ifstream in(file);
    const std::string name = file.string();
    if (!in) {
        errors.push_back({name, "cannot open the trace file"});
        return std::nullopt;
    }
    std::vector<TraceRow> rows;
    std::string line;
    const auto before = errors.size();
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const auto fields = splitFields(line);
        if (fields.empty() || (fields.size() == 1 && fields[0].empty()))
            continue;
        if (number == 1 && !parseNumber(fields[0]))
            continue; // a header row
        const std::string where = name + ":" + std::to_string(number);
        auto row = readTraceRow(fields, where, errors);
        if (!row)
            continue;
        if (!rows.empty() && row->time_s < rows.back().time_s) {
            errors.push_back({where + " time_s", "goes back in time (before the previous row's " +
                                                     std::to_string(rows.back().time_s) + " s)"});
            continue;
        }
        if (rows.size() >= static_cast<std::size_t>(kMaxServeRequests)) {
            errors.push_back({where, "more than " + std::to_string(kMaxServeRequests) +
                                         " requests, more than this version simulates"});
            break;
        }
        rows.push_back(*row);
    }
    if (rows.empty() && errors.size() == before)
        errors.push_back({name, "the trace has no requests"});
    if (errors.size() != before)
        return std::nullopt;
    return rows;
}

} // namespace choreo::models
