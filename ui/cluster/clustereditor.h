#pragma once

#include "ui/scenarioform.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QFormLayout;
class QGroupBox;
class QPushButton;
class QSpinBox;
class QTableView;
QT_END_NAMESPACE

namespace choreo::ui {

class PoolTableModel;

// The cluster: device pools (table with add/remove) and the network between nodes.
class ClusterEditor final : public ScenarioForm {
    Q_OBJECT

public:
    ClusterEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

    [[nodiscard]] PoolTableModel* poolModel() const { return pools_; }

signals:
    // The user wants the device palette (the window owns it).
    void devicePaletteRequested();

protected:
    void refresh() override;

private:
    QGroupBox* createPoolsBox();
    void describeNetworkFields();
    QGroupBox* createNetworkBox();
    void connectNetworkFields();
    void addPool();
    void removePool();

    PoolTableModel* pools_;
    QTableView* poolView_;
    QPushButton* removeButton_;
    // The network's fields from the field table (models/fieldtable.h), bound by ScenarioForm; the
    // topology's kind, its tiers and the torus's dimensions by hand (a kind change reshapes the topology,
    // tiers read as a list, dims is an array).
    QWidget* nic_ = nullptr;
    QComboBox* topology_;
    QWidget* oversubscription_ = nullptr;
    // Topology parameters; only the rows of the chosen kind are shown.
    QFormLayout* networkForm_ = nullptr;
    QWidget* nodesPerLeaf_ = nullptr;
    QComboBox* tiers_;
    QWidget* radix_ = nullptr;
    QWidget* groups_ = nullptr;
    QWidget* routersPerGroup_ = nullptr;
    QWidget* globalLinks_ = nullptr;
    QSpinBox* torusX_;
    QSpinBox* torusY_;
    QSpinBox* torusZ_;
    QWidget* torusDims_ = nullptr;
    QWidget* linkGbps_ = nullptr;
    QWidget* switchLatency_ = nullptr;
};

} // namespace choreo::ui
