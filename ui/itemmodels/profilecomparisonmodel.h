#pragma once

#include "models/profile.h"

#include <QAbstractTableModel>

#include <vector>

namespace choreo::ui {

// Spec sheet against measured (models::compareWithSpec), one row per figure. KeyRole on every column is
// the row's unit ("TB/s", "W", ...), so that charts can pick the rows of one kind.
class ProfileComparisonModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        FigureColumn,
        SpecColumn,
        SourceColumn,
        MeasuredColumn,
        UnitColumn,
        RatioColumn,
        ColumnCount
    };

    explicit ProfileComparisonModel(QObject* parent = nullptr);

    // `spec` is the unmodified catalog device (nullptr: measured figures alone).
    void setProfile(const models::Profile& profile, const models::Device* spec);
    void clear();
    [[nodiscard]] const std::vector<models::ComparisonRow>& rows() const { return rows_; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    std::vector<models::ComparisonRow> rows_;
};

} // namespace choreo::ui
