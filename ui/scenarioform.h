#pragma once

#include "models/scenario.h"
#include "ui/document.h"

#include <QString>
#include <QWidget>

#include <utility>

namespace choreo::ui {

class FieldMarks;

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

private:
    Document* document_;
    FieldMarks* marks_;
};

} // namespace choreo::ui
