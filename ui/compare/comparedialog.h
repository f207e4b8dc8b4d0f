#pragma once

#include "models/scenario.h"
#include "ui/runs/workercommand.h"

#include <QDialog>
#include <QList>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QTabWidget;
QT_END_NAMESPACE

namespace choreo::ui {

class CompareModel;
class Document;
class ModelChartView;
class SweepRunner;

// Two to four scenarios side by side (snapshots of the document, or files), run together in workers
// (at most QThread::idealThreadCount() at a time) at the chosen fidelity, with their key figures and,
// under them, overlaid charts (step-time breakdown, power over a step, time against cost, memory).
class CompareDialog : public QDialog {
    Q_OBJECT

public:
    CompareDialog(Document* document, WorkerCommand worker, QWidget* parent = nullptr);

    // Adds the document's scenario as it is now; false when the table is full.
    bool addSnapshot();
    // Adds a scenario file; false (with `error` naming the problem) when it cannot be read or the table
    // is full.
    bool addFile(const QString& path, QString& error);
    // Runs every scenario of the table ("analytical", "flow" or "packet").
    void runAll(const QString& fidelity);
    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] CompareModel* model() const { return model_; }
    // The charts under the table, in tab order: breakdown, power, time and cost, memory.
    [[nodiscard]] const QList<ModelChartView*>& charts() const { return charts_; }
    // Shows the chart tab `index` (0-3 as in charts()).
    void showChart(int index);
    // Shows the chart tab titled `title` ("Power", "Memory"...); false when there is none.
    bool showChartTitled(const QString& title);

signals:
    // Every scenario of a runAll() has a result or a failure.
    void runFinished();

private:
    void updateButtons();
    void addEntry(models::Scenario scenario, const QString& title, const QString& source);

    Document* document_;
    CompareModel* model_;
    SweepRunner* runner_;
    QTableView* view_;
    QTabWidget* chartTabs_;
    QList<ModelChartView*> charts_;
    QComboBox* fidelity_;
    QLabel* status_;
    QPushButton* addSnapshot_;
    QPushButton* addFile_;
    QPushButton* remove_;
    QPushButton* run_;
    int snapshots_ = 0;
};

} // namespace choreo::ui
