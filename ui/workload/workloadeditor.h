#pragma once

#include "ui/scenarioform.h"
#include "ui/workload/modelpresets.h"

#include <cstdint>
#include <utility>
#include <vector>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
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
    // Selects one integer field of a scenario.
    using IntField = std::int64_t& (*)(models::Scenario&);
    // A count spin box that edits `field` (JSON path `path`) with undo merge id `mergeId`.
    QSpinBox* bindCount(const QString& objectName, const QString& path, int maximum, int mergeId,
                        const QString& description, IntField field);
    // A check box whose toggle is one undo step setting the flag `field` selects.
    using BoolField = bool& (*)(models::Scenario&);
    void bindCheck(QCheckBox* box, const QString& description, BoolField field);
    // A combo box (item data: the enum's value) whose choice is one undo step setting the field `field`
    // selects.
    template <typename Enum>
    void bindChoice(QComboBox* box, const QString& description, Enum& (*field)(models::Scenario&));
    // A spin box for one field of the MoE shape (JSON path workload.model.moe.<key>); inactive while the
    // model has no MoE.
    using MoeField = std::int64_t models::MoeShape::*;
    QSpinBox* bindMoe(const QString& objectName, const QString& key, int minimum, int maximum, int mergeId,
                      const QString& description, MoeField field);
    void refreshPools();
    void refreshPreset();
    void applyPreset(int index);

    std::vector<ModelPreset> presets_;
    std::vector<std::pair<QSpinBox*, IntField>> counts_;
    std::vector<std::pair<QSpinBox*, MoeField>> moeFields_;
    QComboBox* preset_;
    QLabel* presetInfo_;
    MemoryBar* memory_;
    QPushButton* suggest_;
    QLineEdit* modelName_;
    QCheckBox* gated_;
    QCheckBox* dropout_;
    QComboBox* pool_;
    QDoubleSpinBox* tokens_;
    QComboBox* precision_;
    QComboBox* recompute_;
    QComboBox* gradients_;
    QCheckBox* sequenceParallel_;
    QCheckBox* overlapTp_;
    QCheckBox* overlapGather_;
    QCheckBox* overlapGrad_;
    QCheckBox* overlapExpert_;
    QComboBox* zero_;
    QGroupBox* moe_;
    QComboBox* attention_;
    QComboBox* accumulation_;
};

} // namespace choreo::ui
