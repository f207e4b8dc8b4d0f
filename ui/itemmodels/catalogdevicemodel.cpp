#include "ui/itemmodels/catalogdevicemodel.h"

#include "models/catalog.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <QMimeData>

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

CatalogDeviceModel::CatalogDeviceModel(const models::Catalog& catalog, QObject* parent)
    : QAbstractTableModel(parent)
    , catalog_(catalog) {}

const models::Device& CatalogDeviceModel::device(int row) const {
    return catalog_.devices()[static_cast<std::size_t>(row)];
}

QStringList CatalogDeviceModel::vendors() const {
    QStringList out;
    for (const auto& d : catalog_.devices())
        if (!out.contains(q(d.vendor)))
            out << q(d.vendor);
    return out;
}

int CatalogDeviceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(catalog_.devices().size());
}

int CatalogDeviceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString CatalogDeviceModel::tooltip(const models::Device& d) const {
    const auto line = [this](const QString& label, const models::Sourced& value, const QString& unit) {
        if (!value.present())
            return tr("%1: unknown").arg(label);
        QString cite = q(value.source);
        if (const models::Source* s = catalog_.source(value.source))
            cite = tr("%1, %2").arg(q(s->title), q(s->as_of));
        return tr("%1: %2 %3 [%4]").arg(label, formatCompact(value.value), unit, cite);
    };
    QStringList lines;
    lines << tr("%1 (%2, %3), id %4").arg(q(d.name), q(d.vendor), kindText(d.kind), q(d.id));
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
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const models::Device& d = device(index.row());
    const auto bf16 = d.peak_tflops.find(models::Precision::Bf16);
    const auto number = [&](int column) -> QVariant {
        switch (column) {
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
        switch (index.column()) {
        case NameColumn:
            return q(d.name);
        case VendorColumn:
            return q(d.vendor);
        case KindColumn:
            return kindText(d.kind);
        default: {
            const QVariant v = number(index.column());
            return v.isValid() ? formatCompact(v.toDouble()) : u"–"_s;
        }
        }
    case ValueRole:
        return number(index.column());
    case KeyRole:
        return q(d.id);
    case KindRole:
        return static_cast<int>(d.kind);
    case Qt::ToolTipRole:
        return tooltip(d);
    case Qt::TextAlignmentRole:
        if (index.column() >= MemoryColumn)
            return (Qt::AlignRight | Qt::AlignVCenter).toInt();
        return {};
    default:
        return {};
    }
}

QVariant CatalogDeviceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Device");
    case VendorColumn:
        return tr("Vendor");
    case KindColumn:
        return tr("Kind");
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
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
}

QStringList CatalogDeviceModel::mimeTypes() const {
    return {QString::fromLatin1(kDeviceMimeType)};
}

QMimeData* CatalogDeviceModel::mimeData(const QModelIndexList& indexes) const {
    for (const QModelIndex& index : indexes) {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
            continue;
        auto* mime = new QMimeData;
        mime->setData(QString::fromLatin1(kDeviceMimeType),
                      QByteArray::fromStdString(device(index.row()).id));
        mime->setText(q(device(index.row()).id));
        return mime;
    }
    return nullptr;
}

} // namespace choreo::ui
