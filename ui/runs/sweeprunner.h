#pragma once

#include "models/sweep.h"
#include "ui/runs/sweepoutcome.h"
#include "ui/runs/workercommand.h"

#include <QObject>
#include <QString>

#include <map>
#include <vector>

QT_BEGIN_NAMESPACE
class QTimer;
QT_END_NAMESPACE

namespace choreo::ui {

class WorkerRunner;

// Runs the points of a sweep, each in its own worker, at most maxParallel at a time. Outcomes keep
// the order of the points whatever order the workers finish in; a failing point is reported, not dropped.
class SweepRunner : public QObject {
    Q_OBJECT

public:
    // maxParallel <= 0 means QThread::idealThreadCount().
    explicit SweepRunner(WorkerCommand command, int maxParallel = 0, QObject* parent = nullptr);
    ~SweepRunner() override;

    // Starts every point (replacing a sweep in progress, which is cancelled without a signal). Points whose
    // result is already `known` (by index) are not simulated again; they finish, in turn, with it.
    void start(std::vector<models::SweepPoint> points, const QString& fidelity = QStringLiteral("flow"),
               std::map<std::size_t, models::RunResult> known = {});
    // Kills the running workers and marks the unfinished points Cancelled; emits cancelled().
    void cancel();

    [[nodiscard]] bool isRunning() const { return running_; }
    [[nodiscard]] int maxParallel() const { return maxParallel_; }
    [[nodiscard]] const std::vector<models::SweepPoint>& points() const { return points_; }
    // One outcome per point, in the order of points().
    [[nodiscard]] const std::vector<SweepOutcome>& outcomes() const { return outcomes_; }
    [[nodiscard]] int finishedCount() const { return finished_; }

signals:
    void pointStarted(int index);
    // outcomes()[index] is now Succeeded or Failed.
    void pointFinished(int index);
    // Every point has an outcome.
    void finished();
    void cancelled();

private:
    void launchMore();
    void complete(int index, SweepOutcome::State state);
    void stopAll();

    WorkerCommand command_;
    int maxParallel_ = 1;
    QTimer* emptyTimer_;
    QString fidelity_;
    std::vector<models::SweepPoint> points_;
    std::vector<SweepOutcome> outcomes_;
    std::map<std::size_t, models::RunResult> known_;
    std::map<int, WorkerRunner*> active_;
    std::size_t next_ = 0;
    int finished_ = 0;
    bool running_ = false;
    int generation_ = 0; // tells a restarted sweep from the one a signal belonged to
};

} // namespace choreo::ui
