#include "ui/cluster/clustereditor.h"

#include "ui/cluster/devicedelegate.h"
#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/itemmodels/pooltablemodel.h"
#include "ui/reports/tablecsv.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

ClusterEditor::ClusterEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , pools_(new PoolTableModel(document, this))
    , poolView_(new QTableView)
    , removeButton_(new QPushButton(tr("Remove")))
    , nic_(formfields::optionalSpin(100000, 0, u" Gb/s"_s, tr("catalog")))
    , topology_(new QComboBox)
    , oversubscription_(formfields::numberSpin(1.0, 64.0, 2, u" : 1"_s)) {
    poolView_->setObjectName(u"poolsTable"_s);
    poolView_->setModel(pools_);
    poolView_->setItemDelegateForColumn(PoolTableModel::DeviceColumn,
                                        new DeviceDelegate(document->catalog(), poolView_));
    poolView_->verticalHeader()->hide();
    poolView_->horizontalHeader()->setSectionResizeMode(PoolTableModel::DeviceColumn, QHeaderView::Stretch);
    poolView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    poolView_->setSelectionMode(QAbstractItemView::SingleSelection);
    poolView_->setEditTriggers(QAbstractItemView::AllEditTriggers);
    // Devices dragged from the palette become pools.
    poolView_->setDragDropMode(QAbstractItemView::DropOnly);
    poolView_->setDefaultDropAction(Qt::CopyAction);
    poolView_->setAcceptDrops(true);
    poolView_->viewport()->setAcceptDrops(true);
    poolView_->setDropIndicatorShown(true);
    poolView_->setToolTip(tr("Drop a device from the device palette here to add a pool of it"));
    poolView_->setMinimumHeight(90);
    poolView_->setMaximumHeight(110);
    addCsvExport(poolView_, tr("pools"));
    mark(u"cluster.pools"_s, poolView_);
    mark(u"cluster"_s, poolView_, true); // tp*pp*dp against the pool's size

    auto* addButton = new QPushButton(tr("Add pool"));
    addButton->setObjectName(u"addPoolButton"_s);
    removeButton_->setObjectName(u"removePoolButton"_s);
    auto* paletteButton = new QPushButton(tr("Device palette…"));
    paletteButton->setObjectName(u"devicePaletteButton"_s);
    paletteButton->setToolTip(
        tr("Browse the catalog; drag a device onto the table to add a pool (Ctrl+Shift+D)"));
    connect(paletteButton, &QPushButton::clicked, this, &ClusterEditor::devicePaletteRequested);
    connect(addButton, &QPushButton::clicked, this, &ClusterEditor::addPool);
    connect(removeButton_, &QPushButton::clicked, this, &ClusterEditor::removePool);

    auto* poolsBox = new QGroupBox(tr("Cluster"));
    auto* poolsLayout = new QVBoxLayout(poolsBox);
    poolsLayout->addWidget(poolView_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(addButton);
    buttons->addWidget(removeButton_);
    buttons->addStretch();
    buttons->addWidget(paletteButton);
    poolsLayout->addLayout(buttons);

    nic_->setObjectName(u"nicSpin"_s);
    nic_->setToolTip(tr("Scale-out bandwidth per device, one direction; \"catalog\" uses the device's NIC"));
    topology_->setObjectName(u"topologyCombo"_s);
    topology_->addItem(tr("Fat tree"), static_cast<int>(models::TopologyKind::FatTree));
    topology_->addItem(tr("Single switch"), static_cast<int>(models::TopologyKind::SingleSwitch));
    oversubscription_->setObjectName(u"oversubscriptionSpin"_s);
    oversubscription_->setToolTip(tr("Leaf downlink : uplink bandwidth; 1 is non-blocking"));
    mark(u"cluster.network.nic_Gbps"_s, nic_);
    mark(u"cluster.network.topology.kind"_s, topology_);
    mark(u"cluster.network.topology.oversubscription"_s, oversubscription_);

    auto* networkBox = new QGroupBox(tr("Network"));
    auto* form = new QFormLayout(networkBox);
    form->addRow(tr("NIC per device"), nic_);
    form->addRow(tr("Topology"), topology_);
    form->addRow(tr("Oversubscription"), oversubscription_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(poolsBox);
    layout->addWidget(networkBox);

    connect(nic_, &QDoubleSpinBox::valueChanged, this, [this] {
        change(
            EditNicGbps, tr("Change NIC bandwidth"),
            [v = formfields::optionalValue(nic_)](models::Scenario& s) { s.cluster.network.nic_Gbps = v; });
    });
    connect(topology_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change topology"), [v = topology_->currentData().toInt()](models::Scenario& s) {
            s.cluster.network.topology.kind = static_cast<models::TopologyKind>(v);
        });
    });
    connect(oversubscription_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        change(EditOversubscription, tr("Change oversubscription"),
               [v](models::Scenario& s) { s.cluster.network.topology.oversubscription = v; });
    });
    connect(poolView_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { refresh(); });
    // Rows came or went (and the selection with them): the Remove button may change.
    connect(pools_, &QAbstractItemModel::modelReset, this, [this] { refresh(); });
    refresh();
}

void ClusterEditor::refresh() {
    const auto& s = document()->scenario();
    formfields::show(nic_, s.cluster.network.nic_Gbps);
    formfields::show(topology_, static_cast<int>(s.cluster.network.topology.kind));
    formfields::show(oversubscription_, s.cluster.network.topology.oversubscription);
    removeButton_->setEnabled(s.cluster.pools.size() > 1 && poolView_->selectionModel()->hasSelection());
}

void ClusterEditor::addPool() {
    change(NoMerge, tr("Add pool"), [](models::Scenario& s) {
        models::Pool pool = s.cluster.pools.empty() ? models::Pool{} : s.cluster.pools.back();
        int n = static_cast<int>(s.cluster.pools.size()) + 1;
        const auto taken = [&s](const std::string& name) {
            for (const auto& p : s.cluster.pools)
                if (p.name == name)
                    return true;
            return false;
        };
        while (taken("pool" + std::to_string(n)))
            ++n;
        pool.name = "pool" + std::to_string(n);
        if (pool.count <= 0)
            pool.count = pool.devices_per_node = 8;
        s.cluster.pools.push_back(pool);
    });
}

void ClusterEditor::removePool() {
    const QModelIndexList rows = poolView_->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    const auto row = static_cast<std::size_t>(rows.front().row());
    change(NoMerge, tr("Remove pool"), [row](models::Scenario& s) {
        if (s.cluster.pools.size() <= 1 || row >= s.cluster.pools.size())
            return;
        // A workload on the removed pool falls back to the first pool rather than pointing nowhere.
        if (s.workload.pool && *s.workload.pool == s.cluster.pools[row].name)
            s.workload.pool.reset();
        s.cluster.pools.erase(s.cluster.pools.begin() + static_cast<std::ptrdiff_t>(row));
    });
}

} // namespace choreo::ui
