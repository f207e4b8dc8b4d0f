#pragma once

#include "models/result.h"
#include "ui/runs/sweepoutcome.h"
#include "ui/runs/workerfailure.h"

#include <QWidget>

#include <cstdint>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QPlainTextEdit;
class QTableView;
class QTabWidget;
QT_END_NAMESPACE

namespace choreo::ui {

class ModelChartView;
class PowerTraceModel;
class ResultSummaryModel;
class ServingCurveModel;
class SweepResultModel;
class TimelineModel;

// The answers of the latest run: summary table, step-time breakdown and scaling charts, sweep table, the
// step's timeline (Gantt) and power, a serving run's latency against throughput, and the worker's message
// when a run failed.
class ResultsPanel : public QWidget {
    Q_OBJECT

public:
    explicit ResultsPanel(QWidget* parent = nullptr);

    // Forgets the previous run's results (a new run starts).
    void clear();
    void showBaseResult(const models::RunResult& result);
    // The message and diagnostics of a failed run, with the worker's log as details.
    void showFailure(const WorkerFailure& failure);
    // A note above the results (cancelled, sweep progress); empty hides it.
    void showNote(const QString& note);
    void setSweep(const std::vector<SweepOutcome>& outcomes, std::int64_t baseDevices);
    void updateSweepPoint(int index, const SweepOutcome& outcome);

    // Adds a page beside the scaling chart and the sweep table (memory, hardware options).
    void addPage(QWidget* page, const QString& title);
    // Brings a page added with addPage() (or a built-in one) to the front.
    void showPage(QWidget* page);
    // Brings the page with this tab title to the front; false when there is none.
    bool showPageTitled(const QString& title);

    [[nodiscard]] ResultSummaryModel* summaryModel() const { return summary_; }
    [[nodiscard]] SweepResultModel* sweepModel() const { return sweep_; }
    [[nodiscard]] TimelineModel* timelineModel() const { return timeline_; }
    [[nodiscard]] PowerTraceModel* powerModel() const { return power_; }
    [[nodiscard]] ServingCurveModel* servingCurveModel() const { return servingCurve_; }
    // The text shown above the results (tests).
    [[nodiscard]] QString message() const;

private:
    void createServingPage();

    ResultSummaryModel* summary_;
    SweepResultModel* sweep_;
    TimelineModel* timeline_;
    PowerTraceModel* power_;
    ServingCurveModel* servingCurve_;
    QString fidelity_; // of the result on show, for the timeline's title
    QLabel* message_;
    QPlainTextEdit* details_;
    QTableView* summaryView_;
    QTableView* sweepView_;
    ModelChartView* breakdownChart_;
    ModelChartView* scalingChart_;
    ModelChartView* ganttChart_;
    ModelChartView* powerChart_;
    ModelChartView* servingChart_;
    QTableView* servingTable_;
    QWidget* servingPage_;
    QLabel* powerNotes_;
    QTabWidget* tabs_;
};

} // namespace choreo::ui
