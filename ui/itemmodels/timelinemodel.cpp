#include "ui/itemmodels/timelinemodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

namespace choreo::ui {

TimelineModel::TimelineModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void TimelineModel::setTimeline(const models::StepTimeline& timeline) {
    beginResetModel();
    timeline_ = timeline;
    rows_.clear();
    rows_.reserve(timeline_.intervalCount());
    for (std::size_t s = 0; s < timeline_.stages.size(); ++s)
        for (std::size_t i = 0; i < timeline_.stages[s].intervals.size(); ++i)
            rows_.push_back({s, i});
    endResetModel();
}

void TimelineModel::clear() {
    setTimeline({});
}

QString TimelineModel::kindName(models::ActivityKind kind) {
    using K = models::ActivityKind;
    switch (kind) {
    case K::Forward:
        return tr("Forward");
    case K::Backward:
        return tr("Backward");
    case K::Recompute:
        return tr("Recompute");
    case K::Optimizer:
        return tr("Optimizer");
    case K::TensorComm:
        return tr("TP/CP/EP comm");
    case K::PipelineComm:
        return tr("PP send/recv");
    case K::DataComm:
        return tr("DP/ZeRO comm");
    case K::Bubble:
        return tr("Bubble");
    }
    return {};
}

int TimelineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int TimelineModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const auto& stage = timeline_.stages[row.stage];
    const auto& iv = stage.intervals[row.interval];
    auto optionalInt = [](std::int64_t v) {
        return v >= 0 ? QVariant(static_cast<qlonglong>(v)) : QVariant();
    };
    if (role == ValueRole) {
        switch (index.column()) {
        case StageColumn:
            return static_cast<qlonglong>(stage.stage);
        case MicroBatchColumn:
            return optionalInt(iv.micro_batch);
        case ChunkColumn:
            return optionalInt(iv.chunk);
        case StartColumn:
            return iv.start_s * 1e3;
        case EndColumn:
            return iv.end_s * 1e3;
        default:
            return {};
        }
    }
    if (role == KeyRole && index.column() == KindColumn)
        return QString::fromStdString(models::toString(iv.kind));
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case StageColumn:
        return QString::number(stage.stage);
    case KindColumn:
        return kindName(iv.kind);
    case MicroBatchColumn:
        return iv.micro_batch >= 0 ? QString::number(iv.micro_batch) : QString();
    case ChunkColumn:
        return iv.chunk >= 0 ? QString::number(iv.chunk) : QString();
    case StartColumn:
        return formatFixed(iv.start_s * 1e3, 3);
    case EndColumn:
        return formatFixed(iv.end_s * 1e3, 3);
    default:
        return {};
    }
}

QVariant TimelineModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StageColumn:
        return tr("Stage");
    case KindColumn:
        return tr("Activity");
    case MicroBatchColumn:
        return tr("Micro-batch");
    case ChunkColumn:
        return tr("Chunk");
    case StartColumn:
        return tr("Start (ms)");
    case EndColumn:
        return tr("End (ms)");
    default:
        return {};
    }
}

} // namespace choreo::ui
