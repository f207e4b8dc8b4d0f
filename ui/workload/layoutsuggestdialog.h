#pragma once

#include "models/scenario.h"
#include "ui/runs/workercommand.h"
#include "ui/workload/layoutsearch.h"

#include <QDialog>

#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QThread;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;
class LayoutSuggestionModel;
class SweepRunner;

// Suggests parallel layouts for the training pool: enumerates those that fit (on a worker thread),
// pre-ranks them by a closed-form estimate, runs the best few through analytical-fidelity workers
// (at most QThread::idealThreadCount() at a time) and lists them by simulated step time. Apply is one
// undoable edit. Never blocks the GUI thread.
class LayoutSuggestDialog : public QDialog {
    Q_OBJECT

public:
    // Layouts simulated after pre-ranking.
    static constexpr int kSimulatedCandidates = 12;

    LayoutSuggestDialog(Document* document, WorkerCommand worker, QWidget* parent = nullptr);
    ~LayoutSuggestDialog() override;

    // Starts over from the document's scenario as it is now; a search in progress is dropped.
    void start();
    [[nodiscard]] bool isSearching() const;
    [[nodiscard]] LayoutSuggestionModel* model() const { return model_; }
    // Layouts that fit, before any simulation (all of them, not just those simulated).
    [[nodiscard]] int fittingLayouts() const { return fitting_; }
    // Applies the layout of model row `row` to the document; false when the scenario changed since.
    bool apply(int row);

signals:
    // Every simulated candidate has an outcome (or there was nothing to simulate).
    void searchFinished();

private:
    void onEnumerated(std::vector<LayoutCandidate> candidates);
    void onScenarioChanged();
    [[nodiscard]] bool isStale() const;
    void updateButtons();

    Document* document_;
    LayoutSuggestionModel* model_;
    QSortFilterProxyModel* sorted_;
    SweepRunner* runner_;
    QTableView* view_;
    QLabel* status_;
    QPushButton* apply_;
    QPushButton* again_;
    QThread* thread_ = nullptr;
    models::Scenario base_;
    int generation_ = 0;
    int fitting_ = 0;
    bool searching_ = false;
};

} // namespace choreo::ui
