#pragma once

#include "ui/runs/sweepoutcome.h"

#include <QAbstractTableModel>

#include <vector>

namespace choreo::ui {

// The scenario on each hardware option (one sweep point per catalog device), with time to train and
// total cost; ParetoRole marks the options no other option beats on both. Feeds the Pareto chart.
class HardwareOptionModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        DeviceColumn,
        LayoutColumn,
        TimeToTrainColumn, // ValueRole: days
        CostColumn,        // ValueRole: US dollars
        EnergyColumn,      // ValueRole: MWh
        MfuColumn,
        StatusColumn,
        ColumnCount
    };

    explicit HardwareOptionModel(QObject* parent = nullptr);

    // `layouts` (one per outcome) describe the parallel layout each option runs.
    void setOutcomes(std::vector<SweepOutcome> outcomes, QStringList layouts);
    void setOutcome(int row, const SweepOutcome& outcome);
    void clear();

    [[nodiscard]] const std::vector<SweepOutcome>& outcomes() const { return outcomes_; }
    [[nodiscard]] bool isPareto(int row) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    void updatePareto();

    std::vector<SweepOutcome> outcomes_;
    QStringList layouts_;
    std::vector<bool> pareto_;
};

} // namespace choreo::ui
