#pragma once

#include "models/result.h"

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

#include <functional>
#include <optional>
#include <vector>

namespace choreo::ui {

// The result of one run as (quantity, value) rows, grouped: headline results, step-time breakdown,
// memory per device. Read-only; the summary panel, the PDF report and tests read it.
class ResultSummaryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { QuantityColumn, ValueColumn, ColumnCount };
    enum class Group { Results, StepTime, Memory };

    explicit ResultSummaryModel(QObject* parent = nullptr);

    // Replaces the rows with those of `result`.
    void setResult(const models::RunResult& result);
    // No result: no rows.
    void clear();
    [[nodiscard]] const std::optional<models::RunResult>& result() const { return result_; }
    // Rows of one group, as (label, value text) pairs in display order; sub-items are indented.
    [[nodiscard]] std::vector<std::pair<QString, QString>> rowsOf(Group group) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    struct Row {
        Group group;
        QString key;
        QString label;
        QString text;
        QVariant value;
        // Shown in the table's narrow cell when set; `text` stays in its tooltip and in reports.
        QString shortText = {};
    };
    static std::vector<Row> rowsFor(const models::RunResult& r);
    // A serving result's rows: throughput, latency percentiles, the rate search, cost and energy a token.
    static std::vector<Row> servingRowsFor(const models::RunResult& r);
    // Memory per device and its parts (and what an IPU keeps off the chip).
    static void addMemoryRows(const models::RunResult& r, std::vector<Row>& rows);
    // A training run's time to train with failures: its spread, goodput, interruptions and checkpoints,
    // after the time to train.
    static void addWholeRunRows(const models::RunResult& r, std::vector<Row>& rows);
    // A training run's serving beside it (train here, serve there): its figures, and both costs together.
    static void addTrainAndServeRows(const models::RunResult& r, std::vector<Row>& rows);
    static void addPipelineRows(const models::RunResult& r, std::vector<Row>& rows,
                                const std::function<QString(double)>& share);
    // After the accuracy: the catalog figures the run used that were only announced, when there are any.
    static void addAnnouncedRow(const models::RunResult& r, std::vector<Row>& rows);
    // The data stage's batch, its parts and what sets its pace.
    static Row dataStageRow(const models::DataStageTimes& d);

    std::optional<models::RunResult> result_;
    std::vector<Row> rows_;
};

} // namespace choreo::ui
