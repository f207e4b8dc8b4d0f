#include "ui/scenarioeditor.h"

#include "ui/calibration/calibrationform.h"
#include "ui/cluster/clustereditor.h"
#include "ui/costs/costseditor.h"
#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/workload/serveeditor.h"
#include "ui/workload/stageseditor.h"
#include "ui/workload/workloadeditor.h"

#include <QFormLayout>
#include <QLineEdit>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

ScenarioEditor::ScenarioEditor(Document* document, FieldMarks* marks, std::vector<ModelPreset> presets,
                               QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , name_(new QLineEdit)
    , cluster_(new ClusterEditor(document, marks))
    , workload_(new WorkloadEditor(document, marks, std::move(presets)))
    , costs_(new CostsEditor(document, marks))
    , calibration_(new CalibrationForm(document, marks)) {
    name_->setObjectName(u"scenarioNameEdit"_s);
    mark(u"name"_s, name_);
    auto* nameRow = new QFormLayout;
    nameRow->addRow(tr("Scenario"), name_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(nameRow);
    layout->addWidget(cluster_);
    layout->addWidget(workload_);
    layout->addWidget(new StagesEditor(document, marks));
    layout->addWidget(new ServeEditor(document, marks));
    layout->addWidget(costs_);
    layout->addWidget(calibration_);
    layout->addStretch();
    connect(name_, &QLineEdit::textEdited, this, [this](const QString& text) {
        change(EditScenarioName, tr("Rename scenario"),
               [name = text.toStdString()](models::Scenario& s) { s.name = name; });
    });
    refresh();
}

void ScenarioEditor::refresh() {
    formfields::show(name_, QString::fromStdString(document()->scenario().name));
}

} // namespace choreo::ui
