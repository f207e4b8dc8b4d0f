#include "ui/scenarioform.h"

#include "ui/editids.h"
#include "ui/fieldeditors.h"
#include "ui/fieldmarks.h"
#include "ui/formgrid.h"

#include <QCompleter>
#include <QLineEdit>

#include <algorithm>

namespace choreo::ui {

namespace {

// The catalog's names a text field takes (a framework, a storage tier), for its completer; empty when the
// field takes any text.
QStringList catalogNamesFor(const std::string& path, const models::Catalog& catalog) {
    QStringList names;
    if (path == "workload.framework") {
        for (const auto& profile : catalog.frameworkProfiles())
            names << QString::fromStdString(profile.framework);
    } else if (path.size() >= 7 && path.compare(path.size() - 7, 7, "storage") == 0) {
        for (const auto& tier : catalog.storageTiers())
            names << QString::fromStdString(tier.id);
    }
    names.removeDuplicates();
    return names;
}

// Offers `names` as `edit` is typed in; picking one is an edit like typing it.
void suggestNames(QLineEdit* edit, const QStringList& names) {
    auto* completer = new QCompleter(names, edit);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    edit->setCompleter(completer);
    QObject::connect(completer, qOverload<const QString&>(&QCompleter::activated), edit,
                     [edit](const QString& text) { emit edit->textEdited(text); });
}

} // namespace

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
    if (auto* edit = qobject_cast<QLineEdit*>(widget))
        if (const QStringList names = catalogNamesFor(field->path, document_->catalog()); !names.isEmpty())
            suggestNames(edit, names);
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
