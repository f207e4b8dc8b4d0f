#pragma once

#include "ui/runs/workercommand.h"

#include <QWidget>

#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QScrollArea;
class QThread;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;
class HardwareOptionModel;
class ModelChartView;
class SweepRunner;
struct SkippedOption;

// Hardware options: the scenario on every catalog device that fits, each run in an analytical-fidelity
// worker (at most QThread::idealThreadCount() at a time), as time to train against total cost with the
// Pareto front marked, and as a table; the devices left out are listed below it, each with why.
class HardwarePanel : public QWidget {
    Q_OBJECT

public:
    HardwarePanel(Document* document, WorkerCommand worker, QWidget* parent = nullptr);
    ~HardwarePanel() override;

    // Starts over from the document's scenario; a comparison in progress is dropped.
    void start();
    void cancel();
    [[nodiscard]] bool isRunning() const { return running_; }
    [[nodiscard]] HardwareOptionModel* model() const { return model_; }
    [[nodiscard]] ModelChartView* chart() const { return chart_; }

signals:
    // Every option has an outcome (or none fits).
    void comparisonFinished();

private:
    void finish(const QString& status);
    void showLeftOut(const std::vector<SkippedOption>& skipped);

    Document* document_;
    HardwareOptionModel* model_;
    SweepRunner* runner_;
    ModelChartView* chart_;
    QLabel* status_;
    QLabel* leftOut_;          // the devices that cannot train the scenario, each with why
    QScrollArea* leftOutArea_; // shows leftOut_, hidden while no device is left out
    QPushButton* start_;
    QThread* thread_ = nullptr;
    int generation_ = 0;
    int skipped_ = 0;
    bool running_ = false;
};

} // namespace choreo::ui
