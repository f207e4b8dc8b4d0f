#pragma once

#include <QDockWidget>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QTableView;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;
class RunQueue;
class RunQueueModel;

// The run queue as a dock: every run with its state, a progress bar and Cancel; Cancel all, Clear
// finished; and sweeps of the document's scenario over device count, device type (every catalog device
// that fits) and parallel layout, queued as one batch each.
class RunQueueDock final : public QDockWidget {
    Q_OBJECT

public:
    RunQueueDock(RunQueue* queue, Document* document, QWidget* parent = nullptr);

    [[nodiscard]] RunQueueModel* model() const { return model_; }
    [[nodiscard]] QTableView* table() const { return table_; }

    enum class Sweep { DeviceCount, DeviceType, Layout };
    // Queues a sweep of the document's scenario at the chosen fidelity; returns the runs queued.
    int queueSweep(Sweep sweep);

private:
    void updateSummary();

    RunQueue* queue_;
    Document* document_;
    RunQueueModel* model_;
    QTableView* table_;
    QComboBox* fidelity_;
    QLabel* summary_;
};

} // namespace choreo::ui
