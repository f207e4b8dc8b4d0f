#include "ui/itemmodels/comparemodel.h"

#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <QCoreApplication>
#include <QFont>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr double kSecondsPerDay = 86400.0;

// One line per pool of a result: its devices, stages, busy fraction and cost.
QString poolLines(const models::RunResult& r) {
    QStringList lines;
    for (const auto& pool : r.pools) {
        QStringList stages;
        for (const auto& stage : pool.stages)
            stages << QString::fromStdString(stage);
        lines << QCoreApplication::translate("choreo::ui::CompareModel", "%1: %2 × %3, %4, busy %5, %6")
                     .arg(QString::fromStdString(pool.name), QString::number(pool.count),
                          QString::fromStdString(pool.device),
                          stages.isEmpty() ? QCoreApplication::translate("choreo::ui::CompareModel", "idle")
                                           : stages.join(u" + "_s),
                          formatPercent(pool.utilisation), formatUsd(pool.cost_usd));
    }
    return lines.join(u"\n"_s);
}

// Result rows where less is better; the others (throughputs, MFU, the rate within the SLOs) want more.
bool lowerIsBetter(int row) {
    return row != CompareModel::ThroughputRow && row != CompareModel::MfuRow &&
           row != CompareModel::ServingRateRow && row != CompareModel::ServingThroughputRow;
}

bool isTrainingRow(int row) {
    return row >= CompareModel::StepTimeRow && row <= CompareModel::MemoryRow;
}

// A serving figure of a result: nullopt where it serves nothing or no rate met the SLOs.
std::optional<double> servingValue(int row, const models::RunResult& r) {
    if (!r.serving)
        return std::nullopt;
    const models::ServingResult& s = *r.serving;
    const double atMax = s.search.output_tokens_per_s_at_max;
    switch (row) {
    case CompareModel::ServingRateRow:
        return s.search.max_rate_rps;
    case CompareModel::ServingThroughputRow:
        return s.search.max_rate_rps ? std::optional<double>(atMax) : std::nullopt;
    case CompareModel::UsdPerMillionTokensRow:
        // The pools' hourly price over the tokens an hour at that rate: devices compared at equal SLOs.
        return s.search.max_rate_rps && atMax > 0
                   ? std::optional<double>(s.usd_per_hour / (atMax * 3600.0) * 1e6)
                   : std::nullopt;
    case CompareModel::JoulesPerTokenRow:
        return s.joules_per_token;
    default:
        return std::nullopt;
    }
}

} // namespace

CompareModel::CompareModel(QObject* parent)
    : QAbstractTableModel(parent) {}

bool CompareModel::add(Entry entry) {
    if (static_cast<int>(entries_.size()) >= kMaxScenarios)
        return false;
    const int column = static_cast<int>(entries_.size());
    beginInsertColumns({}, column, column);
    entries_.push_back(std::move(entry));
    endInsertColumns();
    return true;
}

void CompareModel::remove(int column) {
    if (column < 0 || column >= columnCount())
        return;
    beginRemoveColumns({}, column, column);
    entries_.erase(entries_.begin() + column);
    endRemoveColumns();
    if (!entries_.empty()) // the best value of a row may have been in the removed column
        emit dataChanged(index(0, 0), index(RowCount - 1, columnCount() - 1));
}

void CompareModel::setRunning(int column) {
    if (column < 0 || column >= columnCount())
        return;
    auto& e = entries_[static_cast<std::size_t>(column)];
    e.state = State::Running;
    e.result.reset();
    e.failure.clear();
    columnChanged(column);
}

void CompareModel::setResult(int column, const models::RunResult& result) {
    if (column < 0 || column >= columnCount())
        return;
    auto& e = entries_[static_cast<std::size_t>(column)];
    e.state = State::Succeeded;
    e.result = result;
    columnChanged(column);
}

void CompareModel::setFailed(int column, const QString& message) {
    if (column < 0 || column >= columnCount())
        return;
    auto& e = entries_[static_cast<std::size_t>(column)];
    e.state = State::Failed;
    e.failure = message;
    columnChanged(column);
}

void CompareModel::columnChanged(int) {
    // Bold marks compare columns: every column of a row may change with one result.
    emit dataChanged(index(0, 0), index(RowCount - 1, columnCount() - 1));
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : RowCount;
}

int CompareModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

std::optional<double> CompareModel::value(int row, int column) const {
    const Entry& e = entries_[static_cast<std::size_t>(column)];
    const models::Pool* pool = e.scenario.trainingPool();
    if (row == DevicesRow)
        return pool ? std::optional<double>(static_cast<double>(pool->count)) : std::nullopt;
    if (!e.result)
        return std::nullopt;
    const auto& r = *e.result;
    if (isTrainingRow(row) && r.kind == "serve")
        return std::nullopt; // a serving run has no step: its rows below say what it does
    switch (row) {
    case StepTimeRow:
        return r.step_time_s;
    case ThroughputRow:
        return r.tokens_per_s;
    case MfuRow:
        return r.mfu;
    case TimeToTrainRow:
        return r.time_to_train_s / kSecondsPerDay;
    case CostRow:
        return r.cost_usd;
    case EnergyRow:
        return r.energy_kWh / 1000.0;
    case MemoryRow:
        return r.memory_per_device_GB;
    default:
        return servingValue(row, r);
    }
}

bool CompareModel::isBest(int row, int column) const {
    if (row < StepTimeRow || row > JoulesPerTokenRow)
        return false;
    const auto mine = value(row, column);
    if (!mine)
        return false;
    int others = 0;
    for (int c = 0; c < columnCount(); ++c) {
        const auto v = value(row, c);
        if (c == column || !v)
            continue;
        ++others;
        if (lowerIsBetter(row) ? *v < *mine : *v > *mine)
            return false;
    }
    return others > 0;
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const Entry& e = entries_[static_cast<std::size_t>(index.column())];
    if (role == ValueRole) {
        const auto v = value(row, index.column());
        return v ? QVariant(*v) : QVariant();
    }
    if (role == Qt::FontRole && isBest(row, index.column())) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole && row == StatusRow && e.state == State::Failed)
        return e.failure;
    if (role == Qt::ToolTipRole && row == SourceRow)
        return e.source;
    if (role != Qt::DisplayRole)
        return {};
    const models::Pool* pool = e.scenario.trainingPool();
    const auto& p = e.scenario.workload.parallel;
    const auto& r = e.result;
    if (r && isTrainingRow(row) && !value(row, index.column()))
        return QString();
    switch (row) {
    case SourceRow:
        return e.source;
    case DeviceRow:
        return pool ? QString::fromStdString(pool->device) : tr("no pool");
    case DevicesRow:
        return pool ? formatFixed(static_cast<double>(pool->count), 0) : QString();
    case ModelRow:
        return QString::fromStdString(e.scenario.workload.model.name);
    case LayoutRow:
        if (e.scenario.workload.kind == models::WorkloadKind::Serve && e.scenario.workload.serve) {
            const auto& sp = e.scenario.workload.serve->parallel;
            return tr("serving: tp %1 · pp %2 · ep %3 a replica").arg(sp.tp).arg(sp.pp).arg(sp.ep);
        }
        return u"tp %1 · pp %2 · dp %3 · cp %4 · vp %5 · ZeRO %6"_s.arg(p.tp)
            .arg(p.pp)
            .arg(p.dp)
            .arg(p.cp)
            .arg(p.vp)
            .arg(p.zero);
    case StepTimeRow:
        return r ? tr("%1 s").arg(formatSignificant(r->step_time_s, 4)) : QString();
    case ThroughputRow:
        return r ? formatFixed(r->tokens_per_s, 0) : QString();
    case MfuRow:
        return r ? formatPercent(r->mfu) : QString();
    case TimeToTrainRow:
        return r ? tr("%1 days").arg(formatSignificant(r->time_to_train_s / kSecondsPerDay, 3)) : QString();
    case CostRow:
        return r ? formatUsd(r->cost_usd) : QString();
    case EnergyRow:
        return r ? tr("%1 MWh").arg(formatSignificant(r->energy_kWh / 1000.0, 3)) : QString();
    case MemoryRow:
        return r ? tr("%1 GB").arg(formatSignificant(r->memory_per_device_GB, 3)) : QString();
    case ServingRateRow:
    case ServingThroughputRow:
    case UsdPerMillionTokensRow:
    case JoulesPerTokenRow:
        return servingText(row, index.column());
    case PoolsRow:
        return r ? poolLines(*r) : QString();
    case BottleneckRow:
        return r && !r->bottleneck.stage.empty() ? QString::fromStdString(r->bottleneck.stage) + tr(" on ") +
                                                       QString::fromStdString(r->bottleneck.pool)
                                                 : QString();
    case StatusRow:
        switch (e.state) {
        case State::NotRun:
            return tr("not run");
        case State::Running:
            return tr("running");
        case State::Succeeded:
            return tr("%1 fidelity").arg(r ? QString::fromStdString(r->fidelity) : QString());
        case State::Failed:
            return tr("failed: %1").arg(e.failure);
        }
        return {};
    default:
        return {};
    }
}

QString CompareModel::servingText(int row, int column) const {
    const auto& r = entries_[static_cast<std::size_t>(column)].result;
    if (!r || !r->serving)
        return {};
    const auto v = value(row, column);
    if (!v)
        return row == ServingRateRow ? tr("misses the SLOs") : QString();
    switch (row) {
    case ServingRateRow:
        return tr("%1 requests/s").arg(formatSignificant(*v, 3));
    case ServingThroughputRow:
        return formatFixed(*v, 0);
    case UsdPerMillionTokensRow:
        return tr("$%1").arg(formatSignificant(*v, 3));
    default:
        return tr("%1 J").arg(formatSignificant(*v, 3));
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Horizontal)
        return section >= 0 && section < columnCount() ? entries_[static_cast<std::size_t>(section)].title
                                                       : QVariant();
    switch (section) {
    case SourceRow:
        return tr("Source");
    case DeviceRow:
        return tr("Device");
    case DevicesRow:
        return tr("Devices");
    case ModelRow:
        return tr("Model");
    case LayoutRow:
        return tr("Layout");
    case StepTimeRow:
        return tr("Step time");
    case ThroughputRow:
        return tr("Tokens/s");
    case MfuRow:
        return tr("MFU");
    case TimeToTrainRow:
        return tr("Time to train");
    case CostRow:
        return tr("Total cost");
    case EnergyRow:
        return tr("Energy");
    case MemoryRow:
        return tr("Memory/device");
    case ServingRateRow:
        return tr("Rate within SLOs");
    case ServingThroughputRow:
        return tr("Output tokens/s there");
    case UsdPerMillionTokensRow:
        return tr("$/M tokens there");
    case JoulesPerTokenRow:
        return tr("J/token (stream)");
    case PoolsRow:
        return tr("Pools");
    case BottleneckRow:
        return tr("Bottleneck");
    case StatusRow:
        return tr("Status");
    default:
        return {};
    }
}

} // namespace choreo::ui
