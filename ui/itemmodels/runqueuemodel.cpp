#include "ui/itemmodels/runqueuemodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"
#include "ui/runs/runqueue.h"

#include <QBrush>
#include <QColor>

namespace choreo::ui {

namespace {

QString stateText(const QueuedRun& run) {
    switch (run.state) {
    case QueuedRun::State::Queued:
        return RunQueueModel::tr("queued");
    case QueuedRun::State::Running:
        return RunQueueModel::tr("running");
    case QueuedRun::State::Succeeded:
        return run.cached ? RunQueueModel::tr("done (cached)") : RunQueueModel::tr("done");
    case QueuedRun::State::Failed:
        return RunQueueModel::tr("failed");
    case QueuedRun::State::Cancelled:
        return RunQueueModel::tr("cancelled");
    }
    return {};
}

} // namespace

RunQueueModel::RunQueueModel(RunQueue* queue, QObject* parent)
    : QAbstractTableModel(parent)
    , queue_(queue) {
    connect(queue_, &RunQueue::aboutToAddRun, this, [this](int row) { beginInsertRows({}, row, row); });
    connect(queue_, &RunQueue::runAdded, this, [this] { endInsertRows(); });
    connect(queue_, &RunQueue::runChanged, this, [this](int row) {
        if (row >= 0 && row < rowCount())
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    });
    connect(queue_, &RunQueue::aboutToRemoveRuns, this, [this] { beginResetModel(); });
    connect(queue_, &RunQueue::runsRemoved, this, [this] { endResetModel(); });
}

int RunQueueModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : queue_->count();
}

int RunQueueModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunQueueModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QueuedRun& run = queue_->at(index.row());
    if (role == RunIdRole)
        return run.id;
    if (role == StatusRole)
        return static_cast<int>(run.state);
    const int column = index.column();
    if (role == ValueRole && column == ProgressColumn)
        return run.isOver() && run.state != QueuedRun::State::Succeeded ? QVariant() : QVariant(run.progress);
    if (role == Qt::ForegroundRole && column == StateColumn) {
        if (run.state == QueuedRun::State::Failed)
            return QBrush(QColor(0xa0, 0x18, 0x18));
        if (run.cached)
            return QBrush(QColor(0x1c, 0x6b, 0x2a));
    }
    if (role == Qt::ToolTipRole) {
        if (run.failure)
            return run.failure->text();
        if (run.cached)
            return tr("Answered from the cache: the same scenario was simulated before at %1 fidelity")
                .arg(run.fidelity);
        return run.stage.isEmpty() ? QVariant() : QVariant(run.stage);
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case RunColumn:
        return run.label;
    case BatchColumn:
        return run.batch;
    case StateColumn:
        return stateText(run);
    case ProgressColumn:
        if (run.state == QueuedRun::State::Running)
            return formatPercent(run.progress);
        return run.state == QueuedRun::State::Succeeded ? formatPercent(1.0) : QString();
    case ResultColumn:
        if (run.result)
            return tr("step %1 s, %2")
                .arg(formatSignificant(run.result->step_time_s), formatUsd(run.result->cost_usd));
        if (run.failure)
            return run.failure->message;
        return QString();
    case CancelColumn:
        return run.isOver() ? QString() : tr("Cancel");
    default:
        return {};
    }
}

QVariant RunQueueModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RunColumn:
        return tr("Run");
    case BatchColumn:
        return tr("Batch");
    case StateColumn:
        return tr("State");
    case ProgressColumn:
        return tr("Progress");
    case ResultColumn:
        return tr("Result");
    case CancelColumn:
        return QString();
    default:
        return {};
    }
}

} // namespace choreo::ui
