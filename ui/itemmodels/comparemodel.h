#pragma once

#include "models/result.h"
#include "models/scenario.h"

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

namespace choreo::ui {

// Two to four scenarios side by side: one column each, one row per key figure (inputs, then the
// results once a worker gave them). In each result row the best value is bold; ValueRole gives numbers.
class CompareModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Row {
        SourceRow,
        DeviceRow,
        DevicesRow,
        ModelRow,
        LayoutRow,
        StepTimeRow,
        ThroughputRow,
        MfuRow,
        TimeToTrainRow,
        CostRow,
        EnergyRow,
        MemoryRow,
        // Serving, where the scenario serves: the highest Poisson rate within its SLOs, the output tokens/s
        // there, the price of a million output tokens at that rate, and the energy a token of its stream.
        ServingRateRow,
        ServingThroughputRow,
        UsdPerMillionTokensRow,
        JoulesPerTokenRow,
        PoolsRow,      // each pool's stages, busy fraction and cost, one line each
        BottleneckRow, // the stage that limits tokens/s, and where it runs
        StatusRow,
        RowCount
    };
    enum class State { NotRun, Running, Succeeded, Failed };
    static constexpr int kMaxScenarios = 4;

    struct Entry {
        QString title;  // the column header: file name or "snapshot 2"
        QString source; // where it came from (a path, or "current scenario at 10:42")
        models::Scenario scenario;
        double capacity_GB = 0; // memory of the training pool's device, from the catalog (0: unknown)
        State state = State::NotRun;
        std::optional<models::RunResult> result;
        QString failure;
    };

    explicit CompareModel(QObject* parent = nullptr);

    // Adds a column; false when there are already kMaxScenarios.
    bool add(Entry entry);
    void remove(int column);
    void setRunning(int column);
    void setResult(int column, const models::RunResult& result);
    void setFailed(int column, const QString& message);

    [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] std::optional<double> value(int row, int column) const;
    [[nodiscard]] bool isBest(int row, int column) const;
    // A serving row's text (empty where the scenario serves nothing).
    [[nodiscard]] QString servingText(int row, int column) const;
    void columnChanged(int column);

    std::vector<Entry> entries_;
};

} // namespace choreo::ui
