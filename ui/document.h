#pragma once

#include "models/catalog.h"
#include "models/diagnostic.h"
#include "models/profile.h"
#include "models/scenario.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <filesystem>
#include <optional>
#include <vector>

namespace choreo::ui {

// The scenario being edited: owns the value, its undo history, its file path and its validation.
// Every change goes through edit() and so through the undo stack; views only read.
class Document : public QObject {
    Q_OBJECT

public:
    // `catalog` validates scenarios and must outlive the document.
    Document(const models::Catalog& catalog, models::Scenario scenario, QObject* parent = nullptr);

    [[nodiscard]] const models::Scenario& scenario() const { return scenario_; }
    [[nodiscard]] const models::Catalog& catalog() const { return catalog_; }
    // Pushes an undoable change (nothing when `changed` equals the current scenario). Consecutive
    // edits with the same mergeId (an EditId, not NoMerge) become one undo step.
    void edit(models::Scenario changed, int mergeId, const QString& description);
    // Starts over with another scenario (New, Open): clears the history and marks it unmodified.
    void reset(const models::Scenario& scenario, const QString& filePath);
    // Saves atomically to `path` and marks the document unmodified; false with `error` otherwise.
    bool save(const QString& path, QString& error);

    [[nodiscard]] QUndoStack* undoStack() { return &undoStack_; }
    [[nodiscard]] QString filePath() const { return filePath_; }
    [[nodiscard]] bool isModified() const { return !undoStack_.isClean(); }
    // Problems of the current scenario as "path: message" items; empty when it can run.
    [[nodiscard]] const models::Diagnostics& diagnostics() const { return diagnostics_; }
    [[nodiscard]] bool isValid() const { return diagnostics_.empty(); }

    // What a worker would reject: file-level checks (a round trip through the file format), then the
    // semantic ones of models::resolveScenario, memory included, then the calibration profile the scenario
    // names, looked up in `profileFolders` in order, as choreo-sim does.
    static models::Diagnostics validate(const models::Scenario& scenario, const models::Catalog& catalog,
                                        const std::vector<std::filesystem::path>& profileFolders = {});

    // Folders searched for a profile named by name after the scenario file's own (the assets'
    // calibration folder); re-validates.
    void setProfileFolders(std::vector<std::filesystem::path> folders);
    // Where a profile reference is looked up, in order: the scenario file's folder, then the folders set.
    [[nodiscard]] std::vector<std::filesystem::path> profileFolders() const;
    // The file the scenario's profile reference names now, or nullopt (none named, or not found).
    [[nodiscard]] std::optional<std::filesystem::path> profileFile() const;
    // The profile the scenario uses, loaded; nullopt when it names none or it cannot be read.
    [[nodiscard]] std::optional<models::Profile> loadProfile() const;
    // The scenario as a worker must get it: a profile reference made absolute, so that the worker, which
    // knows neither the file's folder nor ours, loads the same profile choreo-sim run would.
    [[nodiscard]] models::Scenario runnableScenario() const;

signals:
    // The scenario changed (edit, undo, redo, reset); diagnostics() are already up to date.
    void scenarioChanged();
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);

private:
    friend class ScenarioCommand;
    // Sets the value without recording history (the undo command's job).
    void apply(const models::Scenario& scenario);

    // The profile file the scenario names, and its contents as last read: read again only when the
    // reference resolves to another file or the file has changed on disk (a recalibration).
    struct LoadedProfile {
        std::filesystem::path file;
        std::filesystem::file_time_type modified;
        std::optional<models::Profile> profile; // nullopt: the file could not be read
    };
    const LoadedProfile* currentProfile() const;
    mutable std::optional<LoadedProfile> profile_;

    const models::Catalog& catalog_;
    models::Scenario scenario_;
    models::Diagnostics diagnostics_;
    QString filePath_;
    std::vector<std::filesystem::path> profileFolders_;
    QUndoStack undoStack_;
};

} // namespace choreo::ui
