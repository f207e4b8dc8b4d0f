#include "ui/compare/comparedialog.h"

#include "models/scenarioio.h"
#include "ui/charts/comparecharts.h"
#include "ui/charts/modelchartview.h"
#include "ui/document.h"
#include "ui/itemmodels/comparemodel.h"
#include "ui/reports/tablecsv.h"
#include "ui/runs/sweeprunner.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTime>
#include <QVBoxLayout>

#include <tuple>

using namespace Qt::StringLiterals;

namespace choreo::ui {

CompareDialog::CompareDialog(Document* document, WorkerCommand worker, QWidget* parent)
    : QDialog(parent)
    , document_(document)
    , model_(new CompareModel(this))
    , runner_(new SweepRunner(std::move(worker), 0, this))
    , view_(new QTableView)
    , chartTabs_(new QTabWidget)
    , fidelity_(new QComboBox)
    , status_(new QLabel)
    , addSnapshot_(new QPushButton(tr("Add &current")))
    , addFile_(new QPushButton(tr("Add &file…")))
    , remove_(new QPushButton(tr("&Remove")))
    , run_(new QPushButton(tr("R&un all"))) {
    setObjectName(u"compareDialog"_s);
    setWindowTitle(tr("Compare scenarios"));
    view_->setObjectName(u"compareTable"_s);
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectColumns);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->setWordWrap(true);
    addCsvExport(view_, tr("comparison"));
    fidelity_->setObjectName(u"compareFidelityCombo"_s);
    fidelity_->addItem(tr("analytical (fast)"), u"analytical"_s);
    fidelity_->addItem(tr("flow"), u"flow"_s);
    status_->setObjectName(u"compareStatus"_s);
    status_->setWordWrap(true);
    status_->setText(tr("Add two to four scenarios: snapshots of the one being edited, or files. The best "
                        "value of each result row is bold."));
    addSnapshot_->setObjectName(u"addSnapshotButton"_s);
    addFile_->setObjectName(u"addFileButton"_s);
    remove_->setObjectName(u"removeScenarioButton"_s);
    run_->setObjectName(u"runAllButton"_s);

    // Charts rebuild from the model as results arrive and columns come and go; right-click exports them.
    chartTabs_->setObjectName(u"compareChartTabs"_s);
    const CompareModel* m = model_;
    const std::tuple<const char*, QString, ModelChartView::Builder> charts[] = {
        {"compareBreakdownChart", tr("Step time"),
         [m](const QAbstractItemModel&) { return createCompareBreakdownChart(*m); }},
        {"comparePowerChart", tr("Power"),
         [m](const QAbstractItemModel&) { return createComparePowerChart(*m); }},
        {"compareCostChart", tr("Time and cost"),
         [m](const QAbstractItemModel&) { return createCompareCostChart(*m); }},
        {"compareMemoryChart", tr("Memory"),
         [m](const QAbstractItemModel&) { return createCompareMemoryChart(*m); }},
        {"compareServingChart", tr("Serving"),
         [m](const QAbstractItemModel&) { return createCompareServingChart(*m); }},
    };
    for (const auto& [name, tab, build] : charts) {
        auto* view = new ModelChartView(model_, build);
        view->setObjectName(QString::fromLatin1(name));
        view->setToolTip(tr("Right-click to export the chart as PNG or SVG."));
        chartTabs_->addTab(view, tab);
        charts_ << view;
    }
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(view_);
    split->addWidget(chartTabs_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(addSnapshot_);
    buttons->addWidget(addFile_);
    buttons->addWidget(remove_);
    buttons->addStretch();
    buttons->addWidget(fidelity_);
    buttons->addWidget(run_);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(split, 1);
    layout->addWidget(close);
    resize(1100, 760);

    connect(addSnapshot_, &QPushButton::clicked, this, &CompareDialog::addSnapshot);
    connect(addFile_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Add scenario"), QString(),
                                                          tr("Choreo scenarios (*.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !addFile(path, error))
            QMessageBox::warning(this, tr("Cannot add the scenario"), error);
    });
    connect(remove_, &QPushButton::clicked, this, [this] {
        const QModelIndexList columns = view_->selectionModel()->selectedColumns();
        if (!columns.isEmpty() && !isRunning())
            model_->remove(columns.front().column());
        updateButtons();
    });
    connect(run_, &QPushButton::clicked, this, [this] { runAll(fidelity_->currentData().toString()); });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &CompareDialog::updateButtons);
    connect(runner_, &SweepRunner::pointStarted, this, [this](int index) { model_->setRunning(index); });
    connect(runner_, &SweepRunner::pointFinished, this, [this](int index) {
        const SweepOutcome& o = runner_->outcomes()[static_cast<std::size_t>(index)];
        if (o.result)
            model_->setResult(index, *o.result);
        else
            model_->setFailed(index, o.failure ? o.failure->text() : tr("no result"));
    });
    connect(runner_, &SweepRunner::finished, this, [this] {
        status_->setText(tr("Done. The best value of each result row is bold."));
        updateButtons();
        emit runFinished();
    });
    updateButtons();
}

bool CompareDialog::isRunning() const {
    return runner_->isRunning();
}

bool CompareDialog::addSnapshot() {
    if (isRunning() || model_->columnCount() >= CompareModel::kMaxScenarios)
        return false;
    const QString file =
        document_->filePath().isEmpty() ? tr("untitled") : QFileInfo(document_->filePath()).fileName();
    // Run as is: a profile by absolute path.
    addEntry(document_->runnableScenario(), tr("Snapshot %1").arg(++snapshots_),
             tr("%1 as edited at %2").arg(file, QTime::currentTime().toString(u"HH:mm:ss"_s)));
    return true;
}

bool CompareDialog::addFile(const QString& path, QString& error) {
    if (isRunning() || model_->columnCount() >= CompareModel::kMaxScenarios) {
        error = tr("At most %1 scenarios, and none while they run.").arg(CompareModel::kMaxScenarios);
        return false;
    }
    models::Diagnostics errors;
    auto scenario = models::loadScenarioFile(path.toStdString(), errors);
    if (!scenario) {
        error =
            tr("%1 cannot be opened:\n%2").arg(path, QString::fromStdString(models::joinDiagnostics(errors)));
        return false;
    }
    addEntry(std::move(*scenario), QFileInfo(path).fileName(), QFileInfo(path).absoluteFilePath());
    return true;
}

void CompareDialog::addEntry(models::Scenario scenario, const QString& title, const QString& source) {
    CompareModel::Entry e;
    e.title = title;
    e.source = source;
    e.scenario = std::move(scenario);
    const models::Pool* pool = e.scenario.trainingPool();
    const models::Device* device = pool ? document_->catalog().find(pool->device) : nullptr;
    e.capacity_GB = device ? device->memory_GB.value : 0.0;
    model_->add(std::move(e));
    updateButtons();
}

void CompareDialog::showChart(int index) {
    chartTabs_->setCurrentIndex(index);
}

bool CompareDialog::showChartTitled(const QString& title) {
    for (int i = 0; i < chartTabs_->count(); ++i)
        if (chartTabs_->tabText(i).remove(u'&') == title) {
            chartTabs_->setCurrentIndex(i);
            return true;
        }
    return false;
}

void CompareDialog::runAll(const QString& fidelity) {
    if (model_->columnCount() == 0)
        return;
    std::vector<models::SweepPoint> points;
    for (const auto& e : model_->entries()) {
        const models::Pool* pool = e.scenario.trainingPool();
        points.push_back({e.title.toStdString(), pool ? pool->count : 0, e.scenario});
    }
    status_->setText(tr("Running %1 scenarios at %2 fidelity…").arg(points.size()).arg(fidelity));
    runner_->start(std::move(points), fidelity);
    updateButtons();
}

void CompareDialog::updateButtons() {
    const bool running = isRunning();
    const bool full = model_->columnCount() >= CompareModel::kMaxScenarios;
    addSnapshot_->setEnabled(!running && !full);
    addFile_->setEnabled(!running && !full);
    remove_->setEnabled(!running && view_->selectionModel()->hasSelection());
    run_->setEnabled(!running && model_->columnCount() > 0);
}

} // namespace choreo::ui
