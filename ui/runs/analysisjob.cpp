#include "ui/runs/analysisjob.h"

#include "ui/runs/sweeprunner.h"
#include "ui/runs/workerrunner.h"

#include <map>

namespace choreo::ui {

AnalysisJob::AnalysisJob(const WorkerCommand& command, int maxParallel, QObject* parent)
    : QObject(parent)
    , base_(new WorkerRunner(command, this))
    , sweep_(new SweepRunner(command, maxParallel, this)) {
    connect(base_, &WorkerRunner::progress, this, &AnalysisJob::baseProgress);
    connect(base_, &WorkerRunner::finished, this, &AnalysisJob::onBaseFinished);
    connect(base_, &WorkerRunner::failed, this, [this](const WorkerFailure& failure) {
        running_ = false;
        emit baseFailed(failure);
        emit finished(false);
    });
    connect(sweep_, &SweepRunner::pointStarted, this, &AnalysisJob::sweepPointStarted);
    connect(sweep_, &SweepRunner::pointFinished, this, &AnalysisJob::sweepPointFinished);
    connect(sweep_, &SweepRunner::finished, this, [this] {
        running_ = false;
        emit finished(true);
    });
}

AnalysisJob::~AnalysisJob() = default;

const std::vector<models::SweepPoint>& AnalysisJob::sweepPoints() const {
    return sweep_->points();
}

const std::vector<SweepOutcome>& AnalysisJob::sweepOutcomes() const {
    return sweep_->outcomes();
}

void AnalysisJob::start(const models::Scenario& scenario, const QString& fidelity) {
    scenario_ = scenario;
    fidelity_ = fidelity;
    baseResult_.reset();
    running_ = true;
    base_->start(scenario_, fidelity_);
}

void AnalysisJob::onBaseFinished(const models::RunResult& result) {
    baseResult_ = result;
    emit baseFinished(result);
    if (!running_)
        return; // cancelled from a slot
    auto points = models::scalingSweep(scenario_);
    const int count = static_cast<int>(points.size());
    // The base scenario is one of the sweep's points: reuse its result instead of simulating it twice.
    std::map<std::size_t, models::RunResult> known;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (points[i].scenario.workload == scenario_.workload &&
            points[i].scenario.cluster == scenario_.cluster)
            known.emplace(i, result);
    sweep_->start(std::move(points), fidelity_, std::move(known));
    emit sweepStarted(count);
}

void AnalysisJob::cancel() {
    if (!running_)
        return;
    running_ = false;
    // Quiet the runners first: this job's cancelled() is the only signal left to send.
    base_->disconnect(this);
    sweep_->disconnect(this);
    base_->cancel();
    sweep_->cancel();
    emit cancelled();
}

} // namespace choreo::ui
