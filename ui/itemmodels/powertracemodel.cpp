#include "ui/itemmodels/powertracemodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

namespace choreo::ui {

PowerTraceModel::PowerTraceModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void PowerTraceModel::setResult(const models::RunResult& result) {
    beginResetModel();
    trace_ = result.power;
    energyPerRun_kWh_ = trace_.empty() ? 0.0 : result.energy_kWh;
    endResetModel();
}

void PowerTraceModel::clear() {
    beginResetModel();
    trace_ = {};
    energyPerRun_kWh_ = 0;
    endResetModel();
}

QString PowerTraceModel::notes() const {
    if (trace_.empty())
        return {};
    return tr("CPUs: %1. Network: %2.")
        .arg(QString::fromStdString(trace_.cpus_note), QString::fromStdString(trace_.network_note));
}

int PowerTraceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(trace_.bins());
}

int PowerTraceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

double PowerTraceModel::value(int row, int column) const {
    const auto r = static_cast<std::size_t>(row);
    switch (column) {
    case StartColumn:
        return trace_.time_s[r] * 1e3;
    case EndColumn:
        return trace_.time_s[r + 1] * 1e3;
    case AcceleratorsColumn:
        return trace_.accelerators_W[r] / 1e3;
    case CpusColumn:
        return trace_.cpus_W[r] / 1e3;
    case NetworkColumn:
        return trace_.network_W[r] / 1e3;
    case CoolingColumn:
        return trace_.cooling_W[r] / 1e3;
    case TotalColumn:
        return trace_.facility_W(r) / 1e3;
    default:
        return 0.0;
    }
}

QVariant PowerTraceModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    if (role == ValueRole)
        return value(index.row(), index.column());
    if (role == Qt::DisplayRole)
        return formatFixed(value(index.row(), index.column()), index.column() <= EndColumn ? 3 : 2);
    return {};
}

QVariant PowerTraceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StartColumn:
        return tr("Start (ms)");
    case EndColumn:
        return tr("End (ms)");
    case AcceleratorsColumn:
        return tr("Accelerators (kW)");
    case CpusColumn:
        return tr("CPUs (kW)");
    case NetworkColumn:
        return tr("Network (kW)");
    case CoolingColumn:
        return tr("Cooling (PUE) (kW)");
    case TotalColumn:
        return tr("Total (kW)");
    default:
        return {};
    }
}

} // namespace choreo::ui
