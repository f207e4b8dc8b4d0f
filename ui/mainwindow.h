#pragma once

#include "models/catalog.h"
#include "models/result.h"
#include "models/scenario.h"
#include "ui/fieldmarks.h"
#include "ui/recentfiles.h"
#include "ui/runs/workercommand.h"
#include "ui/runs/workerfailure.h"
#include "ui/workload/modelpresets.h"

#include <QMainWindow>
#include <QSettings>
#include <QString>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QDockWidget;
class QAction;
class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
QT_END_NAMESPACE

namespace choreo::ui {

class AnalysisJob;
class Autosave;
class CalibrateDialog;
class CatalogDeviceModel;
class CompareDialog;
class DevicePalette;
class Document;
class HardwarePanel;
class LayoutSuggestDialog;
class MemoryStageModel;
class PlanDialog;
class ProfileView;
class ResultsPanel;
class RunQueue;
class RunQueueDock;
class ScenarioEditor;
class TopologyPanel;
class PipelineView;

// The desktop program's window: the scenario's forms on the left, the latest run's results on the
// right. Runs go to worker processes; the window never waits for one.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    // `catalog` and `settings` must outlive the window. `defaultScenario` is the template of File > New.
    MainWindow(const models::Catalog& catalog, WorkerCommand worker, QSettings& settings,
               QString defaultScenario, std::vector<ModelPreset> presets = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads a scenario file into the document (no unsaved-changes prompt); false, with a message, when it
    // cannot.
    bool openFile(const QString& path);
    // Errors go to the log instead of message boxes (for smoke tests and unattended runs).
    void setQuiet(bool quiet) { quiet_ = quiet; }

    [[nodiscard]] Document* document() const { return document_; }
    [[nodiscard]] ResultsPanel* results() const { return results_; }
    [[nodiscard]] bool isAnalysisRunning() const;
    [[nodiscard]] DevicePalette* devicePalette() const { return palette_; }
    [[nodiscard]] HardwarePanel* hardwarePanel() const { return hardware_; }
    // The layout suggestion dialog, created on first use (nullptr before).
    [[nodiscard]] LayoutSuggestDialog* suggestDialog() const { return suggest_; }
    // The compare view, created on first use (nullptr before).
    [[nodiscard]] CompareDialog* compareDialog() const { return compare_; }
    [[nodiscard]] RunQueue* runQueue() const { return runQueue_; }
    [[nodiscard]] RunQueueDock* runQueueDock() const { return runQueueDock_; }
    [[nodiscard]] TopologyPanel* topologyPanel() const { return topology_; }
    [[nodiscard]] PipelineView* pipelineView() const { return pipeline_; }

    // Writes unsaved changes to `directory` every `intervalMs` (see Autosave).
    void enableAutosave(const QString& directory, int intervalMs);
    // Enables Tools > Calibrate: `command` starts `choreo-sim calibrate` (CalibrationRunner adds the rest);
    // new profiles go to `profilesFolder`.
    void setCalibration(WorkerCommand command, const QString& profilesFolder);
    // The calibrate dialog, created on first use (nullptr before).
    [[nodiscard]] CalibrateDialog* calibrateDialog() const { return calibrate_; }
    // Enables Tools > Plan a cluster: `command` starts `choreo-sim plan` (PlanRunner adds the rest).
    void setPlanning(WorkerCommand command);
    // The plan dialog, created on first use (nullptr before).
    [[nodiscard]] PlanDialog* planDialog() const { return plan_; }
    // Shows a profile file in the profile window (created on first use); nullptr, with a message, when the
    // file is not a profile.
    ProfileView* showProfile(const QString& path);

    // Offers to recover what a previous session left in the autosave directory; true when the user took
    // it (the document then holds it, unsaved, with undo back to the file it came from).
    bool offerRecovery();

public slots:
    // Runs the current scenario and then its scaling sweep; a run in progress is cancelled first.
    void runAnalysis();
    void cancelAnalysis();
    // Opens the layout suggestion dialog and starts a search for the document as it is now.
    void suggestLayout();
    // Runs the scenario on every catalog device that fits and shows the hardware options page.
    void compareHardware();
    // Opens the compare view, with a snapshot of the scenario when it is empty.
    void compareScenarios();
    // Opens Tools > Calibrate this machine.
    void calibrate();
    // Opens Tools > Plan a cluster for the document's scenario.
    void planCluster();
    // Opens a plan's option as a new, unsaved scenario (after asking about unsaved changes); false when the
    // user kept the document.
    bool openPlanOption(const models::Scenario& scenario);

signals:
    // A run (base and sweep) is over; ok when the base run gave a result. Not emitted on cancel.
    void analysisFinished(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createDocumentPages();
    QDockWidget* createDevicePalette(); // hidden until asked for
    void createActions();
    void newFile();
    void open();
    bool save();
    bool saveAs();
    bool saveTo(const QString& path);
    // Asks what to do with unsaved changes; true when it is fine to go on.
    bool maybeSave();
    void exportReport();
    void exportCsv();
    void rebuildRecentMenu();
    void updateTitle();
    void updateValidation();
    void updateActions();
    void setRunning(bool running);
    void showError(const QString& title, const QString& text);

    const models::Catalog& catalog_;
    WorkerCommand worker_;
    QSettings& settings_;
    RecentFiles recent_;
    QString defaultScenario_;
    bool quiet_ = false;

    Document* document_ = nullptr;
    FieldMarks marks_;
    ScenarioEditor* editor_ = nullptr;
    QListWidget* diagnostics_ = nullptr;
    QLabel* validity_ = nullptr;
    ResultsPanel* results_ = nullptr;
    CatalogDeviceModel* catalogModel_ = nullptr;
    DevicePalette* palette_ = nullptr;
    MemoryStageModel* memoryModel_ = nullptr;
    HardwarePanel* hardware_ = nullptr;
    LayoutSuggestDialog* suggest_ = nullptr;
    CompareDialog* compare_ = nullptr;
    Autosave* autosave_ = nullptr;
    QString autosaveDir_;
    QLabel* status_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QMenu* recentMenu_ = nullptr;

    QAction* runAction_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* exportReportAction_ = nullptr;
    QAction* exportCsvAction_ = nullptr;
    QAction* suggestAction_ = nullptr;
    QAction* compareHardwareAction_ = nullptr;
    QAction* compareAction_ = nullptr;
    QAction* calibrateAction_ = nullptr;
    QAction* planAction_ = nullptr;

    WorkerCommand calibrateCommand_;
    QString profilesFolder_;
    CalibrateDialog* calibrate_ = nullptr;
    WorkerCommand planCommand_;
    PlanDialog* plan_ = nullptr;
    ProfileView* profileView_ = nullptr;

    // Every run goes through the queue: bounded parallel workers, results cached by scenario content.
    RunQueue* runQueue_ = nullptr;
    RunQueueDock* runQueueDock_ = nullptr;
    TopologyPanel* topology_ = nullptr;
    PipelineView* pipeline_ = nullptr;
    AnalysisJob* job_ = nullptr;
    // What the results on screen belong to: the scenario as it was run, not as edited since.
    std::optional<models::Scenario> resultScenario_;
    std::optional<models::RunResult> resultBase_;
};

} // namespace choreo::ui
