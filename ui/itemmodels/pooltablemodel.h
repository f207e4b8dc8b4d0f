#pragma once

#include "models/scenario.h"

#include <QAbstractTableModel>

namespace choreo::models {
struct Device;
} // namespace choreo::models

namespace choreo::ui {

class Document;

// The scenario's device pools as an editable table. setData() does not change data itself: it pushes
// an undoable edit to the Document, and the table follows the document's changes.
class PoolTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    // Rent and buy: the pool's own price per device; empty shows (greyed) and uses the catalog's.
    enum Column {
        NameColumn,
        DeviceColumn,
        CountColumn,
        DevicesPerNodeColumn,
        RentColumn,
        BuyColumn,
        PowerLimitColumn,
        ColumnCount
    };

    explicit PoolTableModel(Document* document, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    // Accepts catalog devices dragged from the device palette (kDeviceMimeType): each becomes a new pool.
    [[nodiscard]] QStringList mimeTypes() const override;
    [[nodiscard]] Qt::DropActions supportedDropActions() const override { return Qt::CopyAction; }
    [[nodiscard]] bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                       const QModelIndex& parent) const override;
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;

    // Adds one undoable pool of catalog device `deviceId` (one node of it); false for an unknown id.
    bool addDevicePool(const QString& deviceId);
    // Appends a pool of `device` to `scenario`: one node (up to 8 devices within the device's scale-up
    // domain; one for a CPU), named after the device and unique.
    static void appendPool(models::Scenario& scenario, const models::Device& device);

private:
    void onScenarioChanged();
    [[nodiscard]] QString priceText(const models::Pool& pool, bool rent, bool editing) const;
    [[nodiscard]] QString powerLimitText(const models::Pool& pool, bool editing) const;

    Document* document_;
    int rows_ = 0; // rows the views know about
};

} // namespace choreo::ui
