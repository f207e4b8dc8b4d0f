#pragma once

#include "models/result.h"

#include <QAbstractTableModel>

#include <optional>

namespace choreo::ui {

// A serving result's latency against throughput: one row per Poisson load the rate search simulated
// (models::RateSearch::curve), by offered rate, with the SLOs it searched under. Feeds the serving curve
// chart; empty for a training result or a serving run without SLOs.
class ServingCurveModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        RateColumn,       // requests/s offered
        ThroughputColumn, // output tokens/s achieved
        TtftP50Column,    // ms
        TtftP99Column,
        TpotP50Column,
        TpotP99Column,
        MeetsColumn, // "yes" / "no"; ValueRole: bool
        ColumnCount
    };

    explicit ServingCurveModel(QObject* parent = nullptr);

    void setResult(const models::RunResult& result);
    void clear();

    // The SLOs the search met or missed, in ms; nullopt where the scenario set none.
    [[nodiscard]] std::optional<double> ttftSlo_ms() const;
    [[nodiscard]] std::optional<double> tpotSlo_ms() const;
    // The highest rate within the SLOs and its throughput (output tokens/s); nullopt when none met them.
    [[nodiscard]] std::optional<double> maxRate_rps() const { return search_.max_rate_rps; }
    [[nodiscard]] double throughputAtMax() const { return search_.output_tokens_per_s_at_max; }
    // What the chart's title names: the device and the scenario.
    [[nodiscard]] QString subject() const { return subject_; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    // ValueRole: the number (requests/s, tokens/s, ms) or, for MeetsColumn, a bool.
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] double value(int row, int column) const;

    models::RateSearch search_;
    QString subject_;
};

} // namespace choreo::ui
