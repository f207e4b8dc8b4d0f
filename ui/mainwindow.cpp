#include "ui/mainwindow.h"

#include "models/fieldtable.h"
#include "models/scenarioio.h"
#include "ui/autosave.h"
#include "ui/calibration/calibratedialog.h"
#include "ui/calibration/calibrationform.h"
#include "ui/calibration/profileview.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/modelchartview.h"
#include "ui/cluster/clustereditor.h"
#include "ui/cluster/devicepalette.h"
#include "ui/cluster/topologypanel.h"
#include "ui/compare/comparedialog.h"
#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/comparemodel.h"
#include "ui/itemmodels/memorystagemodel.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/pipeline/pipelineview.h"
#include "ui/plan/plandialog.h"
#include "ui/reports/reportoptionsdialog.h"
#include "ui/reports/reportwriter.h"
#include "ui/reports/sweepcsv.h"
#include "ui/results/hardwarepanel.h"
#include "ui/results/resultspanel.h"
#include "ui/runs/analysisjob.h"
#include "ui/runs/runqueue.h"
#include "ui/runs/runqueuedock.h"
#include "ui/scenarioeditor.h"
#include "ui/workload/layoutsuggestdialog.h"
#include "ui/workload/workloadeditor.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

const QString kGeometryKey = u"mainWindow/geometry"_s;
const QString kStateKey = u"mainWindow/state"_s;
const QString kLastDirKey = u"mainWindow/lastDirectory"_s;
constexpr int kProgressSteps = 1000;

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

MainWindow::MainWindow(const models::Catalog& catalog, WorkerCommand worker, QSettings& settings,
                       QString defaultScenario, std::vector<ModelPreset> presets, QWidget* parent)
    : QMainWindow(parent)
    , catalog_(catalog)
    , worker_(std::move(worker))
    , settings_(settings)
    , recent_(settings)
    , defaultScenario_(std::move(defaultScenario)) {
    setObjectName(u"mainWindow"_s);
    document_ = new Document(catalog_, models::Scenario{}, this);

    // Left: the scenario's forms, scrollable, with the validation result under them.
    editor_ = new ScenarioEditor(document_, &marks_, std::move(presets));
    auto* scroll = new QScrollArea;
    scroll->setObjectName(u"editorScroll"_s);
    scroll->setWidget(editor_);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    validity_ = new QLabel;
    validity_->setObjectName(u"validityLabel"_s);
    diagnostics_ = new QListWidget;
    diagnostics_->setObjectName(u"diagnosticsList"_s);
    diagnostics_->setMaximumHeight(110);
    diagnostics_->setWordWrap(true);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(scroll, 1);
    leftLayout->addWidget(validity_);
    leftLayout->addWidget(diagnostics_);
    // As wide as the forms need, so that no field is cut off at the right edge (the horizontal scroll bar
    // is off); the results take the rest.
    left->setMinimumWidth(editor_->minimumSizeHint().width() +
                          scroll->verticalScrollBar()->sizeHint().width() + 2 * scroll->frameWidth());

    results_ = new ResultsPanel;
    createDocumentPages();
    QDockWidget* paletteDock = createDevicePalette();
    // The run queue: Run, its sweep and the queue's own sweeps run here, at most one worker per core.
    runQueue_ = new RunQueue(worker_, 0, this);
    runQueueDock_ = new RunQueueDock(runQueue_, document_, this);
    runQueueDock_->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, runQueueDock_);
    runQueueDock_->hide(); // Ctrl+Shift+Q; restoreState() below brings it back where the user left it

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(results_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({left->minimumWidth(), 1280 - left->minimumWidth()});
    setCentralWidget(split);

    status_ = new QLabel;
    progress_ = new QProgressBar;
    progress_->setObjectName(u"runProgress"_s);
    progress_->setMaximumWidth(220);
    progress_->setRange(0, kProgressSteps);
    progress_->hide();
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setObjectName(u"cancelRunButton"_s);
    cancelButton_->hide();
    connect(cancelButton_, &QPushButton::clicked, this, &MainWindow::cancelAnalysis);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);

    createActions();
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* paletteAction = paletteDock->toggleViewAction();
    paletteAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    paletteAction->setObjectName(u"paletteAction"_s);
    view->addAction(paletteAction);
    QAction* queueAction = runQueueDock_->toggleViewAction();
    queueAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
    queueAction->setObjectName(u"runQueueAction"_s);
    view->addAction(queueAction);
    connect(editor_->workloadEditor(), &WorkloadEditor::suggestLayoutRequested, this,
            &MainWindow::suggestLayout);
    connect(editor_->calibrationForm(), &CalibrationForm::viewRequested, this, &MainWindow::showProfile);
    connect(document_, &Document::scenarioChanged, this, &MainWindow::updateValidation);
    connect(document_, &Document::modifiedChanged, this, &MainWindow::updateTitle);
    connect(document_, &Document::filePathChanged, this, &MainWindow::updateTitle);
    updateValidation();
    updateTitle();
    updateActions();

    if (!restoreGeometry(settings_.value(kGeometryKey).toByteArray()))
        resize(1280, 800);
    restoreState(settings_.value(kStateKey).toByteArray());
}

MainWindow::~MainWindow() = default;

// Result pages that follow the document rather than the last run: memory per stage, hardware options, the
// training pool's network and the workload's pipeline.
void MainWindow::createDocumentPages() {
    memoryModel_ = new MemoryStageModel(document_, this);
    auto* memoryChart = new ModelChartView(memoryModel_, [model = memoryModel_](const QAbstractItemModel& m) {
        return createMemoryChart(m,
                                 {MemoryStageModel::StageColumn,
                                  {MemoryStageModel::WeightsColumn, MemoryStageModel::GradientsColumn,
                                   MemoryStageModel::OptimizerColumn, MemoryStageModel::ActivationsColumn,
                                   MemoryStageModel::BuffersColumn}},
                                 model->capacityGB(), tr("Memory per device by pipeline stage"));
    });
    memoryChart->setObjectName(u"memoryChart"_s);
    results_->addPage(memoryChart, tr("Memory"));
    hardware_ = new HardwarePanel(document_, worker_);
    results_->addPage(hardware_, tr("Hardware options"));

    // The training pool's network, following the document.
    topology_ = new TopologyPanel(document_);
    results_->addPage(topology_, tr("Network"));
    // The workload's stages on their pools, following the document; devices from the palette drop on it.
    pipeline_ = new PipelineView(document_);
    results_->addPage(pipeline_, tr("Pipeline"));
}

// The catalog as a palette beside the forms; its devices drop onto the pools table and the pipeline.
QDockWidget* MainWindow::createDevicePalette() {
    catalogModel_ = new CatalogDeviceModel(catalog_, this);
    palette_ = new DevicePalette(catalogModel_, editor_->clusterEditor()->poolModel());
    auto* paletteDock = new QDockWidget(tr("Device palette"), this);
    paletteDock->setObjectName(u"devicePaletteDock"_s);
    paletteDock->setWidget(palette_);
    paletteDock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::LeftDockWidgetArea, paletteDock);
    resizeDocks({paletteDock}, {300}, Qt::Horizontal);
    // Hidden until asked for, so that the forms and results keep a 1280-pixel screen; restoreState()
    // below brings it back where the user left it.
    paletteDock->hide();
    connect(editor_->clusterEditor(), &ClusterEditor::devicePaletteRequested, this, [paletteDock] {
        paletteDock->show();
        paletteDock->raise();
    });
    return paletteDock;
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave())
            newFile();
    });
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        if (maybeSave())
            open();
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(); });
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveAs(); });
    file->addSeparator();
    exportReportAction_ =
        file->addAction(tr("Export &report (PDF or HTML)…"), this, &MainWindow::exportReport);
    exportReportAction_->setObjectName(u"exportReportAction"_s);
    exportReportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportCsvAction_ = file->addAction(tr("Export s&weep (CSV)…"), this, &MainWindow::exportCsv);
    exportCsvAction_->setObjectName(u"exportCsvAction"_s);
    exportCsvAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    undo->setObjectName(u"undoAction"_s);
    QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    redo->setObjectName(u"redoAction"_s);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    runAction_ = run->addAction(tr("&Run"), this, &MainWindow::runAnalysis);
    runAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runAction_->setObjectName(u"runAction"_s);
    runAction_->setToolTip(tr("Simulate the scenario, then its scaling sweep (Ctrl+R)"));
    cancelAction_ = run->addAction(tr("&Cancel run"), this, &MainWindow::cancelAnalysis);
    cancelAction_->setObjectName(u"cancelAction"_s);
    cancelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    run->addSeparator();
    suggestAction_ = run->addAction(tr("&Suggest parallel layout…"), this, &MainWindow::suggestLayout);
    suggestAction_->setObjectName(u"suggestAction"_s);
    suggestAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    compareHardwareAction_ = run->addAction(tr("Compare &hardware"), this, &MainWindow::compareHardware);
    compareHardwareAction_->setObjectName(u"compareHardwareAction"_s);
    compareHardwareAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    compareAction_ = run->addAction(tr("Com&pare scenarios…"), this, &MainWindow::compareScenarios);
    compareAction_->setObjectName(u"compareAction"_s);
    compareAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));

    // Planning a cluster; calibration: measure this machine, look at a profile.
    QMenu* toolsMenu = menuBar()->addMenu(tr("&Tools"));
    planAction_ = toolsMenu->addAction(tr("&Plan a cluster…"), this, &MainWindow::planCluster);
    planAction_->setObjectName(u"planAction"_s);
    planAction_->setEnabled(false); // until setPlanning()
    calibrateAction_ = toolsMenu->addAction(tr("&Calibrate this machine…"), this, &MainWindow::calibrate);
    calibrateAction_->setObjectName(u"calibrateAction"_s);
    calibrateAction_->setEnabled(false); // until setCalibration()
    QAction* openProfile = toolsMenu->addAction(tr("Open calibration &profile…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open calibration profile"), profilesFolder_,
                                         tr("Calibration profiles (*.json);;All files (*)"));
        if (!path.isEmpty())
            showProfile(path);
    });
    openProfile->setObjectName(u"openProfileAction"_s);

    QToolBar* tools = addToolBar(tr("Main"));
    tools->setObjectName(u"mainToolBar"_s);
    tools->setMovable(false);
    tools->addAction(runAction_);
    tools->addAction(cancelAction_);
    tools->addSeparator();
    tools->addAction(undo);
    tools->addAction(redo);
    tools->addAction(suggestAction_);
    tools->addSeparator();
    tools->addAction(exportReportAction_);
}

bool MainWindow::openFile(const QString& path) {
    models::Diagnostics errors;
    auto scenario = models::loadScenarioFile(path.toStdString(), errors);
    if (!scenario) {
        showError(tr("Cannot open scenario"),
                  tr("%1 cannot be opened:\n%2").arg(path, q(models::joinDiagnostics(errors))));
        return false;
    }
    document_->reset(*scenario, QFileInfo(path).absoluteFilePath());
    recent_.add(path);
    return true;
}

void MainWindow::newFile() {
    models::Diagnostics errors;
    auto scenario = models::loadScenarioFile(defaultScenario_.toStdString(), errors);
    if (!scenario) {
        showError(tr("Cannot create a scenario"),
                  tr("The template %1 cannot be read:\n%2")
                      .arg(defaultScenario_, q(models::joinDiagnostics(errors))));
        return;
    }
    scenario->name = tr("Untitled scenario").toStdString();
    document_->reset(*scenario, QString());
}

void MainWindow::open() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open scenario"), settings_.value(kLastDirKey).toString(),
                                     tr("Choreo scenarios (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings_.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    openFile(path);
}

bool MainWindow::save() {
    if (document_->filePath().isEmpty())
        return saveAs();
    return saveTo(document_->filePath());
}

bool MainWindow::saveAs() {
    const QString suggested =
        document_->filePath().isEmpty()
            ? QFileInfo(settings_.value(kLastDirKey).toString(), q(document_->scenario().name) + u".json"_s)
                  .filePath()
            : document_->filePath();
    QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested,
                                                tr("Choreo scenarios (*.json);;All files (*)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += u".json"_s;
    settings_.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path) {
    QString error;
    if (!document_->save(path, error)) {
        showError(tr("Cannot save"), tr("%1 could not be saved: %2").arg(path, error));
        return false;
    }
    recent_.add(path);
    status_->setText(tr("Saved %1").arg(QFileInfo(path).fileName()));
    return true;
}

bool MainWindow::maybeSave() {
    if (!document_->isModified())
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList files = recent_.files();
    for (const QString& path : files) {
        recentMenu_
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (!maybeSave())
                                return;
                            if (!QFileInfo::exists(path)) {
                                recent_.remove(path);
                                showError(tr("Cannot open scenario"), tr("%1 no longer exists.").arg(path));
                                return;
                            }
                            openFile(path);
                        })
            ->setToolTip(path);
    }
    if (files.isEmpty())
        recentMenu_->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::updateTitle() {
    const QString path = document_->filePath();
    const QString name = path.isEmpty() ? tr("Untitled") : QFileInfo(path).fileName();
    setWindowTitle(tr("%1[*] - Choreo").arg(name));
    setWindowModified(document_->isModified());
}

void MainWindow::updateValidation() {
    const auto& diagnostics = document_->diagnostics();
    diagnostics_->clear();
    for (const auto& d : diagnostics)
        diagnostics_->addItem(q(d.text()));
    diagnostics_->setVisible(!diagnostics.empty());
    if (diagnostics.empty()) {
        validity_->setText(tr("Scenario is valid: ready to run."));
        validity_->setStyleSheet(u"color: #1c6b2a;"_s);
    } else {
        validity_->setText(
            tr("%n problem(s) to fix before running:", nullptr, static_cast<int>(diagnostics.size())));
        validity_->setStyleSheet(u"color: #a01818;"_s);
    }
    marks_.show(models::withStageAliases(diagnostics, document_->scenario())); // stage fields by table path
    updateActions();
}

void MainWindow::updateActions() {
    runAction_->setEnabled(document_->isValid());
    suggestAction_->setEnabled(document_->scenario().trainingPool() != nullptr);
    compareHardwareAction_->setEnabled(document_->scenario().trainingPool() != nullptr);
    cancelAction_->setEnabled(isAnalysisRunning());
    exportReportAction_->setEnabled(resultBase_.has_value());
    exportCsvAction_->setEnabled(results_->sweepModel()->rowCount() > 0);
}

bool MainWindow::isAnalysisRunning() const {
    return job_ && job_->isRunning();
}

void MainWindow::setRunning(bool running) {
    progress_->setVisible(running);
    cancelButton_->setVisible(running);
    updateActions();
}

void MainWindow::runAnalysis() {
    if (!document_->isValid())
        return;
    if (job_) {
        // Latest job wins: the old one goes quietly, its workers killed.
        job_->disconnect(this);
        job_->cancel();
        job_->deleteLater();
        job_ = nullptr;
    }
    results_->clear();
    resultScenario_.reset();
    pipeline_->setResult(std::nullopt, std::nullopt);
    resultBase_.reset();

    auto* job = new AnalysisJob(runQueue_, this);
    job_ = job;
    connect(job, &AnalysisJob::baseProgress, this, [this](double fraction, const QString& stage) {
        progress_->setRange(0, kProgressSteps);
        progress_->setValue(static_cast<int>(fraction * kProgressSteps));
        status_->setText(stage.isEmpty() ? tr("Simulating…") : tr("Simulating: %1").arg(stage));
    });
    connect(job, &AnalysisJob::baseFinished, this, [this, job](const models::RunResult& result) {
        resultScenario_ = job->scenario();
        resultBase_ = result;
        pipeline_->setResult(result, resultScenario_);
        results_->showBaseResult(result);
        updateActions();
    });
    connect(job, &AnalysisJob::baseFailed, this, [this](const WorkerFailure& failure) {
        results_->showFailure(failure);
        status_->setText(tr("The run failed."));
    });
    connect(job, &AnalysisJob::sweepStarted, this, [this, job](int points) {
        results_->setSweep(job->sweepOutcomes(), job->baseResult() ? job->baseResult()->devices : 0);
        progress_->setRange(0, std::max(points, 1));
        progress_->setValue(0);
        status_->setText(tr("Scaling sweep: %1 points…").arg(points));
        updateActions();
    });
    const auto pointChanged = [this, job](int index) {
        results_->updateSweepPoint(index, job->sweepOutcomes()[static_cast<std::size_t>(index)]);
    };
    connect(job, &AnalysisJob::sweepPointStarted, this, pointChanged);
    connect(job, &AnalysisJob::sweepPointFinished, this, [this, job, pointChanged](int index) {
        pointChanged(index);
        int done = 0;
        for (const auto& o : job->sweepOutcomes())
            done += o.state == SweepOutcome::State::Succeeded || o.state == SweepOutcome::State::Failed;
        progress_->setValue(done);
        status_->setText(
            tr("Scaling sweep: %1 of %2 points done…").arg(done).arg(job->sweepOutcomes().size()));
    });
    connect(job, &AnalysisJob::finished, this, [this, job](bool ok) {
        job_ = nullptr;
        job->deleteLater();
        setRunning(false);
        if (ok) {
            int failed = 0;
            for (int row = 0; row < results_->sweepModel()->rowCount(); ++row)
                failed += results_->sweepModel()->outcomes()[static_cast<std::size_t>(row)].state ==
                          SweepOutcome::State::Failed;
            status_->setText(
                failed == 0 ? tr("Done.")
                            : tr("Done; %n sweep point(s) failed (see the sweep table).", nullptr, failed));
        }
        emit analysisFinished(ok);
    });
    connect(job, &AnalysisJob::cancelled, this, [this, job] {
        job_ = nullptr;
        job->deleteLater();
        setRunning(false);
        results_->showNote(tr("Run cancelled."));
        status_->setText(tr("Cancelled."));
    });

    progress_->setRange(0, 0); // busy until the worker reports progress
    status_->setText(tr("Starting the simulation…"));
    job->start(document_->runnableScenario()); // a profile by absolute path: the worker knows no folder
    setRunning(true);
}

void MainWindow::cancelAnalysis() {
    if (job_)
        job_->cancel();
}

void MainWindow::suggestLayout() {
    if (!suggest_)
        suggest_ = new LayoutSuggestDialog(document_, worker_, this);
    suggest_->show();
    suggest_->raise();
    if (!suggest_->isSearching()) // a search under way finishes first; "Search again" restarts it
        suggest_->start();
}

void MainWindow::compareHardware() {
    results_->showPage(hardware_);
    hardware_->start();
}

void MainWindow::compareScenarios() {
    if (!compare_)
        compare_ = new CompareDialog(document_, worker_, this);
    if (compare_->model()->columnCount() == 0)
        compare_->addSnapshot();
    compare_->show();
    compare_->raise();
}

void MainWindow::setCalibration(WorkerCommand command, const QString& profilesFolder) {
    calibrateCommand_ = std::move(command);
    profilesFolder_ = profilesFolder;
    calibrateAction_->setEnabled(!calibrateCommand_.program.isEmpty());
}

void MainWindow::calibrate() {
    if (calibrateCommand_.program.isEmpty())
        return;
    if (!calibrate_) {
        calibrate_ = new CalibrateDialog(calibrateCommand_, profilesFolder_, this);
        connect(calibrate_, &CalibrateDialog::viewRequested, this, &MainWindow::showProfile);
        connect(calibrate_, &CalibrateDialog::useRequested, this,
                [this](const QString& path) { editor_->calibrationForm()->useProfile(path); });
    }
    calibrate_->show();
    calibrate_->raise();
}

void MainWindow::setPlanning(WorkerCommand command) {
    planCommand_ = std::move(command);
    planAction_->setEnabled(!planCommand_.program.isEmpty());
}

void MainWindow::planCluster() {
    if (planCommand_.program.isEmpty())
        return;
    if (!plan_) {
        plan_ = new PlanDialog(catalog_, document_, planCommand_, this);
        connect(plan_, &PlanDialog::openRequested, this, &MainWindow::openPlanOption);
    }
    plan_->show();
    plan_->raise();
}

bool MainWindow::openPlanOption(const models::Scenario& scenario) {
    if (!maybeSave())
        return false;
    document_->reset(scenario, QString());
    return true;
}

ProfileView* MainWindow::showProfile(const QString& path) {
    if (!profileView_) {
        profileView_ = new ProfileView(catalog_, this);
        profileView_->setWindowFlag(Qt::Window);
        profileView_->resize(1200, 780);
    }
    QString error;
    if (!profileView_->openFile(path, error)) {
        showError(tr("Cannot open the profile"), error);
        return nullptr;
    }
    profileView_->show();
    profileView_->raise();
    return profileView_;
}

void MainWindow::enableAutosave(const QString& directory, int intervalMs) {
    delete autosave_;
    autosaveDir_ = directory;
    autosave_ = new Autosave(document_, directory, intervalMs, this);
    connect(autosave_, &Autosave::failed, this,
            [this](const QString& error) { status_->setText(tr("Autosave failed: %1").arg(error)); });
}

bool MainWindow::offerRecovery() {
    if (!autosave_)
        return false;
    QString error;
    auto recovery = Autosave::pending(autosaveDir_, error);
    if (!recovery) {
        if (!error.isEmpty()) {
            showError(tr("Cannot recover"), error);
            autosave_->discard();
        }
        return false;
    }
    if (quiet_)
        return false; // unattended: never decide for the user; the copy stays for the next session
    const QString from =
        recovery->originalPath.isEmpty() ? tr("an untitled scenario") : recovery->originalPath;
    const auto answer = QMessageBox::question(
        this, tr("Recover unsaved changes?"),
        tr("Choreo did not close normally last time. Unsaved changes to %1 (\"%2\") were kept.\n\n"
           "Recover them?")
            .arg(from, q(recovery->scenario.name)),
        QMessageBox::Yes | QMessageBox::Discard, QMessageBox::Yes);
    if (answer != QMessageBox::Yes) {
        autosave_->discard();
        return false;
    }
    // Undo leads back to the file as saved; the recovered state is an unsaved change on top of it.
    models::Diagnostics errors;
    const auto original = recovery->originalPath.isEmpty()
                              ? models::loadScenarioFile(defaultScenario_.toStdString(), errors)
                              : models::loadScenarioFile(recovery->originalPath.toStdString(), errors);
    document_->reset(original ? *original : recovery->scenario,
                     original ? recovery->originalPath : QString());
    document_->edit(recovery->scenario, NoMerge, tr("Recover autosaved changes"));
    if (!recovery->originalPath.isEmpty())
        recent_.add(recovery->originalPath);
    status_->setText(tr("Recovered unsaved changes."));
    return true;
}

void MainWindow::exportReport() {
    if (!resultBase_ || !resultScenario_)
        return;
    ReportInput input{*resultScenario_, *resultBase_, results_->sweepModel()->outcomes(), &catalog_,
                      QDateTime::currentDateTime()};
    if (resultScenario_->calibration) {
        // The scenario as run names its profile by absolute path (Document::runnableScenario).
        models::Diagnostics errors;
        input.profile = models::loadProfileFile(resultScenario_->calibration->profile, errors);
    }
    ReportOptionsDialog options(input, settings_, this);
    if (options.exec() != QDialog::Accepted)
        return;
    input.sections = options.sections();
    const bool html = options.format() == ReportOptionsDialog::Format::Html;
    const QString filter = html ? tr("HTML (*.html)") : tr("PDF (*.pdf)");
    const QString suggested = QFileInfo(settings_.value(kLastDirKey).toString(),
                                        q(resultScenario_->name) + (html ? u".html"_s : u".pdf"_s))
                                  .filePath();
    QString path = QFileDialog::getSaveFileName(this, tr("Export report"), suggested, filter);
    if (path.isEmpty())
        return;
    const QString suffix = QFileInfo(path).suffix().toLower();
    // The format was chosen in the options: a name without its suffix gets it.
    if (html ? suffix != u"html"_s && suffix != u"htm"_s : suffix != u"pdf"_s)
        path += html ? u".html"_s : u".pdf"_s;
    QString error;
    const bool ok = html ? writeReportHtml(input, path, error) : writeReportPdf(input, path, error) > 0;
    if (!ok) {
        showError(tr("Cannot export the report"), error);
        return;
    }
    if (options.writeSweepCsv()) {
        const QString csv = csvPathForReport(path);
        if (!writeSweepCsv(*results_->sweepModel(), csv, error)) {
            showError(tr("Cannot export the sweep"), error);
            return;
        }
        status_->setText(tr("Report written to %1, sweep table to %2").arg(path, csv));
        return;
    }
    status_->setText(tr("Report written to %1").arg(path));
}

void MainWindow::exportCsv() {
    const QString name = resultScenario_ ? q(resultScenario_->name) : q(document_->scenario().name);
    const QString suggested = QFileInfo(settings_.value(kLastDirKey).toString(), name + u".csv"_s).filePath();
    QString path = QFileDialog::getSaveFileName(this, tr("Export sweep"), suggested, tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += u".csv"_s;
    QString error;
    if (!writeSweepCsv(*results_->sweepModel(), path, error)) {
        showError(tr("Cannot export the sweep"), error);
        return;
    }
    status_->setText(tr("Sweep written to %1").arg(path));
}

void MainWindow::showError(const QString& title, const QString& text) {
    if (quiet_) {
        qWarning().noquote() << title << ":" << text;
        return;
    }
    QMessageBox::warning(this, title, text);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    if (job_) {
        job_->disconnect(this);
        job_->cancel();
    }
    hardware_->cancel();
    if (calibrate_)
        calibrate_->cancel();
    if (autosave_)
        autosave_->discard(); // a normal close: nothing to recover next time
    settings_.setValue(kGeometryKey, saveGeometry());
    settings_.setValue(kStateKey, saveState());
    event->accept();
}

} // namespace choreo::ui
