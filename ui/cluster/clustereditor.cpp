#include "ui/cluster/clustereditor.h"

#include "models/topology.h"
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
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <array>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// A count the scenario may leave unset: 0 shows `unsetText` and means "not set".
QSpinBox* optionalCount(int maximum, const QString& unsetText) {
    QSpinBox* box = formfields::countSpin(maximum);
    box->setMinimum(0);
    box->setSpecialValueText(unsetText);
    return box;
}

std::optional<std::int64_t> optionalCountValue(const QSpinBox* box) {
    if (box->value() <= 0)
        return std::nullopt;
    return box->value();
}

void showOptional(QSpinBox* box, const std::optional<std::int64_t>& value) {
    formfields::show(box, value.value_or(0));
}

} // namespace

ClusterEditor::ClusterEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , pools_(new PoolTableModel(document, this))
    , poolView_(new QTableView)
    , removeButton_(new QPushButton(tr("Remove")))
    , nic_(formfields::optionalSpin(100000, 0, u" Gb/s"_s, tr("catalog")))
    , topology_(new QComboBox)
    , oversubscription_(formfields::numberSpin(1.0, 64.0, 2, u" : 1"_s))
    , nodesPerLeaf_(optionalCount(4096, tr("default")))
    , tiers_(new QComboBox)
    , radix_(optionalCount(4096, tr("default (64)")))
    , groups_(formfields::countSpin(1 << 20))
    , routersPerGroup_(formfields::countSpin(4096))
    , globalLinks_(optionalCount(4096, tr("default")))
    , torusX_(formfields::countSpin(1 << 20))
    , torusY_(formfields::countSpin(1 << 20))
    , torusZ_(formfields::countSpin(1 << 20))
    , linkGbps_(formfields::optionalSpin(100000, 0, u" Gb/s"_s, tr("NIC's")))
    , switchLatency_(formfields::optionalSpin(1000, 2, u" µs"_s, tr("default (1 µs)"))) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(createPoolsBox());
    layout->addWidget(createNetworkBox());
    connectNetworkFields();
    connect(poolView_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { refresh(); });
    // Rows came or went (and the selection with them): the Remove button may change.
    connect(pools_, &QAbstractItemModel::modelReset, this, [this] { refresh(); });
    refresh();
}

QGroupBox* ClusterEditor::createPoolsBox() {
    poolView_->setObjectName(u"poolsTable"_s);
    poolView_->setModel(pools_);
    poolView_->setItemDelegateForColumn(PoolTableModel::DeviceColumn,
                                        new DeviceDelegate(document()->catalog(), poolView_));
    poolView_->verticalHeader()->hide();
    poolView_->horizontalHeader()->setSectionResizeMode(PoolTableModel::DeviceColumn, QHeaderView::Stretch);
    // The numbers take what they need, so that every column reads in the editor's width.
    for (int column : {PoolTableModel::CountColumn, PoolTableModel::DevicesPerNodeColumn,
                       PoolTableModel::RentColumn, PoolTableModel::BuyColumn})
        poolView_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
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

    return poolsBox;
}

// Names, tooltips and diagnostic marks of the network's fields.
void ClusterEditor::describeNetworkFields() {
    nic_->setObjectName(u"nicSpin"_s);
    nic_->setToolTip(tr("Scale-out bandwidth per device, one direction; \"catalog\" uses the device's NIC"));
    topology_->setObjectName(u"topologyCombo"_s);
    topology_->addItem(tr("Fat tree"), static_cast<int>(models::TopologyKind::FatTree));
    topology_->addItem(tr("Rail-optimised fat tree"), static_cast<int>(models::TopologyKind::RailFatTree));
    topology_->addItem(tr("Single switch"), static_cast<int>(models::TopologyKind::SingleSwitch));
    topology_->addItem(tr("Dragonfly"), static_cast<int>(models::TopologyKind::Dragonfly));
    topology_->addItem(tr("3D torus"), static_cast<int>(models::TopologyKind::Torus3d));
    topology_->setToolTip(tr("How nodes are wired (docs/topology.md); another kind keeps the shared fields "
                             "and fills the ones it needs"));
    oversubscription_->setObjectName(u"oversubscriptionSpin"_s);
    oversubscription_->setToolTip(tr("Leaf downlink : uplink bandwidth; 1 is non-blocking"));
    nodesPerLeaf_->setObjectName(u"nodesPerLeafSpin"_s);
    nodesPerLeaf_->setToolTip(tr("Nodes under one leaf switch (rail: whose rail-k NIC one leaf takes)"));
    tiers_->setObjectName(u"tiersCombo"_s);
    tiers_->addItem(tr("as the radix needs"), 0);
    tiers_->addItem(tr("2 (leaf, spine)"), 2);
    tiers_->addItem(tr("3 (leaf, aggregation, core)"), 3);
    radix_->setObjectName(u"radixSpin"_s);
    radix_->setToolTip(tr("Ports per switch; the default is a 64-port NVIDIA Quantum-2 QM9700"));
    groups_->setObjectName(u"groupsSpin"_s);
    routersPerGroup_->setObjectName(u"routersPerGroupSpin"_s);
    globalLinks_->setObjectName(u"globalLinksSpin"_s);
    globalLinks_->setToolTip(tr("Links from one router to other groups"));
    torusX_->setObjectName(u"torusXSpin"_s);
    torusY_->setObjectName(u"torusYSpin"_s);
    torusZ_->setObjectName(u"torusZSpin"_s);
    linkGbps_->setObjectName(u"linkGbpsSpin"_s);
    linkGbps_->setToolTip(tr("One router-router or torus link, one direction"));
    switchLatency_->setObjectName(u"switchLatencySpin"_s);
    switchLatency_->setToolTip(tr("One switch hop (torus: one link)"));
    mark(u"cluster.network.nic_Gbps"_s, nic_);
    mark(u"cluster.network.topology.kind"_s, topology_);
    mark(u"cluster.network.topology.oversubscription"_s, oversubscription_);
    mark(u"cluster.network.topology.nodes_per_leaf"_s, nodesPerLeaf_);
    mark(u"cluster.network.topology.tiers"_s, tiers_);
    mark(u"cluster.network.topology.radix"_s, radix_);
    mark(u"cluster.network.topology.groups"_s, groups_);
    mark(u"cluster.network.topology.routers_per_group"_s, routersPerGroup_);
    mark(u"cluster.network.topology.global_links_per_router"_s, globalLinks_);
    mark(u"cluster.network.topology.dims"_s, torusX_);
    mark(u"cluster.network.topology.link_Gbps"_s, linkGbps_);
    mark(u"cluster.network.topology.latency_us"_s, switchLatency_);
}

QGroupBox* ClusterEditor::createNetworkBox() {
    describeNetworkFields();
    auto* networkBox = new QGroupBox(tr("Network"));
    auto* form = new QFormLayout(networkBox);
    networkForm_ = form;
    form->addRow(tr("NIC per device"), nic_);
    form->addRow(tr("Topology"), topology_);
    form->addRow(tr("Oversubscription"), oversubscription_);
    form->addRow(tr("Nodes per leaf"), nodesPerLeaf_);
    form->addRow(tr("Switch tiers"), tiers_);
    form->addRow(tr("Switch radix"), radix_);
    form->addRow(tr("Groups"), groups_);
    form->addRow(tr("Routers per group"), routersPerGroup_);
    form->addRow(tr("Global links per router"), globalLinks_);
    torusDims_ = new QWidget;
    auto* dims = new QHBoxLayout(torusDims_);
    dims->setContentsMargins(0, 0, 0, 0);
    dims->addWidget(torusX_);
    dims->addWidget(new QLabel(u"×"_s));
    dims->addWidget(torusY_);
    dims->addWidget(new QLabel(u"×"_s));
    dims->addWidget(torusZ_);
    form->addRow(tr("Torus x × y × z"), torusDims_);
    form->addRow(tr("Link bandwidth"), linkGbps_);
    form->addRow(tr("Switch hop latency"), switchLatency_);
    return networkBox;
}

// One undo step per field; spinning a value merges into one step.
void ClusterEditor::connectNetworkFields() {
    connect(nic_, &QDoubleSpinBox::valueChanged, this, [this] {
        change(
            EditNicGbps, tr("Change NIC bandwidth"),
            [v = formfields::optionalValue(nic_)](models::Scenario& s) { s.cluster.network.nic_Gbps = v; });
    });
    connect(topology_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change topology"), [v = topology_->currentData().toInt()](models::Scenario& s) {
            auto& t = s.cluster.network.topology;
            const auto kind = static_cast<models::TopologyKind>(v);
            if (kind == t.kind)
                return;
            const models::Pool* pool = s.trainingPool();
            t = models::topologyForKind(kind, pool ? *pool : models::Pool{}, t);
        });
    });
    connect(oversubscription_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        change(EditOversubscription, tr("Change oversubscription"),
               [v](models::Scenario& s) { s.cluster.network.topology.oversubscription = v; });
    });
    auto countField = [this](QSpinBox* box, int id, const QString& what,
                             std::optional<std::int64_t> models::Topology::*field) {
        connect(box, &QSpinBox::valueChanged, this, [this, box, id, what, field] {
            change(id, tr("Change %1").arg(what), [v = optionalCountValue(box), field](models::Scenario& s) {
                s.cluster.network.topology.*field = v;
            });
        });
    };
    countField(nodesPerLeaf_, EditNodesPerLeaf, tr("nodes per leaf"), &models::Topology::nodes_per_leaf);
    countField(radix_, EditSwitchRadix, tr("switch radix"), &models::Topology::radix);
    countField(groups_, EditDragonflyGroups, tr("dragonfly groups"), &models::Topology::groups);
    countField(routersPerGroup_, EditRoutersPerGroup, tr("routers per group"),
               &models::Topology::routers_per_group);
    countField(globalLinks_, EditGlobalLinksPerRouter, tr("global links per router"),
               &models::Topology::global_links_per_router);
    connect(tiers_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change switch tiers"), [v = tiers_->currentData().toInt()](models::Scenario& s) {
            s.cluster.network.topology.tiers = v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
        });
    });
    const std::array<QSpinBox*, 3> axes{torusX_, torusY_, torusZ_};
    const std::array<int, 3> axisIds{EditTorusX, EditTorusY, EditTorusZ};
    for (std::size_t k = 0; k < 3; ++k)
        connect(axes[k], &QSpinBox::valueChanged, this, [this, k, id = axisIds[k]](int v) {
            change(id, tr("Change torus dimensions"), [k, v](models::Scenario& s) {
                auto xyz = s.cluster.network.topology.dims.value_or(std::vector<std::int64_t>{1, 1, 1});
                xyz.resize(3, 1);
                xyz[k] = v;
                s.cluster.network.topology.dims = xyz;
            });
        });
    connect(linkGbps_, &QDoubleSpinBox::valueChanged, this, [this] {
        change(EditTopologyLinkGbps, tr("Change link bandwidth"),
               [v = formfields::optionalValue(linkGbps_)](models::Scenario& s) {
                   s.cluster.network.topology.link_Gbps = v;
               });
    });
    connect(switchLatency_, &QDoubleSpinBox::valueChanged, this, [this] {
        change(EditSwitchLatency, tr("Change switch latency"),
               [v = formfields::optionalValue(switchLatency_)](models::Scenario& s) {
                   s.cluster.network.topology.latency_us = v;
               });
    });
}

void ClusterEditor::refresh() {
    const auto& s = document()->scenario();
    formfields::show(nic_, s.cluster.network.nic_Gbps);
    formfields::show(topology_, static_cast<int>(s.cluster.network.topology.kind));
    const auto& t = s.cluster.network.topology;
    formfields::show(oversubscription_, t.oversubscription);
    showOptional(nodesPerLeaf_, t.nodes_per_leaf);
    formfields::show(tiers_, static_cast<int>(t.tiers.value_or(0)));
    showOptional(radix_, t.radix);
    formfields::show(groups_, t.groups.value_or(1));
    formfields::show(routersPerGroup_, t.routers_per_group.value_or(1));
    showOptional(globalLinks_, t.global_links_per_router);
    const std::array<QSpinBox*, 3> axes{torusX_, torusY_, torusZ_};
    for (std::size_t k = 0; k < 3; ++k)
        formfields::show(axes[k], t.dims && t.dims->size() > k ? (*t.dims)[k] : 1);
    formfields::show(linkGbps_, t.link_Gbps);
    formfields::show(switchLatency_, t.latency_us);
    // Only the fields of the chosen kind (the others would be errors).
    const bool fatTree =
        t.kind == models::TopologyKind::FatTree || t.kind == models::TopologyKind::RailFatTree;
    const bool dragonfly = t.kind == models::TopologyKind::Dragonfly;
    const bool torus = t.kind == models::TopologyKind::Torus3d;
    networkForm_->setRowVisible(oversubscription_, fatTree);
    networkForm_->setRowVisible(nodesPerLeaf_, fatTree);
    networkForm_->setRowVisible(tiers_, fatTree);
    networkForm_->setRowVisible(radix_, !torus);
    networkForm_->setRowVisible(groups_, dragonfly);
    networkForm_->setRowVisible(routersPerGroup_, dragonfly);
    networkForm_->setRowVisible(globalLinks_, dragonfly);
    networkForm_->setRowVisible(torusDims_, torus);
    networkForm_->setRowVisible(linkGbps_, dragonfly || torus);
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
