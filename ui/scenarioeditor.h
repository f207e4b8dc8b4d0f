#pragma once

#include "ui/scenarioform.h"
#include "ui/workload/modelpresets.h"

#include <vector>

QT_BEGIN_NAMESPACE
class QLineEdit;
QT_END_NAMESPACE

namespace choreo::ui {

class CalibrationForm;
class ClusterEditor;
class CostsEditor;
class WorkloadEditor;

// The whole scenario as plain forms: name, cluster and network, workload, costs, calibration.
class ScenarioEditor final : public ScenarioForm {
    Q_OBJECT

public:
    ScenarioEditor(Document* document, FieldMarks* marks, std::vector<ModelPreset> presets = {},
                   QWidget* parent = nullptr);

    [[nodiscard]] ClusterEditor* clusterEditor() const { return cluster_; }
    [[nodiscard]] WorkloadEditor* workloadEditor() const { return workload_; }
    [[nodiscard]] CalibrationForm* calibrationForm() const { return calibration_; }

protected:
    void refresh() override;

private:
    QLineEdit* name_;
    ClusterEditor* cluster_;
    WorkloadEditor* workload_;
    CostsEditor* costs_;
    CalibrationForm* calibration_;
};

} // namespace choreo::ui
