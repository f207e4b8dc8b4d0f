#include "ui/itemmodels/memorystagemodel.h"

#include "models/weightstreaming.h"
#include "ui/document.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// memoryForStage() divides by these; the forms keep them positive, a file may not.
bool computable(const models::Workload& w) {
    const auto& m = w.model;
    const auto& p = w.parallel;
    return m.layers > 0 && m.hidden > 0 && m.heads > 0 && m.kv_heads > 0 && m.ffn_hidden > 0 && m.vocab > 0 &&
           m.seq_len > 0 && w.micro_batch > 0 && w.global_batch > 0 && p.tp > 0 && p.pp > 0 && p.dp > 0 &&
           p.cp > 0 && p.vp > 0;
}

// More stages than this would not be readable as bars, and the pipeline is capped by the layers anyway.
constexpr std::int64_t kMaxStages = 512;

} // namespace

MemoryStageModel::MemoryStageModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent)
    , document_(document) {
    connect(document_, &Document::scenarioChanged, this, &MemoryStageModel::recompute);
    recompute();
}

void MemoryStageModel::recompute() {
    const auto& s = document_->scenario();
    const models::Pool* pool = s.trainingPool();
    const models::Device* device = pool ? document_->catalog().find(pool->device) : nullptr;
    std::vector<models::MemoryBreakdown> stages;
    if (device && device->weight_streaming && computable(s.workload)) // one wafer, no pipeline stages
        stages.push_back(models::weightStreamingMemory(s.workload));
    else if (computable(s.workload) && s.workload.parallel.pp <= kMaxStages)
        for (std::int64_t stage = 0; stage < s.workload.parallel.pp; ++stage)
            stages.push_back(models::trainingStageMemory(s.workload, device, stage));
    capacity_GB_ = device ? device->memory_GB.value : 0.0;
    if (stages.size() != stages_.size()) {
        beginResetModel();
        stages_ = std::move(stages);
        endResetModel();
        return;
    }
    stages_ = std::move(stages);
    if (!stages_.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int MemoryStageModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(stages_.size());
}

int MemoryStageModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MemoryStageModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& m = stages_[static_cast<std::size_t>(index.row())];
    double value = 0;
    switch (index.column()) {
    case StageColumn:
        if (role == Qt::DisplayRole)
            return QString::number(m.stage);
        if (role == ValueRole)
            return static_cast<qlonglong>(m.stage);
        return {};
    case WeightsColumn:
        value = m.weights_GB;
        break;
    case GradientsColumn:
        value = m.gradients_GB;
        break;
    case OptimizerColumn:
        value = m.optimizer_GB;
        break;
    case ActivationsColumn:
        value = m.activations_GB;
        break;
    case BuffersColumn:
        value = m.buffers_GB;
        break;
    case TotalColumn:
        value = m.total();
        break;
    default:
        return {};
    }
    if (role == ValueRole)
        return value;
    if (role == Qt::DisplayRole)
        return formatSignificant(value, 3);
    if (role == Qt::TextAlignmentRole)
        return (Qt::AlignRight | Qt::AlignVCenter).toInt();
    return {};
}

QVariant MemoryStageModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StageColumn:
        return tr("Stage");
    case WeightsColumn:
        return tr("Weights (GB)");
    case GradientsColumn:
        return tr("Gradients (GB)");
    case OptimizerColumn:
        return tr("Optimizer (GB)");
    case ActivationsColumn:
        return tr("Activations (GB)");
    case BuffersColumn:
        return tr("Buffers (GB)");
    case TotalColumn:
        return tr("Total (GB)");
    default:
        return {};
    }
}

} // namespace choreo::ui
