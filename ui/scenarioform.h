#pragma once

#include "models/fieldtable.h"
#include "models/scenario.h"
#include "ui/document.h"

#include <QString>
#include <QWidget>

#include <utility>
#include <vector>

namespace choreo::ui {

class FieldMarks;
class FormGrid;

// Base of the scenario's form editors: shows the document and turns widget changes into undoable edits.
class ScenarioForm : public QWidget {
    Q_OBJECT

public:
    ScenarioForm(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

protected:
    // Shows the document's scenario in the widgets (signals blocked); called after every change.
    virtual void refresh() = 0;
    // Records one edit: a copy of the scenario, changed by `mutate`, pushed with a merge id.
    template <typename Mutate>
    void change(int mergeId, const QString& description, Mutate&& mutate) {
        models::Scenario s = document_->scenario();
        std::forward<Mutate>(mutate)(s);
        document_->edit(std::move(s), mergeId, description);
    }
    [[nodiscard]] Document* document() const { return document_; }
    // Registers `widget` as the editor of JSON path `path` (and below it, unless exactOnly) for diagnostics.
    void mark(const QString& path, QWidget* widget, bool exactOnly = false);
    // Forgets the paths `widget` was marked for.
    void unmark(QWidget* widget);

    // The editor of table field `path` (models/fieldtable.h), bound to the document: each commit is one
    // undoable edit, merged with the next edit of the same field. The field must be in the table.
    QWidget* bindField(const char* path);
    // Adds to `form` the editor of every table field of `group` this form has not bound yet, in table order
    // (check boxes without a label, texts on a row of their own).
    void bindGroup(FormGrid& form, const char* group);
    // Shows `shown`'s values in every bound editor (signals blocked).
    void showFields(const models::Scenario& shown);

private:
    Document* document_;
    FieldMarks* marks_;
    std::vector<std::pair<const models::FieldSpec*, QWidget*>> bound_;
};

} // namespace choreo::ui
