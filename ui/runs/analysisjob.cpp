#include "ui/runs/analysisjob.h"

#include "ui/runs/runqueue.h"

namespace choreo::ui {

AnalysisJob::AnalysisJob(const WorkerCommand& command, int maxParallel, QObject* parent)
    : AnalysisJob(new RunQueue(command, maxParallel), parent) {
    queue_->setParent(this);
}

AnalysisJob::AnalysisJob(RunQueue* queue, QObject* parent)
    : QObject(parent)
    , queue_(queue) {
    connect(queue_, &RunQueue::runStarted, this, &AnalysisJob::onRunStarted);
    connect(queue_, &RunQueue::runFinished, this, &AnalysisJob::onRunFinished);
    connect(queue_, &RunQueue::runProgress, this, [this](int id, double fraction, const QString& stage) {
        if (running_ && id == baseId_)
            emit baseProgress(fraction, stage);
    });
}

AnalysisJob::~AnalysisJob() {
    if (running_) {
        running_ = false;
        cancelRuns();
    }
}

const std::vector<models::SweepPoint>& AnalysisJob::sweepPoints() const {
    return points_;
}

const std::vector<SweepOutcome>& AnalysisJob::sweepOutcomes() const {
    return outcomes_;
}

void AnalysisJob::start(const models::Scenario& scenario, const QString& fidelity) {
    scenario_ = scenario;
    fidelity_ = fidelity;
    baseResult_.reset();
    points_.clear();
    outcomes_.clear();
    pointOf_.clear();
    pointsOver_ = 0;
    running_ = true;
    baseId_ = queue_->enqueue(scenario_, QString::fromStdString(scenario_.name), fidelity_);
}

void AnalysisJob::onRunStarted(int id) {
    if (!running_)
        return;
    const auto it = pointOf_.find(id);
    if (it == pointOf_.end())
        return;
    outcomes_[it->second].state = SweepOutcome::State::Running;
    emit sweepPointStarted(static_cast<int>(it->second));
}

void AnalysisJob::onRunFinished(int id) {
    if (!running_)
        return;
    const QueuedRun* run = queue_->find(id);
    if (!run)
        return;
    if (id == baseId_) {
        switch (run->state) {
        case QueuedRun::State::Succeeded:
            onBaseFinished(*run->result);
            break;
        case QueuedRun::State::Failed:
            running_ = false;
            emit baseFailed(*run->failure);
            emit finished(false);
            break;
        default: // cancelled in the run queue
            running_ = false;
            cancelRuns();
            emit cancelled();
            break;
        }
        return;
    }
    const auto it = pointOf_.find(id);
    if (it == pointOf_.end())
        return;
    auto& outcome = outcomes_[it->second];
    switch (run->state) {
    case QueuedRun::State::Succeeded:
        outcome.state = SweepOutcome::State::Succeeded;
        outcome.result = run->result;
        break;
    case QueuedRun::State::Failed:
        outcome.state = SweepOutcome::State::Failed;
        outcome.failure = run->failure;
        break;
    default:
        outcome.state = SweepOutcome::State::Cancelled;
        break;
    }
    ++pointsOver_;
    emit sweepPointFinished(static_cast<int>(it->second));
    if (running_ && pointsOver_ == static_cast<int>(points_.size())) {
        running_ = false;
        emit finished(true);
    }
}

void AnalysisJob::onBaseFinished(const models::RunResult& result) {
    baseResult_ = result;
    emit baseFinished(result);
    if (!running_)
        return; // cancelled from a slot
    points_ = models::scalingSweep(scenario_);
    outcomes_.clear();
    for (const auto& p : points_) {
        SweepOutcome o;
        o.label = QString::fromStdString(p.label);
        o.devices = p.devices;
        outcomes_.push_back(std::move(o));
    }
    // The base scenario is usually one of the points: the queue's cache answers it without a worker.
    const QString batch = tr("Scaling sweep of %1").arg(QString::fromStdString(scenario_.name));
    for (std::size_t i = 0; i < points_.size(); ++i)
        pointOf_[queue_->enqueue(points_[i].scenario, QString::fromStdString(points_[i].label), fidelity_,
                                 batch)] = i;
    emit sweepStarted(static_cast<int>(points_.size()));
    if (running_ && points_.empty()) {
        running_ = false;
        emit finished(true);
    }
}

void AnalysisJob::cancelRuns() {
    if (!queue_)
        return;
    queue_->cancel(baseId_);
    for (const auto& [id, index] : pointOf_)
        queue_->cancel(id);
    for (auto& o : outcomes_)
        if (o.state == SweepOutcome::State::Pending || o.state == SweepOutcome::State::Running)
            o.state = SweepOutcome::State::Cancelled;
}

void AnalysisJob::cancel() {
    if (!running_)
        return;
    running_ = false;
    cancelRuns();
    emit cancelled();
}

} // namespace choreo::ui
