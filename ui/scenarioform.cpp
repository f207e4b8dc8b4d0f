#include "ui/scenarioform.h"

#include "ui/fieldmarks.h"

namespace choreo::ui {

ScenarioForm::ScenarioForm(Document* document, FieldMarks* marks, QWidget* parent)
    : QWidget(parent)
    , document_(document)
    , marks_(marks) {
    // Derived constructors call refresh() themselves once their widgets exist.
    connect(document_, &Document::scenarioChanged, this, [this] { refresh(); });
}

void ScenarioForm::mark(const QString& path, QWidget* widget, bool exactOnly) {
    if (marks_)
        marks_->add(path, widget, exactOnly);
}

} // namespace choreo::ui
