#pragma once

#include "models/memory.h"

#include <QAbstractTableModel>

#include <vector>

namespace choreo::ui {

class Document;

// Memory one device needs, per pipeline stage of the document's workload (models::memoryForStage),
// with the training device's capacity. Follows the document; empty when the sizes cannot give a figure.
class MemoryStageModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StageColumn,
        WeightsColumn,
        GradientsColumn,
        OptimizerColumn,
        ActivationsColumn,
        BuffersColumn,
        TotalColumn,
        ColumnCount
    };

    explicit MemoryStageModel(Document* document, QObject* parent = nullptr);

    // The training pool's device memory in GB; 0 when unknown.
    [[nodiscard]] double capacityGB() const { return capacity_GB_; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    void recompute();

    Document* document_;
    std::vector<models::MemoryBreakdown> stages_;
    double capacity_GB_ = 0;
};

} // namespace choreo::ui
