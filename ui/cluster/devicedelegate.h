#pragma once

#include <QStyledItemDelegate>

namespace choreo::models {
class Catalog;
}

namespace choreo::ui {

// Edits a device cell with a combo box of the catalog's devices (shown by name, stored by id).
class DeviceDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    // `catalog` must outlive the delegate.
    explicit DeviceDelegate(const models::Catalog& catalog, QObject* parent = nullptr);

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;

private:
    const models::Catalog& catalog_;
};

} // namespace choreo::ui
