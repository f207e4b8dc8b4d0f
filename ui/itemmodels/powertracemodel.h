#pragma once

#include "models/result.h"

#include <QAbstractTableModel>

namespace choreo::ui {

// A result's power trace over one step (models::PowerTrace), one row per time bin, with the energy of a
// step and of the whole run. Feeds the stacked power chart; empty when the result has no trace.
class PowerTraceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StartColumn,
        EndColumn,
        AcceleratorsColumn,
        CpusColumn,
        NetworkColumn,
        CoolingColumn,
        TotalColumn,
        ColumnCount
    };

    explicit PowerTraceModel(QObject* parent = nullptr);

    void setResult(const models::RunResult& result);
    void clear();

    [[nodiscard]] const models::PowerTrace& trace() const { return trace_; }
    // The facility's energy for one step (the trace's integral), J; for the run as reported, kWh.
    [[nodiscard]] double energyPerStep_J() const { return trace_.facilityEnergy_J(); }
    [[nodiscard]] double energyPerRun_kWh() const { return energyPerRun_kWh_; }
    // What the CPU and network series count, or why they are zero (shown under the chart).
    [[nodiscard]] QString notes() const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    // ValueRole: ms for the bin edges, kW for the series.
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] double value(int row, int column) const;

    models::PowerTrace trace_;
    double energyPerRun_kWh_ = 0;
};

} // namespace choreo::ui
