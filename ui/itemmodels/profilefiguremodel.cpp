#include "ui/itemmodels/profilefiguremodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

namespace choreo::ui {

ProfileFigureModel::ProfileFigureModel(QString keyPrefix, QObject* parent)
    : QAbstractTableModel(parent)
    , prefix_(keyPrefix.toStdString()) {}

void ProfileFigureModel::setProfile(const models::Profile& profile) {
    beginResetModel();
    figures_.clear();
    for (const auto& f : profile.figures)
        if (f.key.compare(0, prefix_.size(), prefix_) == 0)
            figures_.push_back(f);
    endResetModel();
}

void ProfileFigureModel::clear() {
    beginResetModel();
    figures_.clear();
    endResetModel();
}

int ProfileFigureModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(figures_.size());
}

int ProfileFigureModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileFigureModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto& f = figures_[static_cast<std::size_t>(index.row())];
    if (role == KeyRole)
        return QString::fromStdString(f.key);
    if (role == ValueRole)
        return index.column() == ValueColumn ? QVariant(f.value) : QVariant();
    if (role == Qt::TextAlignmentRole)
        return index.column() == ValueColumn ? QVariant((Qt::AlignRight | Qt::AlignVCenter).toInt())
                                             : QVariant();
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(f.key);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case LabelColumn:
        return QString::fromStdString(f.label);
    case ValueColumn:
        return formatCompact(f.value, 4);
    case UnitColumn:
        return QString::fromStdString(f.unit);
    default:
        return {};
    }
}

QVariant ProfileFigureModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case LabelColumn:
        return tr("Figure");
    case ValueColumn:
        return tr("Measured");
    case UnitColumn:
        return tr("Unit");
    default:
        return {};
    }
}

} // namespace choreo::ui
