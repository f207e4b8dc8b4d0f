#include "ui/cluster/devicepalette.h"

#include "models/catalog.h"
#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/devicefiltermodel.h"
#include "ui/itemmodels/pooltablemodel.h"
#include "ui/itemmodels/roles.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

DevicePalette::DevicePalette(CatalogDeviceModel* devices, PoolTableModel* pools, QWidget* parent)
    : QWidget(parent)
    , devices_(devices)
    , filter_(new DeviceFilterModel(this))
    , pools_(pools)
    , search_(new QLineEdit)
    , kind_(new QComboBox)
    , vendor_(new QComboBox)
    , view_(new QTreeView)
    , add_(new QPushButton(tr("Add as pool"))) {
    setObjectName(u"devicePalette"_s);
    filter_->setSourceModel(devices_);
    search_->setObjectName(u"deviceSearchEdit"_s);
    search_->setPlaceholderText(tr("Search devices"));
    search_->setClearButtonEnabled(true);
    kind_->setObjectName(u"deviceKindCombo"_s);
    kind_->addItem(tr("All kinds"));
    kind_->addItem(tr("GPU"), static_cast<int>(models::DeviceKind::Gpu));
    kind_->addItem(tr("CPU"), static_cast<int>(models::DeviceKind::Cpu));
    kind_->addItem(tr("Accelerator"), static_cast<int>(models::DeviceKind::Accelerator));
    vendor_->setObjectName(u"deviceVendorCombo"_s);
    vendor_->addItem(tr("All vendors"));
    for (const QString& v : devices_->vendors())
        vendor_->addItem(v, v);
    view_->setObjectName(u"deviceView"_s);
    view_->setModel(filter_);
    view_->setRootIsDecorated(true); // devices grouped under their family
    view_->setUniformRowHeights(true);
    view_->setSortingEnabled(true);
    view_->sortByColumn(CatalogDeviceModel::NameColumn, Qt::AscendingOrder);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setDragEnabled(true);
    view_->setDragDropMode(QAbstractItemView::DragOnly);
    view_->setDefaultDropAction(Qt::CopyAction);
    view_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(CatalogDeviceModel::NameColumn, QHeaderView::Stretch);
    view_->header()->setStretchLastSection(false);
    // The family heads its devices, and kind and vendor have their filters: room for the figures instead.
    view_->setColumnHidden(CatalogDeviceModel::VendorColumn, true);
    view_->setColumnHidden(CatalogDeviceModel::KindColumn, true);
    add_->setObjectName(u"addDevicePoolButton"_s);
    add_->setToolTip(tr("Add a pool of the selected device (or drag it onto the pools table)"));

    // Narrow enough that the palette fits beside the forms and results at 1280 pixels.
    for (QComboBox* combo : {kind_, vendor_}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(5);
    }
    auto* filters = new QHBoxLayout;
    filters->addWidget(kind_);
    filters->addWidget(vendor_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(search_);
    layout->addLayout(filters);
    layout->addWidget(view_, 1);
    layout->addWidget(add_);

    connect(search_, &QLineEdit::textChanged, filter_, &DeviceFilterModel::setSearchText);
    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant v = kind_->currentData();
        filter_->setKind(v.isValid() ? std::optional<int>(v.toInt()) : std::nullopt);
    });
    connect(vendor_, &QComboBox::currentIndexChanged, this,
            [this] { filter_->setVendor(vendor_->currentData().toString()); });
    connect(add_, &QPushButton::clicked, this, &DevicePalette::addSelected);
    connect(view_, &QTreeView::doubleClicked, this, [this] { addSelected(); });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &DevicePalette::updateButtons);
    // Every family open, whatever the filters leave of it.
    connect(filter_, &QAbstractItemModel::modelReset, view_, &QTreeView::expandAll);
    connect(filter_, &QAbstractItemModel::layoutChanged, view_, &QTreeView::expandAll);
    connect(filter_, &QAbstractItemModel::rowsInserted, view_, &QTreeView::expandAll);
    view_->expandAll();
    connect(filter_, &QAbstractItemModel::modelReset, this, &DevicePalette::updateButtons);
    connect(filter_, &QAbstractItemModel::rowsRemoved, this, &DevicePalette::updateButtons);
    updateButtons();
}

bool DevicePalette::addSelected() {
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return false;
    const QString id = rows.front().data(KeyRole).toString();
    return !id.isEmpty() && pools_->addDevicePool(id);
}

void DevicePalette::updateButtons() {
    add_->setEnabled(view_->selectionModel()->hasSelection());
}

} // namespace choreo::ui
