#include "ui/results/resultspanel.h"

#include "ui/charts/breakdownchart.h"
#include "ui/charts/ganttchart.h"
#include "ui/charts/modelchartview.h"
#include "ui/charts/powerchart.h"
#include "ui/charts/scalingchart.h"
#include "ui/charts/servingcurvechart.h"
#include "ui/itemmodels/powertracemodel.h"
#include "ui/itemmodels/resultsummarymodel.h"
#include "ui/itemmodels/servingcurvemodel.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/itemmodels/timelinemodel.h"
#include "ui/reports/tablecsv.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

ResultsPanel::ResultsPanel(QWidget* parent)
    : QWidget(parent)
    , summary_(new ResultSummaryModel(this))
    , sweep_(new SweepResultModel(this))
    , timeline_(new TimelineModel(this))
    , power_(new PowerTraceModel(this))
    , servingCurve_(new ServingCurveModel(this))
    , message_(new QLabel)
    , details_(new QPlainTextEdit)
    , summaryView_(new QTableView)
    , sweepView_(new QTableView)
    , breakdownChart_(new ModelChartView(
          sweep_, [sweep = sweep_](const QAbstractItemModel&) { return createStepBreakdownChart(*sweep); }))
    , scalingChart_(new ModelChartView(
          sweep_, [sweep = sweep_](const QAbstractItemModel&) { return createScalingChart(*sweep); }))
    , ganttChart_(new ModelChartView(
          timeline_,
          [this](const QAbstractItemModel&) {
              return createGanttChart(
                  *timeline_, fidelity_.isEmpty() ? tr("One step per pipeline stage")
                                                  : tr("One step per pipeline stage (%1)").arg(fidelity_));
          }))
    , powerChart_(
          new ModelChartView(power_, [this](const QAbstractItemModel&) { return createPowerChart(*power_); }))
    , servingChart_(new ModelChartView(
          servingCurve_,
          [this](const QAbstractItemModel&) { return createServingCurveChart(*servingCurve_); }))
    , servingTable_(new QTableView)
    , servingPage_(new QWidget)
    , powerNotes_(new QLabel)
    , tabs_(new QTabWidget) {
    breakdownChart_->setObjectName(u"breakdownChart"_s);
    scalingChart_->setObjectName(u"scalingChart"_s);
    ganttChart_->setObjectName(u"ganttChart"_s);
    powerChart_->setObjectName(u"powerChart"_s);
    powerNotes_->setObjectName(u"powerNotes"_s);
    powerNotes_->setWordWrap(true);
    powerNotes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    powerNotes_->setStyleSheet(u"color: #505050;"_s);

    message_->setObjectName(u"resultMessage"_s);
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->hide();
    details_->setObjectName(u"workerLog"_s);
    details_->setReadOnly(true);
    details_->setMaximumHeight(90);
    details_->setPlaceholderText(tr("worker log"));
    details_->hide();

    summaryView_->setObjectName(u"summaryTable"_s);
    summaryView_->setModel(summary_);
    summaryView_->verticalHeader()->hide();
    summaryView_->verticalHeader()->setDefaultSectionSize(22);
    summaryView_->horizontalHeader()->setSectionResizeMode(ResultSummaryModel::QuantityColumn,
                                                           QHeaderView::ResizeToContents);
    summaryView_->horizontalHeader()->setStretchLastSection(true);
    summaryView_->setSelectionMode(QAbstractItemView::NoSelection);
    summaryView_->setWordWrap(false);
    // Narrow enough that the editor, the results and the device palette fit 1,280 pixels together; the
    // splitter gives it 360 when there is room.
    summaryView_->setMinimumWidth(296);

    sweepView_->setObjectName(u"sweepTable"_s);
    sweepView_->setModel(sweep_);
    sweepView_->verticalHeader()->hide();
    sweepView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    sweepView_->horizontalHeader()->setStretchLastSection(true);
    sweepView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    addCsvExport(summaryView_, tr("summary"));
    addCsvExport(sweepView_, tr("sweep"));

    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(summaryView_);
    top->addWidget(breakdownChart_);
    top->setStretchFactor(0, 0);
    top->setStretchFactor(1, 1);
    top->setSizes({360, 480});

    tabs_->addTab(scalingChart_, tr("Scaling"));
    tabs_->addTab(sweepView_, tr("Sweep table"));
    tabs_->addTab(ganttChart_, tr("Step timeline"));
    auto* powerPage = new QWidget;
    auto* powerLayout = new QVBoxLayout(powerPage);
    powerLayout->setContentsMargins(0, 0, 0, 0);
    powerLayout->addWidget(powerChart_, 1);
    powerLayout->addWidget(powerNotes_);
    tabs_->addTab(powerPage, tr("Power"));
    createServingPage();

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(message_);
    layout->addWidget(details_);
    layout->addWidget(split, 1);
}

// Latency against throughput over the rate search's loads, the chart above its table.
void ResultsPanel::createServingPage() {
    servingChart_->setObjectName(u"servingChart"_s);
    servingTable_->setObjectName(u"servingCurveTable"_s);
    servingTable_->setModel(servingCurve_);
    servingTable_->verticalHeader()->hide();
    servingTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    servingTable_->setMaximumHeight(150);
    addCsvExport(servingTable_, tr("serving curve"));
    auto* layout = new QVBoxLayout(servingPage_);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(servingChart_, 1);
    layout->addWidget(servingTable_);
    tabs_->addTab(servingPage_, tr("Serving"));
}

QString ResultsPanel::message() const {
    return message_->isHidden() ? QString() : message_->text();
}

void ResultsPanel::addPage(QWidget* page, const QString& title) {
    tabs_->addTab(page, title);
}

void ResultsPanel::showPage(QWidget* page) {
    tabs_->setCurrentWidget(page);
}

bool ResultsPanel::showPageTitled(const QString& title) {
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->tabText(i).compare(title, Qt::CaseInsensitive) == 0) {
            tabs_->setCurrentIndex(i);
            return true;
        }
    return false;
}

void ResultsPanel::clear() {
    summary_->clear();
    sweep_->clear();
    fidelity_.clear();
    timeline_->clear();
    power_->clear();
    servingCurve_->clear();
    powerNotes_->clear();
    showNote({});
    details_->clear();
    details_->hide();
}

void ResultsPanel::showBaseResult(const models::RunResult& result) {
    summary_->setResult(result);
    fidelity_ = QString::fromStdString(result.fidelity);
    timeline_->setTimeline(result.timeline);
    power_->setResult(result);
    powerNotes_->setText(power_->notes());
    servingCurve_->setResult(result);
    // A serving run has no step to break down: its curve is the answer.
    const bool serving = result.kind == "serve";
    breakdownChart_->setVisible(!serving);
    if (serving)
        tabs_->setCurrentWidget(servingPage_);
}

void ResultsPanel::showFailure(const WorkerFailure& failure) {
    message_->setStyleSheet(u"color: #a01818;"_s);
    message_->setTextFormat(Qt::PlainText);
    message_->setText(tr("The run failed: %1").arg(failure.text()));
    message_->show();
    details_->setPlainText(failure.stderrTail);
    details_->setVisible(!failure.stderrTail.trimmed().isEmpty());
}

void ResultsPanel::showNote(const QString& note) {
    message_->setStyleSheet(QString());
    message_->setTextFormat(Qt::PlainText);
    message_->setText(note);
    message_->setVisible(!note.isEmpty());
}

void ResultsPanel::setSweep(const std::vector<SweepOutcome>& outcomes, std::int64_t baseDevices) {
    sweep_->setOutcomes(outcomes, baseDevices);
}

void ResultsPanel::updateSweepPoint(int index, const SweepOutcome& outcome) {
    sweep_->setOutcome(index, outcome);
}

} // namespace choreo::ui
