#include "ui/itemmodels/hardwareoptionmodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <QFont>

namespace choreo::ui {

namespace {
constexpr double kSecondsPerDay = 86400.0;
}

HardwareOptionModel::HardwareOptionModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void HardwareOptionModel::setOutcomes(std::vector<SweepOutcome> outcomes, QStringList layouts) {
    beginResetModel();
    outcomes_ = std::move(outcomes);
    layouts_ = std::move(layouts);
    updatePareto();
    endResetModel();
}

void HardwareOptionModel::clear() {
    setOutcomes({}, {});
}

void HardwareOptionModel::setOutcome(int row, const SweepOutcome& outcome) {
    if (row < 0 || row >= rowCount())
        return;
    outcomes_[static_cast<std::size_t>(row)] = outcome;
    updatePareto();
    // Another row may have left or joined the front.
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

bool HardwareOptionModel::isPareto(int row) const {
    return row >= 0 && row < rowCount() && pareto_[static_cast<std::size_t>(row)];
}

void HardwareOptionModel::updatePareto() {
    pareto_.assign(outcomes_.size(), false);
    for (std::size_t i = 0; i < outcomes_.size(); ++i) {
        const auto& a = outcomes_[i].result;
        if (!a)
            continue;
        bool dominated = false;
        for (std::size_t j = 0; j < outcomes_.size() && !dominated; ++j) {
            const auto& b = outcomes_[j].result;
            if (j == i || !b)
                continue;
            dominated = b->time_to_train_s <= a->time_to_train_s && b->cost_usd <= a->cost_usd &&
                        (b->time_to_train_s < a->time_to_train_s || b->cost_usd < a->cost_usd);
        }
        pareto_[i] = !dominated;
    }
}

int HardwareOptionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(outcomes_.size());
}

int HardwareOptionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HardwareOptionModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    const SweepOutcome& o = outcomes_[row];
    const auto& r = o.result;
    if (role == ParetoRole)
        return static_cast<bool>(pareto_[row]);
    if (role == StatusRole)
        return static_cast<int>(o.state);
    if (role == ValueRole) {
        if (!r)
            return {};
        switch (index.column()) {
        case TimeToTrainColumn:
            return r->time_to_train_s / kSecondsPerDay;
        case CostColumn:
            return r->cost_usd;
        case EnergyColumn:
            return r->energy_kWh / 1000.0;
        case MfuColumn:
            return r->mfu;
        default:
            return {};
        }
    }
    if (role == Qt::FontRole && pareto_[row]) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole && o.failure)
        return o.failure->text();
    if (role == Qt::TextAlignmentRole && index.column() >= TimeToTrainColumn && index.column() <= MfuColumn)
        return (Qt::AlignRight | Qt::AlignVCenter).toInt();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case DeviceColumn:
        return o.label;
    case LayoutColumn:
        return index.row() < layouts_.size() ? layouts_[index.row()] : QString();
    case TimeToTrainColumn:
        return r ? tr("%1 d").arg(formatSignificant(r->time_to_train_s / kSecondsPerDay, 3)) : QString();
    case CostColumn:
        return r ? formatUsd(r->cost_usd) : QString();
    case EnergyColumn:
        return r ? tr("%1 MWh").arg(formatSignificant(r->energy_kWh / 1000.0, 3)) : QString();
    case MfuColumn:
        return r ? formatPercent(r->mfu) : QString();
    case StatusColumn:
        switch (o.state) {
        case SweepOutcome::State::Pending:
            return tr("queued");
        case SweepOutcome::State::Running:
            return tr("running");
        case SweepOutcome::State::Succeeded:
            return pareto_[row] ? tr("Pareto front") : tr("dominated");
        case SweepOutcome::State::Failed:
            return tr("failed: %1").arg(o.failure ? o.failure->message : QString());
        case SweepOutcome::State::Cancelled:
            return tr("cancelled");
        }
        return {};
    default:
        return {};
    }
}

QVariant HardwareOptionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case DeviceColumn:
        return tr("Device");
    case LayoutColumn:
        return tr("Layout");
    case TimeToTrainColumn:
        return tr("Time to train");
    case CostColumn:
        return tr("Total cost");
    case EnergyColumn:
        return tr("Energy");
    case MfuColumn:
        return tr("MFU");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

} // namespace choreo::ui
