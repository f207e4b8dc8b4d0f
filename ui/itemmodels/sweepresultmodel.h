#pragma once

#include "ui/runs/sweepoutcome.h"

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

#include <cstdint>
#include <optional>
#include <vector>

namespace choreo::ui {

// The points of a scaling sweep, one row each in sweep order, failed points included. Feeds the
// sweep table, the step-time and scaling charts, the report and the CSV export, so that they agree.
class SweepResultModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        DevicesColumn,
        StatusColumn,
        StepTimeColumn,
        TokensPerSecondColumn,
        EfficiencyColumn,
        MfuColumn,
        TimeToTrainColumn,
        EnergyColumn,
        CostColumn,
        MemoryColumn,
        ComputeColumn,
        CommunicationColumn,
        BubbleColumn,
        DataWaitColumn,
        EvalColumn,
        NoteColumn,
        ColumnCount
    };

    explicit SweepResultModel(QObject* parent = nullptr);

    // Replaces all rows; `baseDevices` marks the row that is the scenario as written.
    void setOutcomes(std::vector<SweepOutcome> outcomes, std::int64_t baseDevices);
    // Updates one row (a point finished); other rows' scaling efficiency may change with it.
    void setOutcome(int row, const SweepOutcome& outcome);
    void clear();

    [[nodiscard]] const std::vector<SweepOutcome>& outcomes() const { return outcomes_; }
    [[nodiscard]] std::int64_t baseDevices() const { return baseDevices_; }
    // Throughput per device relative to the smallest successful point; nullopt for rows without a result.
    [[nodiscard]] std::optional<double> scalingEfficiency(int row) const;
    // A machine name for a column ("tokens_per_s"), used as the CSV header.
    static QString columnKey(int column);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] std::optional<double> value(int row, int column) const;
    [[nodiscard]] QString text(int row, int column) const;

    std::vector<SweepOutcome> outcomes_;
    std::int64_t baseDevices_ = 0;
};

} // namespace choreo::ui
