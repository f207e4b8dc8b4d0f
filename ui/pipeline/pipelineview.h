#pragma once

#include "models/result.h"
#include "models/scenario.h"
#include "ui/itemmodels/pipelinediagram.h"

#include <QWidget>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QToolButton;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;

// The workload as a pipeline: one box per pool with the stages it runs, arrows labelled with what crosses
// between pools (bytes/s, samples/s), a busy bar per pool and the bottleneck highlighted, from the latest
// result when it belongs to the scenario on show. A device dragged from the palette onto a stage makes a
// pool of it that takes the stage; the Stages menu adds and removes stages. Every edit is one undo step.
class PipelineCanvas final : public QWidget {
    Q_OBJECT

public:
    explicit PipelineCanvas(Document* document, QWidget* parent = nullptr);

    void setDiagram(PipelineDiagram diagram);
    [[nodiscard]] const PipelineDiagram& diagram() const { return diagram_; }
    // Where each drawn stage is, for drops (and tests).
    struct StageHit {
        QRect rect;
        StageKind kind;
        bool host; // on the training nodes' host CPUs
    };
    [[nodiscard]] std::vector<StageHit> stageHits() const;
    // The edit of dropping catalog device `deviceId` at `at`: applied to the document, or false with a
    // message in `error` (nothing changes).
    bool dropDevice(const QString& deviceId, QPoint at, QString& error);

    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

signals:
    void dropRefused(const QString& why);

protected:
    void paintEvent(QPaintEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    [[nodiscard]] std::vector<QRect> poolRects() const;
    void paintPool(QPainter& painter, const PipelinePool& pool, const QRect& rect) const;
    void paintArrow(QPainter& painter, const PipelineArrow& arrow, const std::vector<QRect>& rects) const;

    Document* document_;
    PipelineDiagram diagram_;
};

class PipelineView final : public QWidget {
    Q_OBJECT

public:
    explicit PipelineView(Document* document, QWidget* parent = nullptr);

    // The latest run's result and the scenario it ran; shown while the document still holds that scenario.
    void setResult(std::optional<models::RunResult> result, std::optional<models::Scenario> scenario);
    [[nodiscard]] PipelineCanvas* canvas() const { return canvas_; }
    // Adds or removes a stage through the document (the Stages menu's actions); false with `error`.
    bool addStage(StageKind kind, QString& error);
    bool removeStage(StageKind kind, QString& error);

private:
    void rebuild();

    Document* document_;
    PipelineCanvas* canvas_;
    QLabel* summary_;
    QToolButton* stagesButton_;
    std::optional<models::RunResult> result_;
    std::optional<models::Scenario> resultScenario_;
};

} // namespace choreo::ui
