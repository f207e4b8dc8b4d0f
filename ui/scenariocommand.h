#pragma once

#include "models/scenario.h"

#include <QUndoCommand>

namespace choreo::ui {

class Document;

// An undo step that swaps whole Scenario values: simple and always right, and a scenario is small.
class ScenarioCommand : public QUndoCommand {
public:
    ScenarioCommand(Document* document, models::Scenario before, models::Scenario after, int mergeId,
                    const QString& text);

    void undo() override;
    void redo() override;
    [[nodiscard]] int id() const override { return mergeId_; }
    // Takes over the later value of a command with the same id; a merge back to the start is obsolete.
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* document_;
    models::Scenario before_;
    models::Scenario after_;
    int mergeId_;
};

} // namespace choreo::ui
