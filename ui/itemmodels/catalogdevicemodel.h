#pragma once

#include <QAbstractTableModel>
#include <QStringList>

namespace choreo::models {
class Catalog;
struct Device;
} // namespace choreo::models

namespace choreo::ui {

// The catalog's devices, one row each, read-only. Drags carry the device id as kDeviceMimeType; the
// tooltip lists the key figures with their sources. KeyRole gives the id, ValueRole the raw number.
class CatalogDeviceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, VendorColumn, KindColumn, MemoryColumn, Bf16Column, RentColumn, ColumnCount };
    // Role of the kind column's models::DeviceKind as int (on every column), for filters.
    static constexpr int KindRole = Qt::UserRole + 100;

    // `catalog` must outlive the model.
    explicit CatalogDeviceModel(const models::Catalog& catalog, QObject* parent = nullptr);

    [[nodiscard]] const models::Device& device(int row) const;
    // Vendors in catalog order, each once.
    [[nodiscard]] QStringList vendors() const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
    [[nodiscard]] QStringList mimeTypes() const override;
    [[nodiscard]] QMimeData* mimeData(const QModelIndexList& indexes) const override;
    [[nodiscard]] Qt::DropActions supportedDragActions() const override { return Qt::CopyAction; }

private:
    [[nodiscard]] QString tooltip(const models::Device& device) const;

    const models::Catalog& catalog_;
};

// What a dragged catalog device carries: its id, UTF-8.
inline constexpr char kDeviceMimeType[] = "application/x-choreo-device";

} // namespace choreo::ui
