#include "ui/cluster/clustereditor.h"

#include "models/topology.h"
#include "ui/cluster/devicedelegate.h"
#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/itemmodels/pooltablemodel.h"
#include "ui/reports/tablecsv.h"

#include <QComboBox>
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

// A table field's row: its label from the table.
QString labelOf(const char* path) {
    const models::FieldSpec* field = models::findField(path);
    return field ? QString::fromStdString(field->label) : QString();
}

} // namespace

ClusterEditor::ClusterEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , pools_(new PoolTableModel(document, this))
    , poolView_(new QTableView)
    , removeButton_(new QPushButton(tr("Remove")))
    , topology_(new QComboBox)
    , tiers_(new QComboBox)
    , torusX_(formfields::countSpin(1 << 20))
    , torusY_(formfields::countSpin(1 << 20))
    , torusZ_(formfields::countSpin(1 << 20)) {
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

// The table's network fields, and the names, tooltips and diagnostic marks of those bound by hand.
void ClusterEditor::describeNetworkFields() {
    nic_ = bindField("cluster.network.nic_Gbps");
    oversubscription_ = bindField("cluster.network.topology.oversubscription");
    nodesPerLeaf_ = bindField("cluster.network.topology.nodes_per_leaf");
    radix_ = bindField("cluster.network.topology.radix");
    groups_ = bindField("cluster.network.topology.groups");
    routersPerGroup_ = bindField("cluster.network.topology.routers_per_group");
    globalLinks_ = bindField("cluster.network.topology.global_links_per_router");
    linkGbps_ = bindField("cluster.network.topology.link_Gbps");
    switchLatency_ = bindField("cluster.network.topology.latency_us");
    topology_->setObjectName(u"cluster.network.topology.kind"_s);
    topology_->addItem(tr("Fat tree"), static_cast<int>(models::TopologyKind::FatTree));
    topology_->addItem(tr("Rail-optimised fat tree"), static_cast<int>(models::TopologyKind::RailFatTree));
    topology_->addItem(tr("Single switch"), static_cast<int>(models::TopologyKind::SingleSwitch));
    topology_->addItem(tr("Dragonfly"), static_cast<int>(models::TopologyKind::Dragonfly));
    topology_->addItem(tr("3D torus"), static_cast<int>(models::TopologyKind::Torus3d));
    topology_->setToolTip(tr("How nodes are wired (docs/topology.md); another kind keeps the shared fields "
                             "and fills the ones it needs"));
    tiers_->setObjectName(u"cluster.network.topology.tiers"_s);
    tiers_->addItem(tr("as the radix needs"), 0);
    tiers_->addItem(tr("2 (leaf, spine)"), 2);
    tiers_->addItem(tr("3 (leaf, aggregation, core)"), 3);
    torusX_->setObjectName(u"torusXSpin"_s);
    torusY_->setObjectName(u"torusYSpin"_s);
    torusZ_->setObjectName(u"torusZSpin"_s);
    mark(u"cluster.network.topology.kind"_s, topology_);
    mark(u"cluster.network.topology.tiers"_s, tiers_);
    mark(u"cluster.network.topology.dims"_s, torusX_);
}

QGroupBox* ClusterEditor::createNetworkBox() {
    describeNetworkFields();
    auto* networkBox = new QGroupBox(tr("Network"));
    auto* form = new QFormLayout(networkBox);
    networkForm_ = form;
    form->addRow(labelOf("cluster.network.nic_Gbps"), nic_);
    form->addRow(labelOf("cluster.network.topology.kind"), topology_);
    form->addRow(labelOf("cluster.network.topology.oversubscription"), oversubscription_);
    form->addRow(labelOf("cluster.network.topology.nodes_per_leaf"), nodesPerLeaf_);
    form->addRow(labelOf("cluster.network.topology.tiers"), tiers_);
    form->addRow(labelOf("cluster.network.topology.radix"), radix_);
    form->addRow(labelOf("cluster.network.topology.groups"), groups_);
    form->addRow(labelOf("cluster.network.topology.routers_per_group"), routersPerGroup_);
    form->addRow(labelOf("cluster.network.topology.global_links_per_router"), globalLinks_);
    torusDims_ = new QWidget;
    auto* dims = new QHBoxLayout(torusDims_);
    dims->setContentsMargins(0, 0, 0, 0);
    dims->addWidget(torusX_);
    dims->addWidget(new QLabel(u"×"_s));
    dims->addWidget(torusY_);
    dims->addWidget(new QLabel(u"×"_s));
    dims->addWidget(torusZ_);
    form->addRow(tr("Torus x × y × z"), torusDims_);
    form->addRow(labelOf("cluster.network.topology.link_Gbps"), linkGbps_);
    form->addRow(labelOf("cluster.network.topology.latency_us"), switchLatency_);
    return networkBox;
}

// The fields bound by hand; one undo step per field, spinning a torus axis merges into one step.
void ClusterEditor::connectNetworkFields() {
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
}

void ClusterEditor::refresh() {
    const auto& s = document()->scenario();
    showFields(s);
    formfields::show(topology_, static_cast<int>(s.cluster.network.topology.kind));
    const auto& t = s.cluster.network.topology;
    formfields::show(tiers_, static_cast<int>(t.tiers.value_or(0)));
    const std::array<QSpinBox*, 3> axes{torusX_, torusY_, torusZ_};
    for (std::size_t k = 0; k < 3; ++k)
        formfields::show(axes[k], t.dims && t.dims->size() > k ? (*t.dims)[k] : 1);
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
