#include "ui/results/hardwarepanel.h"

#include "ui/charts/modelchartview.h"
#include "ui/charts/paretochart.h"
#include "ui/document.h"
#include "ui/itemmodels/hardwareoptionmodel.h"
#include "ui/reports/tablecsv.h"
#include "ui/results/hardwareoptions.h"
#include "ui/runs/sweeprunner.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

using namespace Qt::StringLiterals;

namespace choreo::ui {

HardwarePanel::HardwarePanel(Document* document, WorkerCommand worker, QWidget* parent)
    : QWidget(parent)
    , document_(document)
    , model_(new HardwareOptionModel(this))
    , runner_(new SweepRunner(std::move(worker), 0, this))
    , chart_(new ModelChartView(model_,
                                [](const QAbstractItemModel& m) {
                                    return createParetoChart(m,
                                                             {HardwareOptionModel::DeviceColumn,
                                                              HardwareOptionModel::TimeToTrainColumn,
                                                              HardwareOptionModel::CostColumn},
                                                             QObject::tr("Time to train vs total cost"));
                                }))
    , status_(new QLabel)
    , leftOut_(new QLabel)
    , leftOutArea_(new QScrollArea)
    , start_(new QPushButton(tr("Compare hardware"))) {
    setObjectName(u"hardwarePanel"_s);
    chart_->setObjectName(u"paretoChart"_s);
    status_->setObjectName(u"hardwareStatus"_s);
    status_->setWordWrap(true);
    status_->setText(tr("Runs the scenario on every catalog device that fits (analytical fidelity) and marks "
                        "the options no other beats on both time and cost."));
    leftOut_->setObjectName(u"hardwareLeftOut"_s);
    leftOut_->setWordWrap(true);
    leftOut_->setTextFormat(Qt::PlainText);
    leftOut_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    start_->setObjectName(u"compareHardwareButton"_s);
    auto* table = new QTableView;
    table->setObjectName(u"hardwareTable"_s);
    table->setModel(model_);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    addCsvExport(table, tr("hardware-options"));

    auto* top = new QHBoxLayout;
    top->addWidget(start_);
    top->addWidget(status_, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(chart_);
    split->addWidget(table);
    // Scrolls when many devices are left out, and the splitter lets it grow.
    leftOutArea_->setWidget(leftOut_);
    leftOutArea_->setWidgetResizable(true);
    leftOutArea_->setFrameShape(QFrame::NoFrame);
    split->addWidget(leftOutArea_);
    leftOutArea_->hide();
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 120, 80});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(start_, &QPushButton::clicked, this, &HardwarePanel::start);
    connect(runner_, &SweepRunner::pointStarted, this, [this](int index) {
        model_->setOutcome(index, runner_->outcomes()[static_cast<std::size_t>(index)]);
    });
    connect(runner_, &SweepRunner::pointFinished, this, [this](int index) {
        model_->setOutcome(index, runner_->outcomes()[static_cast<std::size_t>(index)]);
    });
    connect(runner_, &SweepRunner::finished, this, [this] {
        int front = 0;
        int failed = 0;
        for (int row = 0; row < model_->rowCount(); ++row) {
            front += model_->isPareto(row);
            failed += model_->outcomes()[static_cast<std::size_t>(row)].state == SweepOutcome::State::Failed;
        }
        finish(tr("%1 devices compared at analytical fidelity, %2 on the Pareto front (bold); %3 failed, %4 "
                  "devices cannot train this model at this size (listed below, with why).")
                   .arg(model_->rowCount())
                   .arg(front)
                   .arg(failed)
                   .arg(skipped_));
    });
}

HardwarePanel::~HardwarePanel() {
    // The enumeration reads the catalog: let it end before anything it reads may go.
    if (thread_) {
        thread_->disconnect(this);
        thread_->wait();
        delete thread_;
    }
}

void HardwarePanel::showLeftOut(const std::vector<SkippedOption>& skipped) {
    QStringList lines;
    for (const SkippedOption& s : skipped)
        lines << tr("%1: %2").arg(QString::fromStdString(s.device), QString::fromStdString(s.reason));
    leftOut_->setText(tr("Left out of the comparison (%1):\n%2").arg(skipped.size()).arg(lines.join(u'\n')));
    skipped_ = static_cast<int>(skipped.size());
    leftOutArea_->setVisible(!skipped.empty());
}

void HardwarePanel::finish(const QString& status) {
    running_ = false;
    status_->setText(status);
    start_->setEnabled(true);
    emit comparisonFinished();
}

void HardwarePanel::cancel() {
    if (!running_)
        return;
    ++generation_;
    runner_->cancel();
    finish(tr("Comparison cancelled."));
}

void HardwarePanel::start() {
    if (running_ || thread_)
        return;
    runner_->cancel();
    model_->clear();
    leftOutArea_->hide();
    running_ = true;
    start_->setEnabled(false);
    status_->setText(tr("Finding the devices that fit…"));
    const int generation = ++generation_;
    auto options = std::make_shared<HardwareOptions>();
    // The profile (its path made absolute for the workers) refines the device it names.
    const models::Scenario base = document_->runnableScenario();
    std::optional<std::string> calibrated;
    if (base.calibration) {
        calibrated = base.calibration->device;
        if (!calibrated)
            if (const auto profile = document_->loadProfile())
                calibrated = profile->device;
    }
    QThread* thread = QThread::create([options, base, calibrated, catalog = &document_->catalog()] {
        *options = hardwareOptions(base, *catalog, calibrated);
    });
    thread_ = thread;
    connect(thread, &QThread::finished, this, [this, thread, options, generation] {
        thread_ = nullptr;
        thread->deleteLater();
        if (generation != generation_)
            return;
        showLeftOut(options->skipped);
        if (options->points.empty()) {
            finish(tr("No catalog device can train this model at this pool size."));
            return;
        }
        std::vector<SweepOutcome> outcomes;
        QStringList layouts;
        for (const auto& p : options->points) {
            SweepOutcome o;
            o.label = QString::fromStdString(p.label);
            o.devices = p.devices;
            outcomes.push_back(o);
            const auto& l = p.scenario.workload.parallel;
            layouts << u"tp %1 · pp %2 · dp %3 · cp %4"_s.arg(l.tp).arg(l.pp).arg(l.dp).arg(l.cp);
        }
        model_->setOutcomes(std::move(outcomes), layouts);
        status_->setText(tr("Simulating %1 devices (analytical fidelity)…").arg(options->points.size()));
        runner_->start(std::move(options->points), u"analytical"_s);
    });
    thread->start();
}

} // namespace choreo::ui
