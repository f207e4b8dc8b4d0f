#include "ui/workload/stageseditor.h"

#include "ui/formgrid.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

StagesEditor::StagesEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , data_(new QGroupBox(tr("Data stage")))
    , eval_(new QGroupBox(tr("Evaluation"))) {
    data_->setObjectName(u"dataStageGroup"_s);
    eval_->setObjectName(u"evalStageGroup"_s);
    FormGrid dataForm(new QGridLayout(data_));
    bindGroup(dataForm, "Data stage");
    FormGrid evalForm(new QGridLayout(eval_));
    bindGroup(evalForm, "Evaluation");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(data_);
    layout->addWidget(eval_);
    refresh();
}

void StagesEditor::refresh() {
    const models::Scenario& s = document()->scenario();
    data_->setVisible(s.workload.data.has_value());
    eval_->setVisible(s.workload.eval.has_value());
    setVisible(s.workload.data || s.workload.eval);
    showFields(s);
}

} // namespace choreo::ui
