#include "ui/document.h"

#include "models/calibration.h"
#include "models/resolved.h"
#include "models/scenarioio.h"
#include "ui/scenariocommand.h"

#include <QFileInfo>

#include <functional>

namespace choreo::ui {

Document::Document(const models::Catalog& catalog, models::Scenario scenario, QObject* parent)
    : QObject(parent)
    , catalog_(catalog)
    , scenario_(std::move(scenario)) {
    apply(scenario_);
    connect(&undoStack_, &QUndoStack::cleanChanged, this,
            [this](bool clean) { emit modifiedChanged(!clean); });
}

namespace {

using Calibrate = std::function<void(models::ResolvedScenario&, models::Diagnostics&)>;

models::Diagnostics check(const models::Scenario& scenario, const models::Catalog& catalog,
                          const Calibrate& calibrate) {
    models::Diagnostics errors;
    // The semantic checks divide by sizes the file format guarantees to be positive, so they run
    // only on a scenario that survives the file format's own checks.
    const auto reparsed = models::parseScenario(models::serializeScenario(scenario), errors);
    if (!reparsed)
        return errors;
    auto resolved = models::resolveScenario(*reparsed, catalog, errors);
    if (resolved && errors.empty())
        calibrate(*resolved, errors);
    return errors;
}

} // namespace

models::Diagnostics Document::validate(const models::Scenario& scenario, const models::Catalog& catalog,
                                       const std::vector<std::filesystem::path>& profileFolders) {
    return check(scenario, catalog, [&](models::ResolvedScenario& rs, models::Diagnostics& errors) {
        models::applyScenarioCalibration(rs, profileFolders, errors);
    });
}

void Document::setProfileFolders(std::vector<std::filesystem::path> folders) {
    profileFolders_ = std::move(folders);
    apply(scenario_);
}

std::vector<std::filesystem::path> Document::profileFolders() const {
    std::vector<std::filesystem::path> folders;
    if (!filePath_.isEmpty())
        folders.emplace_back(QFileInfo(filePath_).absolutePath().toStdString());
    folders.insert(folders.end(), profileFolders_.begin(), profileFolders_.end());
    return folders;
}

const Document::LoadedProfile* Document::currentProfile() const {
    const auto file = scenario_.calibration
                          ? models::findProfile(scenario_.calibration->profile, profileFolders())
                          : std::nullopt;
    if (!file) {
        profile_.reset();
        return nullptr;
    }
    std::error_code ec;
    const auto modified = std::filesystem::last_write_time(*file, ec);
    if (!profile_ || profile_->file != *file || profile_->modified != modified) {
        models::Diagnostics errors;
        profile_ = LoadedProfile{*file, modified, models::loadProfileFile(*file, errors)};
    }
    return &*profile_;
}

std::optional<std::filesystem::path> Document::profileFile() const {
    const LoadedProfile* loaded = currentProfile();
    return loaded ? std::optional(loaded->file) : std::nullopt;
}

std::optional<models::Profile> Document::loadProfile() const {
    const LoadedProfile* loaded = currentProfile();
    return loaded ? loaded->profile : std::nullopt;
}

models::Scenario Document::runnableScenario() const {
    models::Scenario s = scenario_;
    if (const auto file = profileFile())
        s.calibration->profile = std::filesystem::absolute(*file).lexically_normal().string();
    return s;
}

void Document::edit(models::Scenario changed, int mergeId, const QString& description) {
    if (changed == scenario_)
        return;
    undoStack_.push(new ScenarioCommand(this, scenario_, std::move(changed), mergeId, description));
}

void Document::reset(const models::Scenario& scenario, const QString& filePath) {
    undoStack_.clear();
    const bool moved = filePath != filePath_;
    filePath_ = filePath; // first: a profile reference is relative to the file's folder
    apply(scenario);
    undoStack_.setClean();
    if (moved)
        emit filePathChanged(filePath_);
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
        apply(scenario_); // the profile reference may resolve differently from the new folder
        emit filePathChanged(filePath_);
    }
    return true;
}

void Document::apply(const models::Scenario& scenario) {
    scenario_ = scenario;
    // As validate(), with the profile read once per change of its file rather than once per edit (a
    // reference that cannot be loaded goes the long way, for its messages).
    const LoadedProfile* loaded = currentProfile();
    diagnostics_ = check(scenario_, catalog_, [&](models::ResolvedScenario& rs, models::Diagnostics& errors) {
        if (loaded && loaded->profile)
            models::applyCalibrationProfile(rs, *loaded->profile, scenario_.calibration->device, errors);
        else
            models::applyScenarioCalibration(rs, profileFolders(), errors);
    });
    emit scenarioChanged();
}

} // namespace choreo::ui
