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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(box);
    refresh();
}

void CostsEditor::refresh() {
    showFields(document()->scenario());
}

} // namespace choreo::ui
