#pragma once

#include "models/result.h"
#include "models/scenario.h"
#include "ui/runs/workercommand.h"
#include "ui/runs/workerfailure.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace choreo::ui {

class WorkerRunner;

// One entry of the run queue.
struct QueuedRun {
    enum class State { Queued, Running, Succeeded, Failed, Cancelled };

    int id = 0;
    QString label;
    QString batch; // the sweep or job it belongs to; empty for a single run
    models::Scenario scenario;
    QString fidelity;
    QByteArray key; // RunQueue::cacheKey; empty when not cached (a scenario with a calibration profile)
    State state = State::Queued;
    double progress = 0; // 0..1 while running, 1 when over
    QString stage;
    bool cached = false; // the result came from the cache, no worker ran
    std::optional<models::RunResult> result;
    std::optional<WorkerFailure> failure;

    [[nodiscard]] bool isOver() const {
        return state == State::Succeeded || state == State::Failed || state == State::Cancelled;
    }
};

// Every simulation the desktop asks for: runs wait in order and execute as `choreo-sim worker`
// processes (WorkerRunner), at most maxParallel() at a time. Results are cached by scenario content
// (cacheKey), so a run of a scenario already simulated finishes at once, marked cached; scenarios that
// name a calibration profile file are always simulated. Every
// enqueue() ends with exactly one runFinished(), emitted from the event loop or from cancel().
class RunQueue : public QObject {
    Q_OBJECT

public:
    // maxParallel <= 0 means QThread::idealThreadCount().
    explicit RunQueue(WorkerCommand command, int maxParallel = 0, QObject* parent = nullptr);
    // Kills the workers still running.
    ~RunQueue() override;

    // Queues a run and returns its id; a cached result finishes it on the next event-loop pass.
    int enqueue(const models::Scenario& scenario, const QString& label,
                const QString& fidelity = QStringLiteral("flow"), const QString& batch = {});
    // Cancels one queued or running run (its worker is killed); nothing when it is over or unknown.
    void cancel(int id);
    // Cancels every run of `batch`, or every run when `batch` is empty.
    void cancelAll(const QString& batch = {});
    // Forgets the runs that are over (their results stay in the cache).
    void removeFinished();

    [[nodiscard]] int count() const { return static_cast<int>(runs_.size()); }
    [[nodiscard]] const QueuedRun& at(int row) const { return runs_[static_cast<std::size_t>(row)]; }
    // The row of run `id`, or -1.
    [[nodiscard]] int rowOf(int id) const;
    [[nodiscard]] const QueuedRun* find(int id) const;
    [[nodiscard]] int runningCount() const { return static_cast<int>(active_.size()); }
    [[nodiscard]] int waitingCount() const;
    [[nodiscard]] int maxParallel() const { return maxParallel_; }
    // The most workers that ever ran at once (tests check the bound with it).
    [[nodiscard]] int peakRunning() const { return peakRunning_; }
    [[nodiscard]] std::size_t cacheSize() const { return cache_.size(); }
    void clearCache();

    // SHA-256 (hex) of the canonical scenario JSON (its name left out: it does not change the result),
    // the fidelity and the Choreo version.
    static QByteArray cacheKey(const models::Scenario& scenario, const QString& fidelity);

signals:
    void aboutToAddRun(int row); // row == count(): the run is appended next
    void runAdded(int row);      // appended: row == count() - 1
    void runChanged(int row);
    void aboutToRemoveRuns();
    void runsRemoved();
    void runStarted(int id);
    void runProgress(int id, double fraction, const QString& stage);
    // The run is over: at(rowOf(id)).state says how.
    void runFinished(int id);

private:
    void launchMore();
    void start(QueuedRun& run);
    void complete(int id, QueuedRun::State state);
    void release(int id);
    void remember(const QByteArray& key, const models::RunResult& result);

    WorkerCommand command_;
    int maxParallel_ = 1;
    int peakRunning_ = 0;
    int nextId_ = 1;
    std::vector<QueuedRun> runs_;
    std::map<int, std::size_t> rows_;
    std::map<int, WorkerRunner*> active_;
    std::map<QByteArray, models::RunResult> cache_;
    std::deque<QByteArray> cacheOrder_; // oldest first, for the size bound
};

} // namespace choreo::ui
