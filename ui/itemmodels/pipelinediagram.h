#pragma once

#include "models/catalog.h"
#include "models/result.h"
#include "models/scenario.h"

#include <QString>

#include <optional>
#include <vector>

namespace choreo::ui {

// A workload's stages as the pipeline view draws them: one box per pool with the stages it runs, and
// arrows for what crosses between pools. Built from the scenario (what runs where) and, when it belongs to
// the same scenario, the latest result (busy fractions, rates, the bottleneck).
enum class StageKind { Data, Train, Experts, Optimizer, Embeddings, Eval };
QString stageName(StageKind kind);

struct PipelineStage {
    StageKind kind = StageKind::Train;
    QString where;           // "" on the pool itself, "host CPUs" on the training nodes' hosts
    bool bottleneck = false; // the result names it
};

struct PipelinePool {
    QString name;
    QString device;
    std::int64_t count = 0;
    std::vector<PipelineStage> stages;
    std::optional<double> utilisation; // from the result
};

struct PipelineArrow {
    int from = 0; // pool indices
    int to = 0;
    QString label; // bytes/s and items/s, from the result; "" without one
    int row = 0;   // the row of its stage in the other pool's box, where it is drawn
};

struct PipelineDiagram {
    std::vector<PipelinePool> pools; // in the scenario's order
    std::vector<PipelineArrow> arrows;
    QString bottleneck; // "experts on experts (expert compute)", "" without a result
    // How the result timed each stage's traffic to other pools: "data as flows beside the step, experts
    // in closed form"; "" without a result or such stages.
    QString traffic;
};

// `result` may be null (no run yet, or the scenario changed since).
PipelineDiagram pipelineDiagram(const models::Scenario& scenario, const models::RunResult* result);

// Edits the pipeline view makes, each returning the changed scenario (one undo step for the caller), or
// nullopt with `error` when the edit cannot be made.
//
// A new pool of `device` (named after it) that takes over `kind`: the data stage or an offload stage moves to
// it; the training stage moves to it with the training pool's count. The device must be able to run the
// stage (CPUs for data and the optimizer, accelerators for training and experts).
std::optional<models::Scenario> placeStageOnNewPool(const models::Scenario& scenario, StageKind kind,
                                                    const models::Device& device, QString& error);
// Adds a stage of `kind` (data on the host CPUs, experts on the first other accelerator pool, optimizer on
// the host CPUs); nullopt with `error` when the workload has one already or it cannot run.
std::optional<models::Scenario> addStage(const models::Scenario& scenario, StageKind kind, QString& error);
// Removes the stage of `kind` (not the training stage).
std::optional<models::Scenario> removeStage(const models::Scenario& scenario, StageKind kind, QString& error);

} // namespace choreo::ui
