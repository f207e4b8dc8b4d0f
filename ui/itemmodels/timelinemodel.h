#pragma once

#include "models/timeline.h"

#include <QAbstractTableModel>

namespace choreo::ui {

// The step timeline of a result (models::StepTimeline), one row per interval, stages in order. Feeds the
// Gantt chart and its CSV; empty when the result has no timeline.
class TimelineModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StageColumn,
        KindColumn,
        MicroBatchColumn,
        ChunkColumn,
        StartColumn,
        EndColumn,
        ColumnCount
    };

    explicit TimelineModel(QObject* parent = nullptr);

    void setTimeline(const models::StepTimeline& timeline);
    void clear();
    [[nodiscard]] const models::StepTimeline& timeline() const { return timeline_; }

    // The name a chart legend and a table show for an activity ("Forward", "Pipeline send/recv").
    static QString kindName(models::ActivityKind kind);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    // DisplayRole: text; ValueRole: the stage, micro-batch and chunk as integers (invalid where none), start
    // and end in ms; KeyRole on the kind: its machine name ("pipeline_comm").
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::size_t stage;
        std::size_t interval;
    };
    models::StepTimeline timeline_;
    std::vector<Row> rows_;
};

} // namespace choreo::ui
