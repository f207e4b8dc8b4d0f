#include "ui/itemmodels/pipelinediagram.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/pooltablemodel.h"

#include <QCoreApplication>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("choreo::ui::PipelineDiagram", text);
}

std::optional<std::size_t> poolIndex(const models::Scenario& s, const std::string& name) {
    for (std::size_t i = 0; i < s.cluster.pools.size(); ++i)
        if (s.cluster.pools[i].name == name)
            return i;
    return std::nullopt;
}

std::optional<std::size_t> trainingIndex(const models::Scenario& s) {
    const models::Pool* pool = s.trainingPool();
    return pool ? poolIndex(s, pool->name) : std::nullopt;
}

models::OffloadTarget targetOf(StageKind kind) {
    if (kind == StageKind::Optimizer)
        return models::OffloadTarget::Optimizer;
    return kind == StageKind::Embeddings ? models::OffloadTarget::Embeddings : models::OffloadTarget::Experts;
}

StageKind kindOf(models::OffloadTarget target) {
    switch (target) {
    case models::OffloadTarget::Optimizer:
        return StageKind::Optimizer;
    case models::OffloadTarget::Embeddings:
        return StageKind::Embeddings;
    case models::OffloadTarget::Experts:
        break;
    }
    return StageKind::Experts;
}

// The stages that run on CPUs; the others need accelerators.
bool onCpus(StageKind kind) {
    return kind == StageKind::Data || kind == StageKind::Optimizer || kind == StageKind::Embeddings;
}

// The pool a stage names, or the training pool's hosts (nullopt pool name).
struct Placement {
    std::optional<std::size_t> pool; // nullopt: not drawable (names a missing pool)
    bool host = false;
};

Placement place(const models::Scenario& s, const std::optional<std::string>& pool, std::size_t training) {
    if (!pool)
        return {training, true};
    return {poolIndex(s, *pool), false};
}

QString rate(double bytesPerSecond) {
    return formatSignificant(bytesPerSecond / 1e9, 3) + u" GB/s"_s;
}

void addStage(PipelineDiagram& d, const Placement& at, StageKind kind) {
    if (at.pool)
        d.pools[*at.pool].stages.push_back({kind, at.host ? tr("host CPUs") : QString(), false});
}

// Busy fractions, the bottleneck and the arrows' rates from a result of this scenario.
void addResult(PipelineDiagram& d, const models::RunResult& r) {
    for (auto& pool : d.pools)
        for (const auto& p : r.pools)
            if (QString::fromStdString(p.name) == pool.name)
                pool.utilisation = p.utilisation;
    for (auto& pool : d.pools)
        for (auto& stage : pool.stages)
            stage.bottleneck = stageName(stage.kind) == QString::fromStdString(r.bottleneck.stage);
    if (!r.bottleneck.stage.empty())
        d.bottleneck =
            QString::fromStdString(r.bottleneck.stage) + tr(" on ") +
            QString::fromStdString(r.bottleneck.pool) +
            (r.bottleneck.detail.empty() ? QString()
                                         : u" ("_s + QString::fromStdString(r.bottleneck.detail) + u")"_s);
    QStringList traffic;
    auto how = [](bool simulated) {
        return simulated ? tr(" as flows beside the step") : tr(" in closed form");
    };
    if (r.data_stage)
        traffic << tr("data") + how(r.data_stage->simulated);
    for (const auto& o : r.offload)
        traffic << QString::fromStdString(o.target) + how(o.simulated);
    d.traffic = traffic.join(u", "_s);
}

QString arrowLabel(StageKind kind, const models::RunResult* r) {
    if (!r || r->step_time_s <= 0.0)
        return {};
    if (kind == StageKind::Data && r->data_stage) {
        const auto& data = *r->data_stage;
        return formatSignificant(data.samples / r->step_time_s, 3) + tr(" samples/s, ") +
               rate(data.delivered_bytes / r->step_time_s);
    }
    const std::string target = stageName(kind).toStdString();
    for (const auto& o : r->offload)
        if (o.target == target)
            return rate(o.bytes_per_step / 2.0 / r->step_time_s) + tr(" each way");
    return {};
}

std::size_t nextStageIndex(const models::Workload& w) {
    std::size_t next = w.train_stage_index ? *w.train_stage_index + 1 : 0;
    if (w.data)
        next = std::max(next, w.data->stage_index + 1);
    if (w.eval)
        next = std::max(next, w.eval->stage_index + 1);
    for (const auto& o : w.offload)
        next = std::max(next, o.stage_index + 1);
    return next;
}

bool runs(StageKind kind, const models::Device& device) {
    const bool cpu = device.kind == models::DeviceKind::Cpu;
    return onCpus(kind) ? cpu : !cpu;
}

} // namespace

QString stageName(StageKind kind) {
    switch (kind) {
    case StageKind::Data:
        return u"data"_s;
    case StageKind::Experts:
        return u"experts"_s;
    case StageKind::Optimizer:
        return u"optimizer"_s;
    case StageKind::Embeddings:
        return u"embeddings"_s;
    case StageKind::Eval:
        return u"eval"_s;
    case StageKind::Train:
        break;
    }
    return u"train"_s;
}

PipelineDiagram pipelineDiagram(const models::Scenario& s, const models::RunResult* result) {
    PipelineDiagram d;
    for (const auto& pool : s.cluster.pools)
        d.pools.push_back(
            {QString::fromStdString(pool.name), QString::fromStdString(pool.device), pool.count, {}, {}});
    const auto training = trainingIndex(s);
    if (!training)
        return d;
    addStage(d, {training, false}, StageKind::Train);
    const models::Workload& w = s.workload;
    auto arrow = [&](const Placement& at, StageKind kind, bool toTraining) {
        if (at.pool && !at.host && *at.pool != *training)
            d.arrows.push_back({static_cast<int>(toTraining ? *at.pool : *training),
                                static_cast<int>(toTraining ? *training : *at.pool), arrowLabel(kind, result),
                                static_cast<int>(d.pools[*at.pool].stages.size()) - 1});
    };
    if (w.data) {
        const Placement at = place(s, w.data->pool, *training);
        addStage(d, at, StageKind::Data);
        arrow(at, StageKind::Data, true);
    }
    for (const auto& o : w.offload) {
        const StageKind kind = kindOf(o.target);
        const Placement at = place(s, o.pool, *training);
        addStage(d, at, kind);
        arrow(at, kind, false);
    }
    if (w.eval) {
        const Placement at = w.eval->pool ? place(s, w.eval->pool, *training) : Placement{training, false};
        addStage(d, at, StageKind::Eval);
        const std::size_t before = d.arrows.size();
        arrow(at, StageKind::Eval, false);
        if (d.arrows.size() > before) // its own pool gets the weights before each evaluation
            d.arrows.back().label = tr("weights every %1 steps").arg(w.eval->every_steps);
    }
    if (result)
        addResult(d, *result);
    return d;
}

std::optional<models::Scenario> placeStageOnNewPool(const models::Scenario& scenario, StageKind kind,
                                                    const models::Device& device, QString& error) {
    if (!runs(kind, device)) {
        error = tr("%1 is a %2; the %3 stage runs on %4")
                    .arg(QString::fromStdString(device.name),
                         QString::fromStdString(models::toString(device.kind)), stageName(kind),
                         onCpus(kind) ? tr("CPUs") : tr("accelerators"));
        return std::nullopt;
    }
    models::Scenario s = scenario;
    const models::Pool* training = s.trainingPool();
    const std::int64_t trainingCount = training ? training->count : 0;
    PoolTableModel::appendPool(s, device);
    models::Pool& pool = s.cluster.pools.back();
    models::Workload& w = s.workload;
    switch (kind) {
    case StageKind::Train:
        if (trainingCount > 0 && trainingCount % pool.devices_per_node == 0)
            pool.count = trainingCount;
        w.pool = pool.name;
        break;
    case StageKind::Eval:
        if (!w.eval) {
            error = tr("the workload has no eval stage");
            return std::nullopt;
        }
        w.eval->pool = pool.name;
        break;
    case StageKind::Data:
        if (!w.data) {
            error = tr("the workload has no data stage");
            return std::nullopt;
        }
        w.data->pool = pool.name;
        break;
    case StageKind::Experts:
    case StageKind::Optimizer:
    case StageKind::Embeddings: {
        const auto stage =
            std::find_if(w.offload.begin(), w.offload.end(),
                         [&](const models::OffloadStage& o) { return o.target == targetOf(kind); });
        if (stage == w.offload.end()) {
            error = tr("the workload does not offload the %1").arg(stageName(kind));
            return std::nullopt;
        }
        stage->pool = pool.name;
        break;
    }
    }
    return s;
}

std::optional<models::Scenario> addStage(const models::Scenario& scenario, StageKind kind, QString& error) {
    models::Scenario s = scenario;
    models::Workload& w = s.workload;
    const std::size_t index = nextStageIndex(w);
    if (kind == StageKind::Train) {
        error = tr("every workload has its training stage");
        return std::nullopt;
    }
    if (kind == StageKind::Data) {
        if (w.data) {
            error = tr("the workload has a data stage already");
            return std::nullopt;
        }
        w.data = models::DataStage{};
        w.data->stage_index = index;
        return s;
    }
    if (kind == StageKind::Eval) {
        if (w.eval) {
            error = tr("the workload has an eval stage already");
            return std::nullopt;
        }
        w.eval = models::EvalStage{};
        w.eval->stage_index = index;
        return s;
    }
    if (w.offloaded(targetOf(kind))) {
        error = tr("the workload offloads the %1 already").arg(stageName(kind));
        return std::nullopt;
    }
    models::OffloadStage stage{targetOf(kind), std::nullopt, index};
    if (kind == StageKind::Experts) {
        // The first pool that does not train, if there is one (validation says if it cannot run experts);
        // else the user drops a device on the stage.
        const models::Pool* training = s.trainingPool();
        for (const auto& pool : s.cluster.pools)
            if (training && pool.name != training->name && !stage.pool)
                stage.pool = pool.name;
    }
    if (kind == StageKind::Embeddings && w.data) // the data stage's CPUs, if it has a pool of its own
        stage.pool = w.data->pool;
    w.offload.push_back(stage);
    return s;
}

std::optional<models::Scenario> removeStage(const models::Scenario& scenario, StageKind kind,
                                            QString& error) {
    models::Scenario s = scenario;
    models::Workload& w = s.workload;
    if (kind == StageKind::Train) {
        error = tr("the training stage cannot be removed");
        return std::nullopt;
    }
    if (kind == StageKind::Data) {
        if (!w.data) {
            error = tr("the workload has no data stage");
            return std::nullopt;
        }
        w.data.reset();
        return s;
    }
    if (kind == StageKind::Eval) {
        if (!w.eval) {
            error = tr("the workload has no eval stage");
            return std::nullopt;
        }
        w.eval.reset();
        return s;
    }
    const auto before = w.offload.size();
    std::erase_if(w.offload, [&](const models::OffloadStage& o) { return o.target == targetOf(kind); });
    if (w.offload.size() == before) {
        error = tr("the workload does not offload the %1").arg(stageName(kind));
        return std::nullopt;
    }
    return s;
}

} // namespace choreo::ui
