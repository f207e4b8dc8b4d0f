#include "ui/costs/costseditor.h"

#include "ui/formgrid.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QVBoxLayout>

namespace choreo::ui {

CostsEditor::CostsEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent) {
    auto* box = new QGroupBox(tr("Costs"));
    FormGrid grid(new QGridLayout(box));
    bindGroup(grid, "Costs");
    // What stretches the run and its bill beyond the ideal: failures, checkpoints, restarts.
    auto* failures = new QGroupBox(tr("Failures and checkpoints"));
    FormGrid failureGrid(new QGridLayout(failures));
    bindGroup(failureGrid, "Failures and checkpoints");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(box);
    layout->addWidget(failures);
    refresh();
}

void CostsEditor::refresh() {
    showFields(document()->scenario());
}

} // namespace choreo::ui
