#pragma once

#include "models/result.h"
#include "ui/workload/layoutsearch.h"

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

namespace choreo::ui {

// Parallel layouts that fit, one row each, with the analytical model's answer once a worker gave it.
// RankRole (on every column) orders rows by simulated step time, rows still running or failed last.
class LayoutSuggestionModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        LayoutColumn,
        MemoryColumn,
        EstimateColumn,
        StepTimeColumn,
        TokensPerSecondColumn,
        MfuColumn,
        StatusColumn,
        ColumnCount
    };
    enum class State { Pending, Running, Succeeded, Failed };

    struct Row {
        LayoutCandidate candidate;
        State state = State::Pending;
        std::optional<models::RunResult> result;
        QString failure;
    };

    explicit LayoutSuggestionModel(QObject* parent = nullptr);

    void setCandidates(std::vector<LayoutCandidate> candidates);
    void setRunning(int row);
    void setResult(int row, const models::RunResult& result);
    void setFailed(int row, const QString& message);
    void clear();

    [[nodiscard]] const std::vector<Row>& rows() const { return rows_; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    void rowChanged(int row);

    std::vector<Row> rows_;
};

} // namespace choreo::ui
