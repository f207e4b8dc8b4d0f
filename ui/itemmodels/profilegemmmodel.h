#pragma once

#include "models/catalog.h"
#include "models/profile.h"

#include <QAbstractTableModel>

#include <vector>

namespace choreo::ui {

// A profile's matrix-multiply figures, one row per point: the measured shapes and, per precision, the
// fitted curve sampled on a log grid between them. Fraction of peak against the spec device when known.
class ProfileGemmModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        PrecisionColumn,
        KindColumn,
        ShapeColumn,
        GflopColumn,
        TflopsColumn,
        FractionColumn,
        ColumnCount
    };
    enum class Kind { Measured, Fitted };

    explicit ProfileGemmModel(QObject* parent = nullptr);

    // Shows `profile`'s GEMM curves; `spec` (may be nullptr) gives the peaks of the fraction column.
    void setProfile(const models::Profile& profile, const models::Device* spec);
    void clear();
    // Whether the fraction column has values (a spec device with the profile's precisions).
    [[nodiscard]] bool hasPeaks() const { return hasPeaks_; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    struct Row {
        models::Precision precision;
        Kind kind;
        models::GemmPoint point; // m, n, k zero for fitted rows
        double gflop = 0;
        double tflops = 0;
        std::optional<double> fraction;
    };
    std::vector<Row> rows_;
    bool hasPeaks_ = false;
};

} // namespace choreo::ui
