#include "ui/itemmodels/catalogdevicemodel.h"

#include "models/catalog.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <QFont>
#include <QMimeData>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString kindText(models::DeviceKind kind) {
    switch (kind) {
    case models::DeviceKind::Gpu:
        return QObject::tr("GPU");
    case models::DeviceKind::Cpu:
        return QObject::tr("CPU");
    case models::DeviceKind::Accelerator:
        return QObject::tr("Accelerator");
    }
    return {};
}

} // namespace

// A family row's internal id is 0; a device's is its family's position + 1.
constexpr quintptr kFamilyRow = 0;

CatalogDeviceModel::CatalogDeviceModel(const models::Catalog& catalog, QObject* parent)
    : QAbstractItemModel(parent)
    , catalog_(catalog) {
    const auto& devices = catalog_.devices();
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const QString vendor = q(devices[i].vendor);
        auto family = std::find_if(families_.begin(), families_.end(),
                                   [&](const Family& f) { return f.name == vendor; });
        if (family == families_.end())
            family = families_.insert(families_.end(), Family{vendor, {}});
        family->devices.push_back(i);
    }
}

const models::Device* CatalogDeviceModel::device(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || index.internalId() == kFamilyRow)
        return nullptr;
    const Family& family = families_[index.internalId() - 1];
    return &catalog_.devices()[family.devices[static_cast<std::size_t>(index.row())]];
}

QModelIndex CatalogDeviceModel::indexOf(const QString& id, int column) const {
    for (std::size_t f = 0; f < families_.size(); ++f)
        for (std::size_t r = 0; r < families_[f].devices.size(); ++r)
            if (q(catalog_.devices()[families_[f].devices[r]].id) == id)
                return createIndex(static_cast<int>(r), column, static_cast<quintptr>(f + 1));
    return {};
}

QStringList CatalogDeviceModel::vendors() const {
    QStringList out;
    for (const Family& f : families_)
        out << f.name;
    return out;
}

QModelIndex CatalogDeviceModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kFamilyRow);
    return createIndex(row, column, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex CatalogDeviceModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kFamilyRow)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kFamilyRow);
}

int CatalogDeviceModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return static_cast<int>(families_.size());
    if (parent.internalId() != kFamilyRow || parent.column() != 0)
        return 0;
    return static_cast<int>(families_[static_cast<std::size_t>(parent.row())].devices.size());
}

int CatalogDeviceModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QString CatalogDeviceModel::tooltip(const models::Device& d) const {
    const auto line = [this](const QString& label, const models::Sourced& value, const QString& unit) {
        if (!value.present())
            return tr("%1: unknown").arg(label);
        QString cite = q(value.source);
        if (const models::Source* s = catalog_.source(value.source))
            cite = tr("%1, %2").arg(q(s->title), q(s->as_of));
        return tr("%1: %2 %3%4 [%5]")
            .arg(label, formatCompact(value.value), unit, value.announced ? tr(" (announced)") : QString(),
                 cite);
    };
    QStringList lines;
    lines << tr("%1 (%2, %3), id %4").arg(q(d.name), q(d.vendor), kindText(d.kind), q(d.id));
    if (d.announced())
        lines << tr("Announced, not shipped: %1 come from the vendor's announcement; no part was measured")
                     .arg(q(models::announcedFigureList(d)));
    if (const auto it = d.peak_tflops.find(models::Precision::Bf16); it != d.peak_tflops.end())
        lines << line(tr("BF16 dense peak"), it->second, u"TFLOP/s"_s);
    if (const auto it = d.peak_tflops.find(models::Precision::Fp8); it != d.peak_tflops.end())
        lines << line(tr("FP8 dense peak"), it->second, u"TFLOP/s"_s);
    lines << line(tr("Memory"), d.memory_GB, u"GB"_s);
    lines << line(tr("Memory bandwidth"), d.memory_bandwidth_TBps, u"TB/s"_s);
    if (d.scale_up)
        lines << line(tr("Scale-up (%1)").arg(q(d.scale_up->fabric)), d.scale_up->bandwidth_GBps, u"GB/s"_s);
    lines << line(tr("NIC"), d.nic_Gbps, u"Gb/s"_s);
    lines << line(tr("TDP"), d.tdp_W, u"W"_s);
    lines << line(tr("Rent"), d.rent_usd_per_hour, u"$/h"_s);
    lines << line(tr("Buy"), d.buy_usd, u"$"_s);
    return lines.join(u'\n');
}

QVariant CatalogDeviceModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (const models::Device* d = device(index))
        return deviceData(*d, index.column(), role);
    return familyData(families_[static_cast<std::size_t>(index.row())], index.column(), role);
}

QVariant CatalogDeviceModel::familyData(const Family& family, int column, int role) const {
    if (column != NameColumn)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return tr("%1 (%2)").arg(family.name).arg(family.devices.size());
    case Qt::ToolTipRole:
        return tr("The catalog's %1 devices").arg(family.name);
    default:
        return {};
    }
}

QVariant CatalogDeviceModel::deviceData(const models::Device& d, int column, int role) const {
    const auto bf16 = d.peak_tflops.find(models::Precision::Bf16);
    const auto number = [&](int c) -> QVariant {
        switch (c) {
        case MemoryColumn:
            return d.memory_GB.present() ? QVariant(d.memory_GB.value) : QVariant();
        case Bf16Column:
            return bf16 != d.peak_tflops.end() ? QVariant(bf16->second.value) : QVariant();
        case RentColumn:
            return d.rent_usd_per_hour.present() ? QVariant(d.rent_usd_per_hour.value) : QVariant();
        default:
            return {};
        }
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return d.announced() ? tr("%1 (announced)").arg(q(d.name)) : q(d.name);
        case VendorColumn:
            return q(d.vendor);
        case KindColumn:
            return kindText(d.kind);
        case FabricColumn:
            return d.scale_up ? q(d.scale_up->fabric) : tr("none");
        default: {
            const QVariant v = number(column);
            return v.isValid() ? formatCompact(v.toDouble()) : u"–"_s;
        }
        }
    case ValueRole:
        return number(column);
    case KeyRole:
        return q(d.id);
    case KindRole:
        return static_cast<int>(d.kind);
    case Qt::ToolTipRole:
        return tooltip(d);
    case Qt::FontRole: { // an announced part stands apart even where its name is cut short
        if (!d.announced())
            return {};
        QFont italic;
        italic.setItalic(true);
        return italic;
    }
    case Qt::TextAlignmentRole:
        if (column >= MemoryColumn)
            return (Qt::AlignRight | Qt::AlignVCenter).toInt();
        return {};
    default:
        return {};
    }
}

QVariant CatalogDeviceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Device");
    case VendorColumn:
        return tr("Vendor");
    case KindColumn:
        return tr("Kind");
    case FabricColumn:
        return tr("Fabric");
    case MemoryColumn:
        return tr("GB");
    case Bf16Column:
        return tr("BF16 TF");
    case RentColumn:
        return tr("$/h");
    default:
        return {};
    }
}

Qt::ItemFlags CatalogDeviceModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    if (!device(index))
        return Qt::ItemIsEnabled; // a family: a heading, not a device to add
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
}

QStringList CatalogDeviceModel::mimeTypes() const {
    return {QString::fromLatin1(kDeviceMimeType)};
}

QMimeData* CatalogDeviceModel::mimeData(const QModelIndexList& indexes) const {
    for (const QModelIndex& index : indexes) {
        const models::Device* d = checkIndex(index, CheckIndexOption::IndexIsValid) ? device(index) : nullptr;
        if (!d)
            continue;
        auto* mime = new QMimeData;
        mime->setData(QString::fromLatin1(kDeviceMimeType), QByteArray::fromStdString(d->id));
        mime->setText(q(d->id));
        return mime;
    }
    return nullptr;
}

} // namespace choreo::ui
