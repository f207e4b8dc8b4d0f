#pragma once

#include "ui/scenarioform.h"

#include <cstdint>
#include <utility>
#include <vector>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace choreo::ui {

// The training workload: model shape, batch and precision, parallel layout.
class WorkloadEditor final : public ScenarioForm {
    Q_OBJECT

public:
    WorkloadEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

protected:
    void refresh() override;

private:
    // Selects one integer field of a scenario.
    using IntField = std::int64_t& (*)(models::Scenario&);
    // A count spin box that edits `field` (JSON path `path`) with undo merge id `mergeId`.
    QSpinBox* bindCount(const QString& objectName, const QString& path, int maximum, int mergeId,
                        const QString& description, IntField field);
    void refreshPools();

    std::vector<std::pair<QSpinBox*, IntField>> counts_;
    QLineEdit* modelName_;
    QCheckBox* gated_;
    QComboBox* pool_;
    QDoubleSpinBox* tokens_;
    QComboBox* precision_;
    QComboBox* recompute_;
    QCheckBox* sequenceParallel_;
    QComboBox* zero_;
};

} // namespace choreo::ui
