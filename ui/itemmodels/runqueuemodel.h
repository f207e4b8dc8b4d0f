#pragma once

#include <QAbstractTableModel>

namespace choreo::ui {

class RunQueue;

// The run queue as a table: one row per run, in the order they were queued. Read-only; Cancel goes to
// the queue. ValueRole on the progress column is the fraction done (0..1).
class RunQueueModel final : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        RunColumn,
        BatchColumn,
        StateColumn,
        ProgressColumn,
        ResultColumn,
        CancelColumn,
        ColumnCount
    };
    // The run's id (int) on every column.
    static constexpr int RunIdRole = Qt::UserRole + 100;

    explicit RunQueueModel(RunQueue* queue, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

    [[nodiscard]] RunQueue* queue() const { return queue_; }

private:
    RunQueue* queue_;
};

} // namespace choreo::ui
