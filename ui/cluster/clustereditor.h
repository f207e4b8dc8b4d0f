#pragma once

#include "ui/scenarioform.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
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
    QDoubleSpinBox* nic_;
    QComboBox* topology_;
    QDoubleSpinBox* oversubscription_;
    // Topology parameters; only the rows of the chosen kind are shown.
    QFormLayout* networkForm_ = nullptr;
    QSpinBox* nodesPerLeaf_;
    QComboBox* tiers_;
    QSpinBox* radix_;
    QSpinBox* groups_;
    QSpinBox* routersPerGroup_;
    QSpinBox* globalLinks_;
    QSpinBox* torusX_;
    QSpinBox* torusY_;
    QSpinBox* torusZ_;
    QWidget* torusDims_ = nullptr;
    QDoubleSpinBox* linkGbps_;
    QDoubleSpinBox* switchLatency_;
};

} // namespace choreo::ui
