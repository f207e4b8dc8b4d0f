#pragma once

#include "models/profile.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace choreo::ui {

// A profile's measured figures whose key starts with a prefix ("cpu." for the host's), as a table.
// KeyRole on every column is the figure's key.
class ProfileFigureModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { LabelColumn, ValueColumn, UnitColumn, ColumnCount };

    explicit ProfileFigureModel(QString keyPrefix = {}, QObject* parent = nullptr);

    void setProfile(const models::Profile& profile);
    void clear();

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    std::string prefix_;
    std::vector<models::ProfileFigure> figures_;
};

} // namespace choreo::ui
