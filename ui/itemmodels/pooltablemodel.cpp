#include "ui/itemmodels/pooltablemodel.h"

#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/roles.h"

using namespace Qt::StringLiterals;

namespace choreo::ui {

PoolTableModel::PoolTableModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent)
    , document_(document)
    , rows_(static_cast<int>(document->scenario().cluster.pools.size())) {
    connect(document_, &Document::scenarioChanged, this, &PoolTableModel::onScenarioChanged);
}

void PoolTableModel::onScenarioChanged() {
    const int now = static_cast<int>(document_->scenario().cluster.pools.size());
    if (now != rows_) {
        // A pool added or removed (or a whole new document): cheap to reset, and never stale.
        beginResetModel();
        rows_ = now;
        endResetModel();
        return;
    }
    if (rows_ > 0)
        emit dataChanged(index(0, 0), index(rows_ - 1, ColumnCount - 1));
}

int PoolTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : rows_;
}

int PoolTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PoolTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& pool = document_->scenario().cluster.pools[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(pool.name);
        case DeviceColumn: {
            const models::Device* device = document_->catalog().find(pool.device);
            if (role == Qt::DisplayRole && device)
                return QString::fromStdString(device->name);
            return QString::fromStdString(pool.device);
        }
        case CountColumn:
            return static_cast<qlonglong>(pool.count);
        case DevicesPerNodeColumn:
            return static_cast<qlonglong>(pool.devices_per_node);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == DeviceColumn)
        return QString::fromStdString(pool.device);
    if (role == KeyRole)
        return QString::fromStdString(pool.name);
    if (role == Qt::TextAlignmentRole &&
        (index.column() == CountColumn || index.column() == DevicesPerNodeColumn))
        return (Qt::AlignRight | Qt::AlignVCenter).toInt();
    return {};
}

QVariant PoolTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Pool");
    case DeviceColumn:
        return tr("Device");
    case CountColumn:
        return tr("Devices");
    case DevicesPerNodeColumn:
        return tr("Per node");
    default:
        return {};
    }
}

Qt::ItemFlags PoolTableModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

bool PoolTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    models::Scenario s = document_->scenario();
    auto& pool = s.cluster.pools[static_cast<std::size_t>(index.row())];
    QString description;
    switch (index.column()) {
    case NameColumn: {
        const std::string name = value.toString().trimmed().toStdString();
        if (name.empty())
            return false;
        // Keep the workload on the pool it trained on when that pool is renamed.
        if (s.workload.pool && *s.workload.pool == pool.name)
            s.workload.pool = name;
        pool.name = name;
        description = tr("Rename pool");
        break;
    }
    case DeviceColumn:
        if (!document_->catalog().find(value.toString().toStdString()))
            return false;
        pool.device = value.toString().toStdString();
        description = tr("Change device");
        break;
    case CountColumn:
    case DevicesPerNodeColumn: {
        bool ok = false;
        const qlonglong n = value.toLongLong(&ok);
        if (!ok || n < 1)
            return false;
        (index.column() == CountColumn ? pool.count : pool.devices_per_node) = n;
        description =
            index.column() == CountColumn ? tr("Change device count") : tr("Change devices per node");
        break;
    }
    default:
        return false;
    }
    document_->edit(std::move(s), poolCellEditId(index.row(), index.column()), description);
    return true;
}

} // namespace choreo::ui
