#pragma once

#include <QAbstractItemModel>
#include <QStringList>

#include <vector>

namespace choreo::models {
class Catalog;
struct Device;
} // namespace choreo::models

namespace choreo::ui {

// The catalog's devices grouped by family (the vendor: NVIDIA, AMD, Google, Intel, AWS, ...), read-only: a
// family row at the top level, its devices as its children in catalog order. Drags carry the device id as
// kDeviceMimeType; the tooltip lists the key figures with their sources. KeyRole gives a device's id (empty
// on a family row), ValueRole the raw number.
class CatalogDeviceModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        VendorColumn,
        KindColumn,
        FabricColumn,
        MemoryColumn,
        Bf16Column,
        RentColumn,
        ColumnCount
    };
    // Role of the kind column's models::DeviceKind as int (on every column of a device), for filters.
    static constexpr int KindRole = Qt::UserRole + 100;

    // `catalog` must outlive the model.
    explicit CatalogDeviceModel(const models::Catalog& catalog, QObject* parent = nullptr);

    // The device at `index` (any column), or nullptr on a family row.
    [[nodiscard]] const models::Device* device(const QModelIndex& index) const;
    // The index of device `id` in `column`, or an invalid index.
    [[nodiscard]] QModelIndex indexOf(const QString& id, int column = NameColumn) const;
    // Families in catalog order, each once.
    [[nodiscard]] QStringList vendors() const;

    [[nodiscard]] QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    [[nodiscard]] QModelIndex parent(const QModelIndex& child) const override;
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
    struct Family {
        QString name;
        std::vector<std::size_t> devices; // indices into the catalog's devices
    };
    [[nodiscard]] QString tooltip(const models::Device& device) const;
    [[nodiscard]] QVariant familyData(const Family& family, int column, int role) const;
    [[nodiscard]] QVariant deviceData(const models::Device& device, int column, int role) const;

    const models::Catalog& catalog_;
    std::vector<Family> families_;
};

// What a dragged catalog device carries: its id, UTF-8.
inline constexpr char kDeviceMimeType[] = "application/x-choreo-device";

} // namespace choreo::ui
