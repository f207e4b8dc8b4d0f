#pragma once

#include "models/diagnostic.h"
#include "models/jsonreader.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choreo::models {

// What a pipeline stage's representative device does, or waits for, during a stretch of one step.
enum class ActivityKind {
    Forward,
    Backward,  // backward computation (without the recomputation)
    Recompute, // forward recomputed inside a backward (activation recomputation)
    Optimizer,
    TensorComm,   // tensor-, context- and expert-parallel collectives the device waits for
    PipelineComm, // waiting for a pipeline send/receive between stages
    DataComm,     // data-parallel gradient reduction and ZeRO parameter gathers the device waits for
    Bubble,       // idle: nothing to do until another stage delivers
};
inline constexpr int kActivityKindCount = 8;

// "forward", "backward", "recompute", "optimizer", "tensor_comm", "pipeline_comm", "data_comm", "bubble".
std::string toString(ActivityKind kind);
std::optional<ActivityKind> activityKindFromString(const std::string& text);
// Forward, backward, recompute and optimizer: the device computes (and draws its full power).
bool isCompute(ActivityKind kind);

struct TimelineInterval {
    ActivityKind kind = ActivityKind::Bubble;
    std::int64_t micro_batch = -1; // -1 where the interval belongs to no single micro-batch
    std::int64_t chunk = -1;       // model chunk (interleaved schedules); -1 where none
    double start_s = 0;            // from the start of the step
    double end_s = 0;
    [[nodiscard]] double duration_s() const { return end_s - start_s; }
    bool operator==(const TimelineInterval&) const = default;
};

// One pipeline stage: its intervals in time order, end to end, covering [0, step_time_s] exactly once.
struct StageTimeline {
    std::int64_t stage = 0;
    std::int64_t devices = 0; // devices that do what the representative does (tp x cp x dp)
    std::vector<TimelineInterval> intervals;
    // Seconds spent on each kind as simulated, before the size bound folded short intervals into their
    // predecessors (capTimeline); all zero where unknown (a timeline of an older result).
    std::array<double, kActivityKindCount> totals_s{};
    [[nodiscard]] bool hasTotals() const;
    // Seconds spent on `kind`: from totals_s where known, else from the intervals.
    [[nodiscard]] double total_s(ActivityKind kind) const;
    [[nodiscard]] double compute_s() const;
    bool operator==(const StageTimeline&) const = default;
};

// One training step, per pipeline stage, on the stage's first tensor rank of data-parallel replica 0.
// Where work overlaps (communication behind computation), the interval shows what the device is held by:
// computation first, then the communication it waits for; what is left is bubble.
struct StepTimeline {
    double step_time_s = 0;
    // 0 when every interval is as simulated; else intervals shorter than this were folded into their
    // predecessor to keep the size bound (capTimeline).
    double folded_below_s = 0;
    std::vector<StageTimeline> stages;
    [[nodiscard]] bool empty() const { return stages.empty(); }
    [[nodiscard]] std::size_t intervalCount() const;
    bool operator==(const StepTimeline&) const = default;
};

// Size bound of a reported timeline: at most this many intervals in all (and at least kMinIntervalsPerStage
// per stage). Above it, the shortest stretches are folded into the interval before them (capTimeline).
inline constexpr std::size_t kMaxTimelineIntervals = 8192;
inline constexpr std::size_t kMinIntervalsPerStage = 64;
std::size_t intervalCapPerStage(std::size_t stages);

// A raw activity of a representative device, as a simulator or a schedule saw it; spans may overlap.
struct TimelineSpan {
    ActivityKind kind = ActivityKind::Bubble;
    int priority = 0; // where spans overlap, the smallest priority is shown
    std::int64_t micro_batch = -1;
    std::int64_t chunk = -1;
    double start_s = 0;
    double end_s = 0;
};

// Turns overlapping spans into the intervals of one stage: at each instant of [0, step_time_s] the span of
// smallest priority shows (ties: the span that started last); time no span covers is Bubble. Spans are
// clipped to the step. Neighbours of the same kind, micro-batch and chunk merge. When more than
// `maxIntervals` remain, the stage is folded as capTimeline does; the total time stays step_time_s.
StageTimeline partitionStage(std::int64_t stage, std::int64_t devices, const std::vector<TimelineSpan>& spans,
                             double step_time_s, std::size_t maxIntervals = SIZE_MAX);

// Folds stretches shorter than a threshold (growing from step / cap by a quarter at a time) into the
// interval before them until each stage has at most intervalCapPerStage(stages) intervals, except
// activities that occur at most three times in the stage (the optimizer, a tail reduction); records the
// largest threshold in folded_below_s. Per-activity totals of a folded timeline are approximate (short
// activities count as their predecessor), which is why the power trace is computed before this.
void capTimeline(StepTimeline& timeline);

Json timelineToJson(const StepTimeline& timeline);
// Reads what timelineToJson wrote; errors name the field (`path` is the timeline's own, e.g.
// "result.timeline"). Intervals must be in order, contiguous and inside the step.
std::optional<StepTimeline> timelineFromJson(const Json& json, const std::string& path, Diagnostics& errors);

} // namespace choreo::models
