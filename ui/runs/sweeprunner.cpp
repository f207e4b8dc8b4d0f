#include "ui/runs/sweeprunner.h"

#include "ui/runs/workerrunner.h"

#include <QThread>
#include <QTimer>

namespace choreo::ui {

SweepRunner::SweepRunner(WorkerCommand command, int maxParallel, QObject* parent)
    : QObject(parent)
    , command_(std::move(command))
    , maxParallel_(maxParallel > 0 ? maxParallel : std::max(1, QThread::idealThreadCount()))
    , emptyTimer_(new QTimer(this)) {
    // An empty sweep finishes on the next event loop pass, so that a caller connecting after start()
    // still hears about it.
    emptyTimer_->setSingleShot(true);
    emptyTimer_->setInterval(0);
    connect(emptyTimer_, &QTimer::timeout, this, [this] {
        if (running_ && points_.empty()) {
            running_ = false;
            emit finished();
        }
    });
}

SweepRunner::~SweepRunner() {
    stopAll();
}

void SweepRunner::stopAll() {
    for (auto& [index, runner] : active_) {
        runner->disconnect(this);
        delete runner; // kills its worker
    }
    active_.clear();
}

void SweepRunner::start(std::vector<models::SweepPoint> points, const QString& fidelity,
                        std::map<std::size_t, models::RunResult> known) {
    stopAll();
    ++generation_;
    points_ = std::move(points);
    known_ = std::move(known);
    fidelity_ = fidelity;
    outcomes_.clear();
    outcomes_.reserve(points_.size());
    for (const auto& p : points_) {
        SweepOutcome o;
        o.label = QString::fromStdString(p.label);
        o.devices = p.devices;
        outcomes_.push_back(std::move(o));
    }
    next_ = 0;
    finished_ = 0;
    running_ = true;
    if (points_.empty()) {
        emptyTimer_->start();
        return;
    }
    launchMore();
}

void SweepRunner::launchMore() {
    while (running_ && static_cast<int>(active_.size()) < maxParallel_ && next_ < points_.size()) {
        const int index = static_cast<int>(next_++);
        if (auto it = known_.find(static_cast<std::size_t>(index)); it != known_.end()) {
            // Already simulated: finish it from the event loop, as a worker's answer would arrive.
            outcomes_[index].state = SweepOutcome::State::Running;
            outcomes_[index].result = it->second;
            outcomes_[index].result->scenario = points_[static_cast<std::size_t>(index)].scenario.name;
            const int generation = generation_;
            QTimer::singleShot(0, this, [this, index, generation] {
                if (running_ && generation == generation_)
                    complete(index, SweepOutcome::State::Succeeded);
            });
            emit pointStarted(index);
            continue;
        }
        auto* runner = new WorkerRunner(command_, this);
        active_[index] = runner;
        outcomes_[index].state = SweepOutcome::State::Running;
        connect(runner, &WorkerRunner::finished, this, [this, index](const models::RunResult& result) {
            outcomes_[index].result = result;
            complete(index, SweepOutcome::State::Succeeded);
        });
        connect(runner, &WorkerRunner::failed, this, [this, index](const WorkerFailure& failure) {
            outcomes_[index].failure = failure;
            complete(index, SweepOutcome::State::Failed);
        });
        runner->start(points_[index].scenario, fidelity_);
        emit pointStarted(index);
    }
}

void SweepRunner::complete(int index, SweepOutcome::State state) {
    if (auto it = active_.find(index); it != active_.end()) {
        it->second->disconnect(this);
        it->second->deleteLater(); // we are inside one of its signals
        active_.erase(it);
    }
    outcomes_[index].state = state;
    ++finished_;
    const int generation = generation_;
    emit pointFinished(index);
    if (!running_ || generation != generation_)
        return; // a slot of pointFinished cancelled or restarted the sweep
    if (finished_ == static_cast<int>(points_.size())) {
        running_ = false;
        emit finished();
        return;
    }
    launchMore();
}

void SweepRunner::cancel() {
    if (!running_)
        return;
    stopAll();
    ++generation_;
    for (auto& o : outcomes_)
        if (o.state == SweepOutcome::State::Pending || o.state == SweepOutcome::State::Running)
            o.state = SweepOutcome::State::Cancelled;
    running_ = false;
    emit cancelled();
}

} // namespace choreo::ui
