#include "ui/itemmodels/sweepresultmodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace choreo::ui {

SweepResultModel::SweepResultModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void SweepResultModel::setOutcomes(std::vector<SweepOutcome> outcomes, std::int64_t baseDevices) {
    beginResetModel();
    outcomes_ = std::move(outcomes);
    baseDevices_ = baseDevices;
    endResetModel();
}

void SweepResultModel::setOutcome(int row, const SweepOutcome& outcome) {
    if (row < 0 || row >= rowCount())
        return;
    outcomes_[static_cast<std::size_t>(row)] = outcome;
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    // The reference point of the scaling efficiency may have changed.
    if (rowCount() > 1)
        emit dataChanged(index(0, EfficiencyColumn), index(rowCount() - 1, EfficiencyColumn));
}

void SweepResultModel::clear() {
    setOutcomes({}, 0);
}

std::optional<double> SweepResultModel::scalingEfficiency(int row) const {
    const auto& o = outcomes_[static_cast<std::size_t>(row)];
    if (!o.result || o.devices <= 0)
        return std::nullopt;
    const SweepOutcome* reference = nullptr;
    for (const auto& candidate : outcomes_)
        if (candidate.result && candidate.devices > 0 && candidate.result->tokens_per_s > 0 &&
            (!reference || candidate.devices < reference->devices))
            reference = &candidate;
    if (!reference)
        return std::nullopt;
    const double perDevice = o.result->tokens_per_s / static_cast<double>(o.devices);
    const double referencePerDevice =
        reference->result->tokens_per_s / static_cast<double>(reference->devices);
    return perDevice / referencePerDevice;
}

QString SweepResultModel::columnKey(int column) {
    switch (column) {
    case DevicesColumn:
        return u"devices"_s;
    case StatusColumn:
        return u"status"_s;
    case StepTimeColumn:
        return u"step_time_s"_s;
    case TokensPerSecondColumn:
        return u"tokens_per_s"_s;
    case EfficiencyColumn:
        return u"scaling_efficiency"_s;
    case MfuColumn:
        return u"mfu"_s;
    case TimeToTrainColumn:
        return u"time_to_train_days"_s;
    case EnergyColumn:
        return u"energy_MWh"_s;
    case CostColumn:
        return u"cost_usd"_s;
    case MemoryColumn:
        return u"memory_per_device_GB"_s;
    case ComputeColumn:
        return u"compute_s"_s;
    case CommunicationColumn:
        return u"exposed_communication_s"_s;
    case BubbleColumn:
        return u"pipeline_bubble_s"_s;
    case DataWaitColumn:
        return u"data_wait_s"_s;
    case EvalColumn:
        return u"eval_s"_s;
    case NoteColumn:
        return u"note"_s;
    default:
        return {};
    }
}

std::optional<double> SweepResultModel::value(int row, int column) const {
    const auto& o = outcomes_[static_cast<std::size_t>(row)];
    if (column == DevicesColumn)
        return static_cast<double>(o.devices);
    if (!o.result)
        return std::nullopt;
    const models::RunResult& r = *o.result;
    switch (column) {
    case StepTimeColumn:
        return r.step_time_s;
    case TokensPerSecondColumn:
        return r.tokens_per_s;
    case EfficiencyColumn:
        return scalingEfficiency(row);
    case MfuColumn:
        return r.mfu;
    case TimeToTrainColumn:
        return r.time_to_train_s / 86400.0;
    case EnergyColumn:
        return r.energy_kWh / 1000.0;
    case CostColumn:
        return r.cost_usd;
    case MemoryColumn:
        return r.memory_per_device_GB;
    case ComputeColumn:
        return r.breakdown.compute_s;
    case CommunicationColumn:
        return r.breakdown.exposed_communication_s;
    case BubbleColumn:
        return r.breakdown.pipeline_bubble_s;
    case DataWaitColumn:
        return r.breakdown.data_wait_s;
    case EvalColumn:
        return r.breakdown.eval_s;
    default:
        return std::nullopt;
    }
}

QString SweepResultModel::text(int row, int column) const {
    const auto& o = outcomes_[static_cast<std::size_t>(row)];
    if (column == DevicesColumn)
        return o.devices == baseDevices_ ? tr("%1 (base)").arg(o.devices) : QString::number(o.devices);
    if (column == StatusColumn) {
        switch (o.state) {
        case SweepOutcome::State::Pending:
            return tr("pending");
        case SweepOutcome::State::Running:
            return tr("running");
        case SweepOutcome::State::Succeeded:
            return tr("ok");
        case SweepOutcome::State::Failed:
            return tr("failed");
        case SweepOutcome::State::Cancelled:
            return tr("cancelled");
        }
        return {};
    }
    if (column == NoteColumn)
        return o.failure ? o.failure->text().replace(u'\n', u"; "_s) : QString();
    const auto v = value(row, column);
    if (!v)
        return {};
    switch (column) {
    case StepTimeColumn:
        return formatSignificant(*v, 4);
    case TokensPerSecondColumn:
        return formatFixed(*v, 0);
    case EfficiencyColumn:
    case MfuColumn:
        return formatPercent(*v);
    case TimeToTrainColumn:
        return formatSignificant(*v, 3);
    case EnergyColumn:
        return formatSignificant(*v, 4);
    case CostColumn:
        return formatUsd(*v);
    case MemoryColumn:
        return formatFixed(*v, 1);
    default:
        return formatSignificant(*v, 3);
    }
}

int SweepResultModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(outcomes_.size());
}

int SweepResultModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SweepResultModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& o = outcomes_[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return text(index.row(), index.column());
    case Qt::ToolTipRole:
        if (o.failure)
            return o.failure->text();
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == StatusColumn || index.column() == NoteColumn
                   ? (Qt::AlignLeft | Qt::AlignVCenter).toInt()
                   : (Qt::AlignRight | Qt::AlignVCenter).toInt();
    case Qt::ForegroundRole:
        if (o.state == SweepOutcome::State::Failed)
            return QBrush(QColor(0xb0, 0x20, 0x20));
        return {};
    case ValueRole:
        if (const auto v = value(index.row(), index.column()))
            return *v;
        return {};
    case StatusRole:
        return static_cast<int>(o.state);
    case IsBaseRole:
        return o.devices == baseDevices_;
    case KeyRole:
        return columnKey(index.column());
    default:
        return {};
    }
}

QVariant SweepResultModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != KeyRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == KeyRole)
        return columnKey(section);
    switch (section) {
    case DevicesColumn:
        return tr("Devices");
    case StatusColumn:
        return tr("Status");
    case StepTimeColumn:
        return tr("Step time (s)");
    case TokensPerSecondColumn:
        return tr("Throughput (tokens/s)");
    case EfficiencyColumn:
        return tr("Scaling efficiency");
    case MfuColumn:
        return tr("MFU");
    case TimeToTrainColumn:
        return tr("Time to train (days)");
    case EnergyColumn:
        return tr("Energy (MWh)");
    case CostColumn:
        return tr("Cost ($)");
    case MemoryColumn:
        return tr("Memory/device (GB)");
    case ComputeColumn:
        return tr("Compute (s)");
    case CommunicationColumn:
        return tr("Exposed communication (s)");
    case BubbleColumn:
        return tr("Pipeline bubble (s)");
    case DataWaitColumn:
        return tr("Waiting for data (s)");
    case EvalColumn:
        return tr("Evaluation (s)");
    case NoteColumn:
        return tr("Note");
    default:
        return {};
    }
}

} // namespace choreo::ui
