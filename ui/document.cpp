#include "ui/document.h"

#include "models/resolved.h"
#include "models/scenarioio.h"
#include "ui/scenariocommand.h"

namespace choreo::ui {

Document::Document(const models::Catalog& catalog, models::Scenario scenario, QObject* parent)
    : QObject(parent)
    , catalog_(catalog)
    , scenario_(std::move(scenario))
    , diagnostics_(validate(scenario_, catalog_)) {
    connect(&undoStack_, &QUndoStack::cleanChanged, this,
            [this](bool clean) { emit modifiedChanged(!clean); });
}

models::Diagnostics Document::validate(const models::Scenario& scenario, const models::Catalog& catalog) {
    models::Diagnostics errors;
    // The semantic checks divide by sizes the file format guarantees to be positive, so they run
    // only on a scenario that survives the file format's own checks.
    const auto reparsed = models::parseScenario(models::serializeScenario(scenario), errors);
    if (reparsed)
        models::resolveScenario(*reparsed, catalog, errors);
    return errors;
}

void Document::edit(models::Scenario changed, int mergeId, const QString& description) {
    if (changed == scenario_)
        return;
    undoStack_.push(new ScenarioCommand(this, scenario_, std::move(changed), mergeId, description));
}

void Document::reset(const models::Scenario& scenario, const QString& filePath) {
    undoStack_.clear();
    apply(scenario);
    undoStack_.setClean();
    if (filePath != filePath_) {
        filePath_ = filePath;
        emit filePathChanged(filePath_);
    }
    emit modifiedChanged(false);
}

bool Document::save(const QString& path, QString& error) {
    std::string message;
    if (!models::saveScenarioFile(path.toStdString(), scenario_, message)) {
        error = QString::fromStdString(message);
        return false;
    }
    undoStack_.setClean();
    if (path != filePath_) {
        filePath_ = path;
        emit filePathChanged(filePath_);
    }
    return true;
}

void Document::apply(const models::Scenario& scenario) {
    scenario_ = scenario;
    diagnostics_ = validate(scenario_, catalog_);
    emit scenarioChanged();
}

} // namespace choreo::ui
