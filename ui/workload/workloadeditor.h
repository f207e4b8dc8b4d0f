#pragma once

#include "ui/scenarioform.h"
#include "ui/workload/modelpresets.h"

#include <vector>

QT_BEGIN_NAMESPACE
class QComboBox;
class QGroupBox;
class QLabel;
class QPushButton;
QT_END_NAMESPACE

namespace choreo::ui {

class MemoryBar;

// The training workload: model shape (a published preset or custom, dense or Mixture-of-Experts), batch,
// precision and attention kernel, parallel layout (expert parallelism included), and the memory a device
// needs for it.
class WorkloadEditor final : public ScenarioForm {
    Q_OBJECT

public:
    WorkloadEditor(Document* document, FieldMarks* marks, std::vector<ModelPreset> presets = {},
                   QWidget* parent = nullptr);

    [[nodiscard]] const std::vector<ModelPreset>& presets() const { return presets_; }

signals:
    // The user asked for parallel layouts that fit (the window owns the workers that rank them).
    void suggestLayoutRequested();

protected:
    void refresh() override;

private:
    void createPresetRow();
    QGroupBox* createModelBox();
    QGroupBox* createTrainingBox();
    QGroupBox* createParallelBox();
    // The fields the table does not describe: the training pool, the gradient precision, MoE on or off.
    void connectHandBoundFields();
    void refreshPools();
    void refreshPreset();
    void applyPreset(int index);

    std::vector<ModelPreset> presets_;
    QComboBox* preset_;
    QLabel* presetInfo_;
    MemoryBar* memory_;
    QPushButton* suggest_;
    QComboBox* pool_;
    QComboBox* gradients_;
    QGroupBox* moe_;
    QGroupBox* training_ = nullptr; // with the parallel layout: hidden for a serving workload
    QGroupBox* parallel_ = nullptr;
};

} // namespace choreo::ui
