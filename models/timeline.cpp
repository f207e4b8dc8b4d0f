#include "models/timeline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <tuple>

namespace choreo::models {

namespace {

constexpr std::array<const char*, kActivityKindCount> kKindNames = {
    "forward", "backward", "recompute", "optimizer", "tensor_comm", "pipeline_comm", "data_comm", "bubble"};

bool sameActivity(const TimelineInterval& a, const TimelineInterval& b) {
    return a.kind == b.kind && a.micro_batch == b.micro_batch && a.chunk == b.chunk;
}

// Appends `piece`, merging it into the last interval when it continues the same activity.
void appendMerged(std::vector<TimelineInterval>& out, const TimelineInterval& piece) {
    if (!out.empty() && sameActivity(out.back(), piece)) {
        out.back().end_s = piece.end_s;
        return;
    }
    out.push_back(piece);
}

// Folds intervals shorter than a growing threshold into their predecessor until at most `cap` remain;
// returns the last threshold used (0 when nothing was folded).
double fold(std::vector<TimelineInterval>& pieces, std::size_t cap, double step) {
    cap = std::max<std::size_t>(1, cap);
    if (pieces.size() <= cap)
        return 0.0;
    // Activities that occur only a few times in the stage (the optimizer, a tail reduction) stay whatever
    // their length: they are what a reader looks for. At most kRare x kinds of them, well under the cap.
    constexpr int kRare = 3;
    std::array<int, kActivityKindCount> occurrences{};
    for (const auto& p : pieces)
        ++occurrences[static_cast<std::size_t>(p.kind)];
    auto rare = [&](const TimelineInterval& p) {
        return occurrences[static_cast<std::size_t>(p.kind)] <= kRare;
    };
    double threshold = step / static_cast<double>(cap);
    double used = 0.0;
    while (pieces.size() > cap && used <= step) {
        std::vector<TimelineInterval> folded;
        folded.reserve(pieces.size());
        for (const auto& p : pieces) {
            if (!folded.empty() && p.duration_s() < threshold && !rare(p))
                folded.back().end_s = p.end_s;
            else
                appendMerged(folded, p);
        }
        pieces = std::move(folded);
        used = threshold;
        threshold *= 1.25; // small steps: stop close to the cap, folding no more than needed
    }
    return used;
}

} // namespace

std::string toString(ActivityKind kind) {
    return kKindNames[static_cast<std::size_t>(kind)];
}

std::optional<ActivityKind> activityKindFromString(const std::string& text) {
    for (std::size_t i = 0; i < kKindNames.size(); ++i)
        if (text == kKindNames[i])
            return static_cast<ActivityKind>(i);
    return std::nullopt;
}

bool isCompute(ActivityKind kind) {
    return kind == ActivityKind::Forward || kind == ActivityKind::Backward ||
           kind == ActivityKind::Recompute || kind == ActivityKind::Optimizer;
}

bool StageTimeline::hasTotals() const {
    return std::any_of(totals_s.begin(), totals_s.end(), [](double seconds) { return seconds > 0.0; });
}

double StageTimeline::total_s(ActivityKind kind) const {
    if (hasTotals())
        return totals_s[static_cast<std::size_t>(kind)];
    double total = 0.0;
    for (const auto& i : intervals)
        if (i.kind == kind)
            total += i.duration_s();
    return total;
}

double StageTimeline::compute_s() const {
    double total = 0.0;
    for (int k = 0; k < kActivityKindCount; ++k)
        if (isCompute(static_cast<ActivityKind>(k)))
            total += total_s(static_cast<ActivityKind>(k));
    return total;
}

std::size_t StepTimeline::intervalCount() const {
    std::size_t n = 0;
    for (const auto& s : stages)
        n += s.intervals.size();
    return n;
}

std::size_t intervalCapPerStage(std::size_t stages) {
    return std::max(kMinIntervalsPerStage, kMaxTimelineIntervals / std::max<std::size_t>(1, stages));
}

StageTimeline partitionStage(std::int64_t stage, std::int64_t devices, const std::vector<TimelineSpan>& spans,
                             double step, std::size_t maxIntervals) {
    StageTimeline out;
    out.stage = stage;
    out.devices = devices;
    if (!(step > 0.0))
        return out;
    // Clip to the step; drop what is left empty.
    std::vector<TimelineSpan> clipped;
    clipped.reserve(spans.size());
    for (auto s : spans) {
        s.start_s = std::clamp(s.start_s, 0.0, step);
        s.end_s = std::clamp(s.end_s, 0.0, step);
        if (s.end_s > s.start_s)
            clipped.push_back(s);
    }
    // Sweep over the span boundaries; the active spans ordered by (priority, latest start, latest index).
    struct Event {
        double time;
        bool opens;
        std::size_t span;
    };
    std::vector<Event> events;
    events.reserve(2 * clipped.size());
    for (std::size_t i = 0; i < clipped.size(); ++i) {
        events.push_back({clipped[i].start_s, true, i});
        events.push_back({clipped[i].end_s, false, i});
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return std::tie(a.time, a.opens, a.span) < std::tie(b.time, b.opens, b.span);
    });
    using Key = std::tuple<int, double, std::size_t>;
    auto key = [&](std::size_t i) {
        return Key{clipped[i].priority, -clipped[i].start_s, clipped.size() - i};
    };
    std::set<Key> active;
    std::vector<TimelineInterval> pieces;
    double cursor = 0.0;
    auto emit = [&](double until) {
        if (until <= cursor)
            return;
        TimelineInterval piece;
        piece.start_s = cursor;
        piece.end_s = until;
        if (!active.empty()) {
            const TimelineSpan& top = clipped[clipped.size() - std::get<2>(*active.begin())];
            piece.kind = top.kind;
            piece.micro_batch = top.micro_batch;
            piece.chunk = top.chunk;
        }
        appendMerged(pieces, piece);
        cursor = until;
    };
    for (const Event& e : events) {
        emit(e.time);
        if (e.opens)
            active.insert(key(e.span));
        else
            active.erase(key(e.span));
    }
    emit(step);

    for (const auto& piece : pieces)
        out.totals_s[static_cast<std::size_t>(piece.kind)] += piece.duration_s();
    fold(pieces, maxIntervals, step);
    out.intervals = std::move(pieces);
    return out;
}

void capTimeline(StepTimeline& timeline) {
    const std::size_t cap = intervalCapPerStage(timeline.stages.size());
    for (auto& stage : timeline.stages)
        timeline.folded_below_s =
            std::max(timeline.folded_below_s, fold(stage.intervals, cap, timeline.step_time_s));
}

Json timelineToJson(const StepTimeline& t) {
    Json stages = Json::array();
    for (const auto& s : t.stages) {
        Json intervals = Json::array();
        for (const auto& i : s.intervals) {
            Json o;
            o["kind"] = toString(i.kind);
            if (i.micro_batch >= 0)
                o["micro_batch"] = i.micro_batch;
            if (i.chunk >= 0)
                o["chunk"] = i.chunk;
            o["start_s"] = i.start_s;
            o["end_s"] = i.end_s;
            intervals.push_back(std::move(o));
        }
        Json stage{{"stage", s.stage}, {"devices", s.devices}};
        if (s.hasTotals()) {
            Json totals = Json::object();
            for (int k = 0; k < kActivityKindCount; ++k)
                totals[toString(static_cast<ActivityKind>(k))] = s.totals_s[static_cast<std::size_t>(k)];
            stage["totals_s"] = std::move(totals);
        }
        stage["intervals"] = std::move(intervals);
        stages.push_back(std::move(stage));
    }
    Json j{{"step_time_s", t.step_time_s}};
    if (t.folded_below_s > 0.0)
        j["folded_below_s"] = t.folded_below_s;
    j["stages"] = std::move(stages);
    return j;
}

std::optional<StepTimeline> timelineFromJson(const Json& j, const std::string& path, Diagnostics& errors) {
    const std::size_t before = errors.size();
    JsonReader rd(errors);
    if (!rd.expectObject(j, path))
        return std::nullopt;
    StepTimeline t;
    t.step_time_s = rd.number(j, path, "step_time_s", false).value_or(0.0);
    t.folded_below_s = rd.number(j, path, "folded_below_s", false, false).value_or(0.0);
    const auto it = j.find("stages");
    if (it == j.end()) {
        rd.error(JsonReader::join(path, "stages"), "missing required field");
        return std::nullopt;
    }
    if (!it->is_array()) {
        rd.error(JsonReader::join(path, "stages"), "expected an array, got " + JsonReader::typeName(*it));
        return std::nullopt;
    }
    // Tolerance for "contiguous" and "inside the step": JSON keeps doubles exactly, so only rounding.
    const double slack = 1e-9 * std::max(1.0, t.step_time_s);
    for (std::size_t si = 0; si < it->size(); ++si) {
        const Json& sj = (*it)[si];
        const std::string sp = JsonReader::index(JsonReader::join(path, "stages"), si);
        if (!rd.expectObject(sj, sp))
            continue;
        StageTimeline s;
        s.stage = rd.integer(sj, sp, "stage", 0).value_or(0);
        s.devices = rd.integer(sj, sp, "devices", 0).value_or(0);
        if (const auto tj = sj.find("totals_s"); tj != sj.end()) {
            const std::string tp = JsonReader::join(sp, "totals_s");
            if (rd.expectObject(*tj, tp))
                for (const auto& item : tj->items()) {
                    const std::string& name = item.key();
                    const auto kind = activityKindFromString(name);
                    if (!kind)
                        rd.error(JsonReader::join(tp, name.c_str()), "unknown activity \"" + name + "\"");
                    else if (auto v = rd.number(*tj, tp, name.c_str(), false))
                        s.totals_s[static_cast<std::size_t>(*kind)] = *v;
                }
        }
        const auto iv = sj.find("intervals");
        if (iv == sj.end() || !iv->is_array()) {
            rd.error(JsonReader::join(sp, "intervals"),
                     iv == sj.end() ? "missing required field"
                                    : "expected an array, got " + JsonReader::typeName(*iv));
            continue;
        }
        double previousEnd = 0.0;
        for (std::size_t ii = 0; ii < iv->size(); ++ii) {
            const Json& ij = (*iv)[ii];
            const std::string ip = JsonReader::index(JsonReader::join(sp, "intervals"), ii);
            if (!rd.expectObject(ij, ip))
                continue;
            TimelineInterval i;
            if (auto kind = rd.text(ij, ip, "kind")) {
                if (auto k = activityKindFromString(*kind))
                    i.kind = *k;
                else
                    rd.error(JsonReader::join(ip, "kind"), "unknown activity \"" + *kind + "\"");
            }
            i.micro_batch = rd.integer(ij, ip, "micro_batch", 0, false).value_or(-1);
            i.chunk = rd.integer(ij, ip, "chunk", 0, false).value_or(-1);
            const auto start = rd.number(ij, ip, "start_s", false);
            const auto end = rd.number(ij, ip, "end_s", false);
            if (!start || !end)
                continue;
            i.start_s = *start;
            i.end_s = *end;
            if (std::fabs(i.start_s - previousEnd) > slack)
                rd.error(JsonReader::join(ip, "start_s"),
                         "does not continue the previous interval (ends at " + formatNumber(previousEnd) +
                             " s)");
            if (i.end_s < i.start_s || i.end_s > t.step_time_s + slack)
                rd.error(JsonReader::join(ip, "end_s"), "outside the interval's start and the step's end");
            previousEnd = i.end_s;
            s.intervals.push_back(i);
        }
        t.stages.push_back(std::move(s));
    }
    if (errors.size() != before)
        return std::nullopt;
    return t;
}

} // namespace choreo::models
