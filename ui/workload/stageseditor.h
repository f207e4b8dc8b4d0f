#pragma once

#include "ui/scenarioform.h"

QT_BEGIN_NAMESPACE
class QGroupBox;
QT_END_NAMESPACE

namespace choreo::ui {

// The fields of the workload's data and evaluation stages, from the field table (groups "Data stage" and
// "Evaluation"), each box shown while its stage exists. The Pipeline tab adds and removes the stages and
// places them on pools.
class StagesEditor final : public ScenarioForm {
    Q_OBJECT

public:
    StagesEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

protected:
    void refresh() override;

private:
    QGroupBox* data_;
    QGroupBox* eval_;
};

} // namespace choreo::ui
