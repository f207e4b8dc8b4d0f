#include "ui/runs/runqueue.h"

#include "models/scenarioio.h"
#include "ui/runs/workerrunner.h"

#include <QCryptographicHash>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace choreo::ui {

namespace {
// Results kept; a result is a few kilobytes.
constexpr std::size_t kCacheLimit = 4096;
} // namespace

RunQueue::RunQueue(WorkerCommand command, int maxParallel, QObject* parent)
    : QObject(parent)
    , command_(std::move(command))
    , maxParallel_(maxParallel > 0 ? maxParallel : std::max(1, QThread::idealThreadCount())) {}

RunQueue::~RunQueue() {
    for (auto& [id, runner] : active_) {
        runner->disconnect(this);
        delete runner; // kills its worker
    }
}

QByteArray RunQueue::cacheKey(const models::Scenario& scenario, const QString& fidelity) {
    models::Scenario anonymous = scenario;
    anonymous.name.clear();
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QByteArray::fromStdString(models::serializeScenario(anonymous)));
    hash.addData(QByteArrayView("\nfidelity="));
    hash.addData(fidelity.toUtf8());
    hash.addData(QByteArrayView("\nchoreo=" CHOREO_VERSION));
    return hash.result().toHex();
}

int RunQueue::rowOf(int id) const {
    const auto it = rows_.find(id);
    return it == rows_.end() ? -1 : static_cast<int>(it->second);
}

const QueuedRun* RunQueue::find(int id) const {
    const int row = rowOf(id);
    return row < 0 ? nullptr : &runs_[static_cast<std::size_t>(row)];
}

int RunQueue::waitingCount() const {
    int n = 0;
    for (const auto& r : runs_)
        n += r.state == QueuedRun::State::Queued;
    return n;
}

int RunQueue::enqueue(const models::Scenario& scenario, const QString& label, const QString& fidelity,
                      const QString& batch) {
    QueuedRun run;
    run.id = nextId_++;
    run.label = label;
    run.batch = batch;
    run.scenario = scenario;
    run.fidelity = fidelity;
    // A calibration profile is a file the key does not cover (it may be recalibrated): not cached.
    if (!scenario.calibration)
        run.key = cacheKey(scenario, fidelity);
    const int id = run.id;
    emit aboutToAddRun(count());
    rows_[id] = runs_.size();
    runs_.push_back(std::move(run));
    emit runAdded(count() - 1);
    if (!runs_.back().key.isEmpty() && cache_.count(runs_.back().key)) {
        // Finish from the event loop, as a worker's answer would arrive, so that a caller connecting
        // after enqueue() still hears about it.
        runs_.back().state = QueuedRun::State::Running;
        QTimer::singleShot(0, this, [this, id] {
            const int row = rowOf(id);
            if (row < 0 || runs_[static_cast<std::size_t>(row)].isOver())
                return;
            auto& r = runs_[static_cast<std::size_t>(row)];
            const auto hit = cache_.find(r.key);
            if (hit == cache_.end()) { // cleared meanwhile: simulate after all
                r.state = QueuedRun::State::Queued;
                launchMore();
                return;
            }
            r.cached = true;
            r.result = hit->second;
            r.result->scenario = r.scenario.name;
            complete(id, QueuedRun::State::Succeeded);
        });
        return id;
    }
    launchMore();
    return id;
}

void RunQueue::launchMore() {
    for (auto& run : runs_) {
        if (static_cast<int>(active_.size()) >= maxParallel_)
            return;
        if (run.state == QueuedRun::State::Queued)
            start(run);
    }
}

void RunQueue::start(QueuedRun& run) {
    const int id = run.id;
    auto* runner = new WorkerRunner(command_, this);
    active_[id] = runner;
    peakRunning_ = std::max(peakRunning_, static_cast<int>(active_.size()));
    run.state = QueuedRun::State::Running;
    run.progress = 0;
    connect(runner, &WorkerRunner::progress, this, [this, id](double fraction, const QString& stage) {
        const int row = rowOf(id);
        if (row < 0)
            return;
        auto& r = runs_[static_cast<std::size_t>(row)];
        r.progress = std::clamp(fraction, 0.0, 1.0);
        r.stage = stage;
        emit runChanged(row);
        emit runProgress(id, r.progress, stage);
    });
    connect(runner, &WorkerRunner::finished, this, [this, id](const models::RunResult& result) {
        const int row = rowOf(id);
        if (row < 0)
            return;
        auto& r = runs_[static_cast<std::size_t>(row)];
        r.result = result;
        if (!r.key.isEmpty())
            remember(r.key, result);
        complete(id, QueuedRun::State::Succeeded);
    });
    connect(runner, &WorkerRunner::failed, this, [this, id](const WorkerFailure& failure) {
        const int row = rowOf(id);
        if (row < 0)
            return;
        runs_[static_cast<std::size_t>(row)].failure = failure;
        complete(id, QueuedRun::State::Failed);
    });
    runner->start(run.scenario, run.fidelity);
    emit runChanged(rowOf(id));
    emit runStarted(id);
}

void RunQueue::release(int id) {
    if (auto it = active_.find(id); it != active_.end()) {
        it->second->disconnect(this);
        it->second->deleteLater(); // we may be inside one of its signals; deleting it kills its worker
        active_.erase(it);
    }
}

void RunQueue::complete(int id, QueuedRun::State state) {
    release(id);
    const int row = rowOf(id);
    if (row >= 0) {
        auto& r = runs_[static_cast<std::size_t>(row)];
        r.state = state;
        if (state == QueuedRun::State::Succeeded)
            r.progress = 1;
        emit runChanged(row);
        emit runFinished(id);
    }
    launchMore();
}

void RunQueue::cancel(int id) {
    const int row = rowOf(id);
    if (row < 0 || runs_[static_cast<std::size_t>(row)].isOver())
        return;
    if (auto it = active_.find(id); it != active_.end()) {
        it->second->disconnect(this);
        delete it->second; // kills the worker now
        active_.erase(it);
    }
    complete(id, QueuedRun::State::Cancelled);
}

void RunQueue::cancelAll(const QString& batch) {
    std::vector<int> ids;
    for (const auto& r : runs_)
        if (!r.isOver() && (batch.isEmpty() || r.batch == batch))
            ids.push_back(r.id);
    // Waiting runs first, so that cancelling a running one does not start the next.
    std::stable_partition(ids.begin(), ids.end(), [this](int id) { return !active_.count(id); });
    for (int id : ids)
        cancel(id);
}

void RunQueue::removeFinished() {
    emit aboutToRemoveRuns();
    std::vector<QueuedRun> kept;
    for (auto& r : runs_)
        if (!r.isOver())
            kept.push_back(std::move(r));
    runs_ = std::move(kept);
    rows_.clear();
    for (std::size_t i = 0; i < runs_.size(); ++i)
        rows_[runs_[i].id] = i;
    emit runsRemoved();
}

void RunQueue::remember(const QByteArray& key, const models::RunResult& result) {
    if (!cache_.count(key))
        cacheOrder_.push_back(key);
    cache_[key] = result;
    while (cache_.size() > kCacheLimit) {
        cache_.erase(cacheOrder_.front());
        cacheOrder_.pop_front();
    }
}

void RunQueue::clearCache() {
    cache_.clear();
    cacheOrder_.clear();
}

} // namespace choreo::ui
