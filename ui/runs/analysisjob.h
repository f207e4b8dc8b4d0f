#pragma once

#include "models/result.h"
#include "models/scenario.h"
#include "models/sweep.h"
#include "ui/runs/sweepoutcome.h"
#include "ui/runs/workercommand.h"
#include "ui/runs/workerfailure.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <map>
#include <optional>
#include <vector>

namespace choreo::ui {

class RunQueue;

// One analysis of a scenario: the base run, then its scaling sweep (models::scalingSweep), every run
// through a RunQueue (parallel workers, cached results). The desktop program and `choreo-sim report`
// share it.
class AnalysisJob : public QObject {
    Q_OBJECT

public:
    // With a queue of its own; maxParallel bounds the sweep's workers (<= 0: QThread::idealThreadCount()).
    explicit AnalysisJob(const WorkerCommand& command, int maxParallel = 0, QObject* parent = nullptr);
    // On a shared queue (the desktop's run queue), which must outlive the job's runs.
    explicit AnalysisJob(RunQueue* queue, QObject* parent = nullptr);
    // Cancels the job's runs that are not over.
    ~AnalysisJob() override;

    // Starts the base run; the sweep follows when it succeeds. Call once per job.
    void start(const models::Scenario& scenario, const QString& fidelity = QStringLiteral("flow"));
    // Kills every worker of this job and emits cancelled(); does nothing once the job is over.
    void cancel();

    [[nodiscard]] const models::Scenario& scenario() const { return scenario_; }
    [[nodiscard]] const std::optional<models::RunResult>& baseResult() const { return baseResult_; }
    [[nodiscard]] const std::vector<models::SweepPoint>& sweepPoints() const;
    // One outcome per sweep point, in order; empty until the sweep starts.
    [[nodiscard]] const std::vector<SweepOutcome>& sweepOutcomes() const;
    [[nodiscard]] bool isRunning() const { return running_; }

signals:
    void baseProgress(double fraction, const QString& stage);
    void baseFinished(const choreo::models::RunResult& result);
    void baseFailed(const choreo::ui::WorkerFailure& failure);
    // The sweep's points are known (sweepPoints()); their outcomes follow one by one.
    void sweepStarted(int points);
    void sweepPointStarted(int index);
    void sweepPointFinished(int index);
    // The job is over: ok when the base run succeeded (failed sweep points do not make it fail).
    void finished(bool ok);
    void cancelled();

private:
    void onRunStarted(int id);
    void onRunFinished(int id);
    void onBaseFinished(const models::RunResult& result);
    void cancelRuns();

    QPointer<RunQueue> queue_;
    int baseId_ = 0;
    std::map<int, std::size_t> pointOf_; // run id -> sweep point
    std::vector<models::SweepPoint> points_;
    std::vector<SweepOutcome> outcomes_;
    int pointsOver_ = 0;
    models::Scenario scenario_;
    QString fidelity_;
    std::optional<models::RunResult> baseResult_;
    bool running_ = false;
};

} // namespace choreo::ui
