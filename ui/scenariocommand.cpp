#include "ui/scenariocommand.h"

#include "ui/document.h"

namespace choreo::ui {

ScenarioCommand::ScenarioCommand(Document* document, models::Scenario before, models::Scenario after,
                                 int mergeId, const QString& text)
    : QUndoCommand(text)
    , document_(document)
    , before_(std::move(before))
    , after_(std::move(after))
    , mergeId_(mergeId) {}

void ScenarioCommand::undo() {
    document_->apply(before_);
}

void ScenarioCommand::redo() {
    document_->apply(after_);
}

bool ScenarioCommand::mergeWith(const QUndoCommand* other) {
    if (other->id() != id() || id() < 0)
        return false;
    after_ = static_cast<const ScenarioCommand*>(other)->after_;
    setObsolete(after_ == before_);
    return true;
}

} // namespace choreo::ui
