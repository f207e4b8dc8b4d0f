#pragma once

#include <QAbstractTableModel>

namespace choreo::ui {

class Document;

// The scenario's device pools as an editable table. setData() does not change data itself: it pushes
// an undoable edit to the Document, and the table follows the document's changes.
class PoolTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, DeviceColumn, CountColumn, DevicesPerNodeColumn, ColumnCount };

    explicit PoolTableModel(Document* document, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

private:
    void onScenarioChanged();

    Document* document_;
    int rows_ = 0; // rows the views know about
};

} // namespace choreo::ui
