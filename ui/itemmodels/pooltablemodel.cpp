#include "ui/itemmodels/pooltablemodel.h"

#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/roles.h"

#include <QMimeData>

#include <algorithm>

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
        return Qt::ItemIsDropEnabled; // drops on the empty area below the rows
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemIsDropEnabled;
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

QStringList PoolTableModel::mimeTypes() const {
    return {QString::fromLatin1(kDeviceMimeType)};
}

bool PoolTableModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int, int,
                                     const QModelIndex&) const {
    return data && action == Qt::CopyAction && data->hasFormat(QString::fromLatin1(kDeviceMimeType)) &&
           document_->catalog().find(data->data(QString::fromLatin1(kDeviceMimeType)).toStdString());
}

bool PoolTableModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                  const QModelIndex& parent) {
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    return addDevicePool(QString::fromUtf8(data->data(QString::fromLatin1(kDeviceMimeType))));
}

bool PoolTableModel::addDevicePool(const QString& deviceId) {
    const models::Device* device = document_->catalog().find(deviceId.toStdString());
    if (!device)
        return false;
    models::Scenario s = document_->scenario();
    appendPool(s, *device);
    document_->edit(std::move(s), NoMerge, tr("Add pool of %1").arg(QString::fromStdString(device->name)));
    return true;
}

void PoolTableModel::appendPool(models::Scenario& scenario, const models::Device& device) {
    const auto taken = [&scenario](const std::string& name) {
        for (const auto& p : scenario.cluster.pools)
            if (p.name == name)
                return true;
        return false;
    };
    std::string name = device.id;
    for (int n = 2; taken(name); ++n)
        name = device.id + "-" + std::to_string(n);
    // A starting point the user edits: one server of up to 8 devices (a TPU's scale-up domain of
    // thousands of chips is no server), one socket for a CPU.
    std::int64_t perNode = device.kind == models::DeviceKind::Cpu ? 1 : 8;
    if (device.scale_up && device.scale_up->domain_size.present() && device.scale_up->domain_size.value >= 1)
        perNode =
            std::min<std::int64_t>(perNode, static_cast<std::int64_t>(device.scale_up->domain_size.value));
    scenario.cluster.pools.push_back(models::Pool{name, device.id, perNode, perNode});
}

} // namespace choreo::ui
