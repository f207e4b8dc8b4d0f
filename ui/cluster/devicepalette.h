#pragma once

#include <QWidget>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLineEdit;
class QPushButton;
class QTreeView;
QT_END_NAMESPACE

namespace choreo::ui {

class CatalogDeviceModel;
class DeviceFilterModel;
class PoolTableModel;

// The catalog as a palette: devices grouped by family with their scale-up fabric; search, filter by kind
// and vendor, key figures with sources as tooltips.
// A device becomes a pool by the Add button, a double-click, or a drag onto the pools table.
class DevicePalette : public QWidget {
    Q_OBJECT

public:
    // `pools` receives the added pools and must outlive the palette.
    DevicePalette(CatalogDeviceModel* devices, PoolTableModel* pools, QWidget* parent = nullptr);

    [[nodiscard]] DeviceFilterModel* filterModel() const { return filter_; }
    // Adds a pool of the selected device; false when none is selected.
    bool addSelected();

private:
    void updateButtons();

    CatalogDeviceModel* devices_;
    DeviceFilterModel* filter_;
    PoolTableModel* pools_;
    QLineEdit* search_;
    QComboBox* kind_;
    QComboBox* vendor_;
    QTreeView* view_;
    QPushButton* add_;
};

} // namespace choreo::ui
