#include "ui/itemmodels/devicefiltermodel.h"

#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/roles.h"

namespace choreo::ui {

DeviceFilterModel::DeviceFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setRecursiveFilteringEnabled(true); // a family stays while one of its devices does
}

void DeviceFilterModel::setSearchText(const QString& text) {
    search_ = text.trimmed();
    invalidateRowsFilter();
}

void DeviceFilterModel::setKind(std::optional<int> kind) {
    kind_ = kind;
    invalidateRowsFilter();
}

void DeviceFilterModel::setVendor(const QString& vendor) {
    vendor_ = vendor;
    invalidateRowsFilter();
}

bool DeviceFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!sourceParent.isValid())
        return false; // a family row: shown through its devices
    const QAbstractItemModel* m = sourceModel();
    const QModelIndex name = m->index(sourceRow, CatalogDeviceModel::NameColumn, sourceParent);
    if (kind_ && name.data(CatalogDeviceModel::KindRole).toInt() != *kind_)
        return false;
    const QString vendor =
        m->index(sourceRow, CatalogDeviceModel::VendorColumn, sourceParent).data().toString();
    if (!vendor_.isEmpty() && vendor != vendor_)
        return false;
    if (search_.isEmpty())
        return true;
    for (const QString& text : {name.data().toString(), name.data(KeyRole).toString(), vendor})
        if (text.contains(search_, Qt::CaseInsensitive))
            return true;
    return false;
}

bool DeviceFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    if (!left.parent().isValid() && !right.parent().isValid())
        return left.row() < right.row(); // families keep the catalog's order
    const QVariant a = left.data(ValueRole);
    const QVariant b = right.data(ValueRole);
    if (a.isValid() || b.isValid()) {
        if (!a.isValid())
            return false; // unknown figures last
        if (!b.isValid())
            return true;
        return a.toDouble() < b.toDouble();
    }
    return QString::localeAwareCompare(left.data().toString(), right.data().toString()) < 0;
}

} // namespace choreo::ui
