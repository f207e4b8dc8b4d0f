#pragma once

#include "ui/scenarioform.h"

QT_BEGIN_NAMESPACE
class QLineEdit;
QT_END_NAMESPACE

namespace choreo::ui {

class ClusterEditor;
class CostsEditor;
class WorkloadEditor;

// The whole scenario as plain forms: name, cluster and network, workload, costs.
class ScenarioEditor final : public ScenarioForm {
    Q_OBJECT

public:
    ScenarioEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

    [[nodiscard]] ClusterEditor* clusterEditor() const { return cluster_; }

protected:
    void refresh() override;

private:
    QLineEdit* name_;
    ClusterEditor* cluster_;
    WorkloadEditor* workload_;
    CostsEditor* costs_;
};

} // namespace choreo::ui
