#include "ui/itemmodels/servingcurvemodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

namespace choreo::ui {

ServingCurveModel::ServingCurveModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void ServingCurveModel::setResult(const models::RunResult& result) {
    beginResetModel();
    search_ = result.serving ? result.serving->search : models::RateSearch{};
    subject_ = tr("%1 x %2").arg(result.devices).arg(QString::fromStdString(result.device));
    endResetModel();
}

void ServingCurveModel::clear() {
    beginResetModel();
    search_ = {};
    subject_.clear();
    endResetModel();
}

std::optional<double> ServingCurveModel::ttftSlo_ms() const {
    if (!search_.ttft_slo_s)
        return std::nullopt;
    return *search_.ttft_slo_s * 1e3;
}

std::optional<double> ServingCurveModel::tpotSlo_ms() const {
    if (!search_.tpot_slo_s)
        return std::nullopt;
    return *search_.tpot_slo_s * 1e3;
}

int ServingCurveModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(search_.curve.size());
}

int ServingCurveModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

double ServingCurveModel::value(int row, int column) const {
    const models::LoadPoint& p = search_.curve[static_cast<std::size_t>(row)];
    switch (column) {
    case RateColumn:
        return p.rate_rps;
    case ThroughputColumn:
        return p.output_tokens_per_s;
    case TtftP50Column:
        return p.ttft_s.p50 * 1e3;
    case TtftP99Column:
        return p.ttft_s.p99 * 1e3;
    case TpotP50Column:
        return p.tpot_s.p50 * 1e3;
    case TpotP99Column:
        return p.tpot_s.p99 * 1e3;
    default:
        return 0.0;
    }
}

QVariant ServingCurveModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const models::LoadPoint& point = search_.curve[static_cast<std::size_t>(index.row())];
    if (index.column() == MeetsColumn) {
        if (role == ValueRole)
            return point.meets_slo;
        if (role == Qt::DisplayRole)
            return point.meets_slo ? tr("yes") : point.queue_grows ? tr("no: the queue grows") : tr("no");
        return {};
    }
    if (role == ValueRole)
        return value(index.row(), index.column());
    if (role == Qt::DisplayRole)
        return formatSignificant(value(index.row(), index.column()), 4);
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ServingCurveModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RateColumn:
        return tr("Rate (requests/s)");
    case ThroughputColumn:
        return tr("Throughput (output tokens/s)");
    case TtftP50Column:
        return tr("TTFT p50 (ms)");
    case TtftP99Column:
        return tr("TTFT p99 (ms)");
    case TpotP50Column:
        return tr("TPOT p50 (ms)");
    case TpotP99Column:
        return tr("TPOT p99 (ms)");
    case MeetsColumn:
        return tr("Within the SLOs");
    default:
        return {};
    }
}

} // namespace choreo::ui
