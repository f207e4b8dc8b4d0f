#include "ui/itemmodels/layoutsuggestionmodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {
constexpr double kUnranked = 1e300; // rows without a result sort after every step time
}

LayoutSuggestionModel::LayoutSuggestionModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void LayoutSuggestionModel::setCandidates(std::vector<LayoutCandidate> candidates) {
    beginResetModel();
    rows_.clear();
    rows_.reserve(candidates.size());
    for (auto& c : candidates)
        rows_.push_back(Row{std::move(c), State::Pending, std::nullopt, {}});
    endResetModel();
}

void LayoutSuggestionModel::clear() {
    setCandidates({});
}

void LayoutSuggestionModel::setRunning(int row) {
    if (row < 0 || row >= rowCount())
        return;
    rows_[static_cast<std::size_t>(row)].state = State::Running;
    rowChanged(row);
}

void LayoutSuggestionModel::setResult(int row, const models::RunResult& result) {
    if (row < 0 || row >= rowCount())
        return;
    auto& r = rows_[static_cast<std::size_t>(row)];
    r.state = State::Succeeded;
    r.result = result;
    rowChanged(row);
}

void LayoutSuggestionModel::setFailed(int row, const QString& message) {
    if (row < 0 || row >= rowCount())
        return;
    auto& r = rows_[static_cast<std::size_t>(row)];
    r.state = State::Failed;
    r.failure = message;
    rowChanged(row);
}

void LayoutSuggestionModel::rowChanged(int row) {
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int LayoutSuggestionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int LayoutSuggestionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayoutSuggestionModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = rows_[static_cast<std::size_t>(index.row())];
    const auto& c = r.candidate;
    if (role == RankRole)
        return r.result ? r.result->step_time_s : kUnranked + c.estimate_step_s;
    if (role == ValueRole) {
        switch (index.column()) {
        case MemoryColumn:
            return c.memory.total();
        case EstimateColumn:
            return c.estimate_step_s;
        case StepTimeColumn:
            return r.result ? QVariant(r.result->step_time_s) : QVariant();
        case TokensPerSecondColumn:
            return r.result ? QVariant(r.result->tokens_per_s) : QVariant();
        case MfuColumn:
            return r.result ? QVariant(r.result->mfu) : QVariant();
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != LayoutColumn && index.column() != StatusColumn)
        return (Qt::AlignRight | Qt::AlignVCenter).toInt();
    if (role == Qt::ToolTipRole && index.column() == StatusColumn && r.state == State::Failed)
        return r.failure;
    if (role == Qt::ToolTipRole && index.column() == MemoryColumn)
        return QString::fromStdString(c.memory.describe());
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case LayoutColumn:
        return c.describe();
    case MemoryColumn:
        return tr("%1 GB").arg(formatSignificant(c.memory.total(), 3));
    case EstimateColumn:
        return tr("%1 s").arg(formatSignificant(c.estimate_step_s, 3));
    case StepTimeColumn:
        return r.result ? tr("%1 s").arg(formatSignificant(r.result->step_time_s, 4)) : QString();
    case TokensPerSecondColumn:
        return r.result ? formatFixed(r.result->tokens_per_s, 0) : QString();
    case MfuColumn:
        return r.result ? formatPercent(r.result->mfu) : QString();
    case StatusColumn:
        switch (r.state) {
        case State::Pending:
            return tr("queued");
        case State::Running:
            return tr("running");
        case State::Succeeded:
            return tr("done");
        case State::Failed:
            return tr("failed: %1").arg(r.failure);
        }
        return {};
    default:
        return {};
    }
}

QVariant LayoutSuggestionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case LayoutColumn:
        return tr("Layout");
    case MemoryColumn:
        return tr("Memory/device");
    case EstimateColumn:
        return tr("Estimate");
    case StepTimeColumn:
        return tr("Step (analytical)");
    case TokensPerSecondColumn:
        return tr("Tokens/s");
    case MfuColumn:
        return tr("MFU");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

} // namespace choreo::ui
