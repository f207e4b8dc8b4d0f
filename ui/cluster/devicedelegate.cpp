#include "ui/cluster/devicedelegate.h"

#include "models/catalog.h"

#include <QComboBox>

using namespace Qt::StringLiterals;

namespace choreo::ui {

DeviceDelegate::DeviceDelegate(const models::Catalog& catalog, QObject* parent)
    : QStyledItemDelegate(parent)
    , catalog_(catalog) {}

QWidget* DeviceDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&,
                                      const QModelIndex&) const {
    auto* combo = new QComboBox(parent);
    for (const auto& device : catalog_.devices())
        combo->addItem(QString::fromStdString(device.name), QString::fromStdString(device.id));
    // Commit as soon as a device is picked, not only when the editor loses focus. createEditor() is
    // const by Qt's signature, but emitting a signal of the delegate is what delegates are for.
    auto* self = const_cast<DeviceDelegate*>(this);
    connect(combo, &QComboBox::activated, self, [self, combo] { emit self->commitData(combo); });
    return combo;
}

void DeviceDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
    auto* combo = static_cast<QComboBox*>(editor);
    combo->setCurrentIndex(combo->findData(index.data(Qt::EditRole).toString()));
}

void DeviceDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                  const QModelIndex& index) const {
    const auto* combo = static_cast<QComboBox*>(editor);
    model->setData(index, combo->currentData(), Qt::EditRole);
}

} // namespace choreo::ui
