#pragma once

#include "ui/scenarioform.h"

#include <cstddef>
#include <functional>
#include <optional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
QT_END_NAMESPACE

namespace choreo::ui {

// The serve stage (workload.stages, kind "serve"): engine, weight and KV-cache precision, each replica's
// tensor, pipeline and expert parallelism, the request stream (arrival, rate, duration or count, mean
// lengths), the SLOs on p99 TTFT and TPOT, a target rate and the horizon. Hidden when the workload serves
// nothing. Ranges are the file's (models/servestageio.h); the document's checks mark what does not fit.
class ServeEditor final : public ScenarioForm {
    Q_OBJECT

public:
    ServeEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

protected:
    void refresh() override;

private:
    void createWidgets();
    void layOut();
    void connectEdits();
    // Ties each widget to its JSON path under the stage at `index` (again when the stage moves).
    void markPaths(std::size_t index);
    // One undoable edit of the serve stage (nothing when the workload has none).
    void changeStage(int mergeId, const QString& description,
                     const std::function<void(models::ServeStage&)>& mutate);

    QComboBox* engine_;
    QComboBox* weights_;
    QComboBox* kvCache_;
    QSpinBox* tp_;
    QSpinBox* pp_;
    QSpinBox* ep_;
    QSpinBox* replicas_; // 0: as many as the pool holds
    QComboBox* arrival_;
    QDoubleSpinBox* rate_;
    QDoubleSpinBox* duration_;
    QSpinBox* count_; // 0: as many as rate x duration
    QSpinBox* seed_;
    QDoubleSpinBox* inputMean_;
    QDoubleSpinBox* outputMean_;
    QDoubleSpinBox* ttftSlo_; // ms; 0: none
    QDoubleSpinBox* tpotSlo_;
    QDoubleSpinBox* targetRate_; // requests/s; 0: none
    QDoubleSpinBox* horizon_;    // months
    std::optional<std::size_t> markedIndex_;
};

} // namespace choreo::ui
