#include "ui/itemmodels/profilecomparisonmodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

namespace choreo::ui {

ProfileComparisonModel::ProfileComparisonModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void ProfileComparisonModel::setProfile(const models::Profile& profile, const models::Device* spec) {
    beginResetModel();
    rows_ = models::compareWithSpec(profile, spec);
    endResetModel();
}

void ProfileComparisonModel::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
}

int ProfileComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ProfileComparisonModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileComparisonModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const auto& r = rows_[static_cast<std::size_t>(index.row())];
    std::optional<double> ratio;
    if (r.spec && r.measured && *r.spec != 0)
        ratio = *r.measured / *r.spec;
    const bool fraction = r.unit == "fraction";
    auto number = [fraction](const std::optional<double>& v) {
        if (!v)
            return QString();
        return fraction ? formatPercent(*v) : formatCompact(*v, 4);
    };
    if (role == KeyRole)
        return QString::fromStdString(r.unit);
    if (role == ValueRole) {
        switch (index.column()) {
        case SpecColumn:
            return r.spec ? QVariant(*r.spec) : QVariant();
        case MeasuredColumn:
            return r.measured ? QVariant(*r.measured) : QVariant();
        case RatioColumn:
            return ratio ? QVariant(*ratio) : QVariant();
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == SpecColumn || index.column() == MeasuredColumn ||
                       index.column() == RatioColumn
                   ? QVariant((Qt::AlignRight | Qt::AlignVCenter).toInt())
                   : QVariant();
    if (role == Qt::ToolTipRole && index.column() == SourceColumn && r.spec_source == models::kAssumedSource)
        return tr("A modelling assumption of Choreo's own, not a published figure");
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case FigureColumn:
        return QString::fromStdString(r.figure);
    case SpecColumn:
        return r.spec ? number(r.spec) : tr("—");
    case SourceColumn:
        return QString::fromStdString(r.spec_source);
    case MeasuredColumn:
        return r.measured ? number(r.measured) : tr("—");
    case UnitColumn:
        return fraction ? QString() : QString::fromStdString(r.unit);
    case RatioColumn:
        return ratio ? formatCompact(*ratio, 3) : QString();
    default:
        return {};
    }
}

QVariant ProfileComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case FigureColumn:
        return tr("Figure");
    case SpecColumn:
        return tr("Spec sheet");
    case SourceColumn:
        return tr("Source");
    case MeasuredColumn:
        return tr("Measured");
    case UnitColumn:
        return tr("Unit");
    case RatioColumn:
        return tr("Measured / spec");
    default:
        return {};
    }
}

} // namespace choreo::ui
