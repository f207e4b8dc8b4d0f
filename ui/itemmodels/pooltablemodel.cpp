#include "ui/itemmodels/pooltablemodel.h"

#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/roles.h"

#include <QColor>
#include <QMimeData>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Every reference of the workload to pool `from` (the training pool and its stages') now names `to`.
void renamePoolReferences(models::Workload& w, const std::string& from, const std::string& to) {
    auto rename = [&](std::optional<std::string>& pool) {
        if (pool && *pool == from)
            pool = to;
    };
    rename(w.pool);
    if (w.data)
        rename(w.data->pool);
    for (auto& stage : w.offload)
        rename(stage.pool);
    if (w.eval)
        rename(w.eval->pool);
}

} // namespace

// The pool's own price, or in grey the one that applies instead: the costs section's, the provider's offer or
// the catalog's ("" to edit, so that clearing it restores that one).
QString PoolTableModel::priceText(const models::Pool& pool, bool rent, bool editing) const {
    const auto& own = rent ? pool.rent_usd_per_device_hour : pool.buy_usd_per_device;
    if (own)
        return QString::number(*own, 'g', 10);
    if (editing)
        return {};
    // What applies instead: for the training pool the costs section's figure, else the catalog's.
    const models::Scenario& s = document_->scenario();
    const models::Pool* training = s.trainingPool();
    if (training && training->name == pool.name) {
        if (const auto& scenarioWide = rent ? s.costs.rent_usd_per_device_hour : s.costs.buy_usd_per_device)
            return QString::number(*scenarioWide, 'g', 10);
    }
    const models::Device* device = document_->catalog().find(pool.device);
    if (!device)
        return {};
    if (const models::Provider* provider = document_->catalog().provider(s.costs.provider); rent && provider)
        if (const models::RentOffer* offer = provider->offer(device->id))
            return QString::number(offer->usdPerDeviceHour(), 'f', 2); // the provider's, not the catalog's
    const models::Sourced& price = rent ? device->rent_usd_per_hour : device->buy_usd;
    return price.present() ? QString::number(price.value, 'g', 10) : tr("none");
}

// The pool's power limit, or in grey the device's rated power ("" to edit, so that clearing it removes the
// limit).
QString PoolTableModel::powerLimitText(const models::Pool& pool, bool editing) const {
    if (pool.power_limit_W)
        return QString::number(*pool.power_limit_W, 'g', 10);
    if (editing)
        return {};
    const models::Device* device = document_->catalog().find(pool.device);
    return device ? tr("%1 rated").arg(device->tdp_W.value, 0, 'g', 10) : QString();
}

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
        case RentColumn:
        case BuyColumn:
            return priceText(pool, index.column() == RentColumn, role == Qt::EditRole);
        case PowerLimitColumn:
            return powerLimitText(pool, role == Qt::EditRole);
        default:
            return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == PowerLimitColumn && !pool.power_limit_W)
        return QColor(Qt::gray); // the device's rated power, not a limit
    if (role == Qt::ToolTipRole && index.column() == PowerLimitColumn)
        return tr(
            "Board power limit per device, watts (nvidia-smi -pl); empty: the device's rated power (shown "
            "grey). Below the device's busy power its clocks drop and its compute slows.");
    if (role == Qt::ForegroundRole && (index.column() == RentColumn || index.column() == BuyColumn) &&
        !(index.column() == RentColumn ? pool.rent_usd_per_device_hour : pool.buy_usd_per_device))
        return QColor(Qt::gray); // the catalog's price, not the pool's own
    if (role == Qt::ToolTipRole && (index.column() == RentColumn || index.column() == BuyColumn))
        return tr("This pool's own price per device; empty: the provider's offer (Costs: Provider) or the "
                  "catalog's (shown grey). Costs in rent mode use the hourly price, in buy mode the purchase "
                  "price.");
    if (role == Qt::ToolTipRole && index.column() == DeviceColumn)
        return QString::fromStdString(pool.device);
    if (role == KeyRole)
        return QString::fromStdString(pool.name);
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn && index.column() != DeviceColumn)
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
    case RentColumn:
        return tr("Rent $/h");
    case BuyColumn:
        return tr("Buy $");
    case PowerLimitColumn:
        return tr("Limit W");
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
        // Keep the workload and its stages on the pools they ran on when a pool is renamed.
        renamePoolReferences(s.workload, pool.name, name);
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
    case RentColumn:
    case BuyColumn: {
        auto& price = index.column() == RentColumn ? pool.rent_usd_per_device_hour : pool.buy_usd_per_device;
        const QString text = value.toString().trimmed();
        bool ok = text.isEmpty();
        const double usd = ok ? 0.0 : text.toDouble(&ok);
        if (!ok || usd < 0.0 || !std::isfinite(usd))
            return false; // the table keeps the old price; the delegate shows the text was refused
        price = text.isEmpty() ? std::nullopt : std::optional<double>(usd);
        description = index.column() == RentColumn ? tr("Change rent price") : tr("Change purchase price");
        break;
    }
    case PowerLimitColumn: {
        const QString text = value.toString().trimmed();
        bool ok = text.isEmpty();
        const double watts = ok ? 0.0 : text.toDouble(&ok);
        if (!ok || watts <= 0.0 || !std::isfinite(watts))
            return false; // the table keeps the old limit; resolving checks it against the device
        pool.power_limit_W = text.isEmpty() ? std::nullopt : std::optional<double>(watts);
        description = tr("Change power limit");
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
