#include "ui/scenarioform.h"

#include "ui/editids.h"
#include "ui/fieldeditors.h"
#include "ui/fieldmarks.h"
#include "ui/formgrid.h"

#include <QLineEdit>

#include <algorithm>

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

void ScenarioForm::unmark(QWidget* widget) {
    if (marks_)
        marks_->remove(widget);
}

QWidget* ScenarioForm::bindField(const char* path) {
    const models::FieldSpec* field = models::findField(path);
    Q_ASSERT_X(field, "ScenarioForm::bindField", path);
    const int mergeId = fieldEditId(models::fieldIndex(*field));
    QWidget* widget = fieldeditors::create(*field, [this, field, mergeId](const models::FieldValue& value) {
        change(mergeId, fieldeditors::editDescription(*field), [field, value](models::Scenario& s) {
            if (field->appliesTo(s))
                field->set(s, value);
        });
    });
    mark(QString::fromStdString(field->path), widget);
    bound_.emplace_back(field, widget);
    return widget;
}

void ScenarioForm::bindGroup(FormGrid& form, const char* group) {
    for (const auto& field : models::scenarioFields()) {
        if (field.group != group ||
            std::any_of(bound_.begin(), bound_.end(), [&](const auto& b) { return b.first == &field; }))
            continue;
        QWidget* widget = bindField(field.path.c_str());
        if (field.kind == models::FieldKind::Text)
            form.addWide(QString::fromStdString(field.label), widget);
        else if (field.kind == models::FieldKind::Flag)
            form.add(QString(), widget);
        else
            form.add(QString::fromStdString(field.label), widget);
    }
}

void ScenarioForm::showFields(const models::Scenario& shown) {
    for (const auto& [field, widget] : bound_)
        if (field->appliesTo(shown))
            fieldeditors::show(widget, *field, field->get(shown));
}

} // namespace choreo::ui
