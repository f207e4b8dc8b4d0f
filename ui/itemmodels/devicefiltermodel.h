#pragma once

#include <QSortFilterProxyModel>
#include <QString>

#include <optional>

namespace choreo::ui {

// Filters a CatalogDeviceModel's devices by free text (name, id, vendor; case-insensitive), kind and vendor
// (a family shows while one of its devices does), and sorts numeric columns by value within each family.
class DeviceFilterModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit DeviceFilterModel(QObject* parent = nullptr);

    void setSearchText(const QString& text);
    // A models::DeviceKind as int, or nullopt for every kind.
    void setKind(std::optional<int> kind);
    // A vendor name, or empty for every vendor.
    void setVendor(const QString& vendor);

protected:
    [[nodiscard]] bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    [[nodiscard]] bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    QString search_;
    std::optional<int> kind_;
    QString vendor_;
};

} // namespace choreo::ui
