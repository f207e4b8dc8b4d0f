#include "ui/itemmodels/resultsummarymodel.h"

#include "models/catalog.h"
#include "models/sourced.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

ResultSummaryModel::ResultSummaryModel(QObject* parent)
    : QAbstractTableModel(parent) {}

std::vector<ResultSummaryModel::Row> ResultSummaryModel::servingRowsFor(const models::RunResult& r) {
    const auto text = [](const std::string& s) { return QString::fromStdString(s); };
    const models::ServingResult& s = *r.serving;
    const auto ms = [](const models::Percentiles& p) {
        return tr("p50 %1, p90 %2, p99 %3 ms")
            .arg(formatSignificant(p.p50 * 1000, 3), formatSignificant(p.p90 * 1000, 3),
                 formatSignificant(p.p99 * 1000, 3));
    };
    QString devices;
    for (const auto& pool : r.pools)
        devices += (devices.isEmpty() ? QString() : u" + "_s) + QString::number(pool.count) + u" × "_s +
                   text(pool.device);
    using G = Group;
    std::vector<Row> rows = {
        {G::Results, u"scenario"_s, tr("Scenario"), text(r.scenario), {}},
        {G::Results, u"device"_s, tr("Devices"), devices, static_cast<double>(r.devices)},
        {G::Results, u"fidelity"_s, tr("Fidelity"), text(r.fidelity), {}},
        {G::Results, u"calibration"_s, tr("Calibration"), text(r.calibration), {}},
        {G::Results,
         u"accuracy"_s,
         tr("Accuracy of serving"),
         text(r.accuracy),
         {},
         QString::fromStdString(models::accuracyHeadline(r.accuracy))},
        {G::Results,
         u"engine"_s,
         tr("Engine"),
         tr("%1, %2 weights, %3 KV cache").arg(text(s.engine), text(s.weights), text(s.kv_cache)),
         {}},
        {G::Results, u"output_tokens_per_s"_s, tr("Throughput"),
         tr("%1 output tokens/s, %2 requests/s")
             .arg(formatFixed(s.output_tokens_per_s, 0), formatSignificant(s.requests_per_s, 3)),
         s.output_tokens_per_s},
        {G::Results, u"ttft"_s, tr("Time to first token"), ms(s.stream.ttft_s), s.stream.ttft_s.p99},
        {G::Results, u"tpot"_s, tr("Time per output token"), ms(s.stream.tpot_s), s.stream.tpot_s.p99},
        {G::Results, u"e2e_p99_s"_s, tr("End to end, p99"),
         formatSignificant(s.stream.e2e_s.p99, 4) + u" s"_s, s.stream.e2e_s.p99},
        {G::Results, u"goodput_rps"_s, tr("Goodput within the SLOs"),
         formatSignificant(s.goodput_rps, 3) + tr(" requests/s"), s.goodput_rps},
    };
    if (s.search.searched)
        rows.push_back({G::Results, u"max_rate_within_slo_rps"_s, tr("Highest rate within the SLOs"),
                        text(s.search.verdict), s.search.max_rate_rps.value_or(0.0)});
    if (s.target_rate_rps && s.devices_for_target)
        rows.push_back(
            {G::Results, u"devices_for_target"_s, tr("For %1 requests/s").arg(*s.target_rate_rps),
             tr("%1 devices (%2 replicas)").arg(*s.devices_for_target).arg(s.replicas_for_target.value_or(0)),
             static_cast<double>(*s.devices_for_target)});
    const auto usd = [](double v) { return u"$"_s + formatFixed(v, 2); };
    QString perToken = usd(s.usd_per_million_tokens);
    if (s.usd_per_million_tokens_rent && s.usd_per_million_tokens_buy)
        perToken += tr(" (rent %1, buy %2)")
                        .arg(usd(*s.usd_per_million_tokens_rent), usd(*s.usd_per_million_tokens_buy));
    rows.push_back({G::Results, u"usd_per_million_tokens"_s, tr("Cost per million output tokens"), perToken,
                    s.usd_per_million_tokens});
    rows.push_back({G::Results, u"joules_per_token"_s, tr("Energy a token (facility)"),
                    formatSignificant(s.joules_per_token, 3) + u" J"_s, s.joules_per_token});
    rows.push_back({G::Results, u"average_power_kW"_s, tr("Average power (facility)"),
                    formatFixed(s.average_power_kW, 1) + u" kW"_s, s.average_power_kW});
    rows.push_back({G::Memory, u"weights_GB"_s, tr("weights"),
                    formatFixed(s.weights_GB_per_device, 1) + u" GB"_s, s.weights_GB_per_device});
    rows.push_back({G::Memory, u"kv_GB"_s, tr("KV cache"), formatFixed(s.kv_GB_per_device, 1) + u" GB"_s,
                    s.kv_GB_per_device});
    for (const auto& load : s.stream.loads)
        rows.push_back({G::StepTime, u"busy_"_s + text(load.role),
                        tr("%1 replicas busy").arg(text(load.role)),
                        tr("%1, mean batch %2, KV peak %3")
                            .arg(formatPercent(load.busy_fraction), formatSignificant(load.mean_batch, 3),
                                 formatPercent(load.kv_peak_fraction)),
                        load.busy_fraction});
    return rows;
}

std::vector<ResultSummaryModel::Row> ResultSummaryModel::rowsFor(const models::RunResult& r) {
    if (r.kind == "serve" && r.serving)
        return servingRowsFor(r);
    const auto text = [](const std::string& s) { return QString::fromStdString(s); };
    // The narrow cell of an uncalibrated run's calibration: whether its efficiencies are assumptions (the
    // whole sentence is in the tooltip and the report).
    const auto calibrationCell = [](const std::string& c) -> QString {
        if (c.rfind("none", 0) != 0)
            return {};
        return c.find(models::kAssumedSource) != std::string::npos ? tr("none: efficiencies assumed")
                                                                   : tr("none: catalog figures");
    };
    const double days = r.time_to_train_s / 86400.0;
    const double stepParts = r.breakdown.compute_s + r.breakdown.exposed_communication_s +
                             r.breakdown.pipeline_bubble_s + r.breakdown.data_wait_s;
    const auto share = [stepParts](double part) {
        return stepParts > 0 ? u" ("_s + formatPercent(part / stepParts) + u")"_s : QString();
    };
    using G = Group;
    std::vector<Row> rows = {
        {G::Results, u"scenario"_s, tr("Scenario"), text(r.scenario), {}},
        {G::Results, u"device"_s, tr("Devices"), QString::number(r.devices) + u" × "_s + text(r.device),
         static_cast<double>(r.devices)},
        {G::Results, u"fidelity"_s, tr("Fidelity"), text(r.fidelity), {}},
        {G::Results,
         u"calibration"_s,
         tr("Calibration"),
         text(r.calibration),
         {},
         calibrationCell(r.calibration)},
        {G::Results,
         u"accuracy"_s,
         tr("Accuracy on this device"),
         text(r.accuracy),
         {},
         // the whole sentence is in the tooltip and the report
         QString::fromStdString(models::accuracyHeadline(r.accuracy))},
        {G::Results, u"step_time_s"_s, tr("Step time"), formatSignificant(r.step_time_s, 4) + u" s"_s,
         r.step_time_s},
        {G::Results, u"tokens_per_s"_s, tr("Throughput"), formatFixed(r.tokens_per_s, 0) + u" tokens/s"_s,
         r.tokens_per_s},
        {G::Results, u"mfu"_s, tr("MFU"), formatPercent(r.mfu), r.mfu},
        {G::Results, u"achieved_tflops_per_device"_s, tr("Achieved per device"),
         formatFixed(r.achieved_tflops_per_device, 1) + u" TFLOP/s"_s, r.achieved_tflops_per_device},
        {G::Results, u"time_to_train_days"_s, tr("Time to train"), formatSignificant(days, 3) + u" days"_s,
         days},
        {G::Results, u"energy_MWh"_s, tr("Energy (facility)"),
         formatSignificant(r.energy_kWh / 1000.0, 4) + u" MWh"_s, r.energy_kWh / 1000.0},
        {G::Results, u"average_power_kW"_s, tr("Average power (facility)"),
         formatFixed(r.average_power_kW, 1) + u" kW"_s, r.average_power_kW},
        {G::Results, u"it_power_kW"_s, tr("IT power (devices)"), formatFixed(r.it_power_kW, 1) + u" kW"_s,
         r.it_power_kW},
        {G::Results, u"cost_usd"_s, tr("Cost (%1)").arg(text(r.cost_mode)), formatUsd(r.cost_usd),
         r.cost_usd},
        {G::Results, u"cost_hardware_usd"_s, tr("  hardware"), formatUsd(r.cost_hardware_usd),
         r.cost_hardware_usd},
        {G::Results, u"cost_electricity_usd"_s, tr("  electricity"), formatUsd(r.cost_electricity_usd),
         r.cost_electricity_usd},
        {G::StepTime, u"compute_s"_s, tr("Compute"),
         formatSignificant(r.breakdown.compute_s, 4) + u" s"_s + share(r.breakdown.compute_s),
         r.breakdown.compute_s},
        {G::StepTime, u"exposed_communication_s"_s, tr("Exposed communication"),
         formatSignificant(r.breakdown.exposed_communication_s, 4) + u" s"_s +
             share(r.breakdown.exposed_communication_s),
         r.breakdown.exposed_communication_s},
        {G::StepTime, u"pipeline_bubble_s"_s, tr("Pipeline bubble"),
         formatSignificant(r.breakdown.pipeline_bubble_s, 4) + u" s"_s + share(r.breakdown.pipeline_bubble_s),
         r.breakdown.pipeline_bubble_s},
    };
    addMemoryRows(r, rows);
    // The framework profile that set the kernels and overlaps, after the accuracy; its id in the narrow cell.
    if (!r.framework.empty())
        rows.insert(rows.begin() + 5, {G::Results,
                                       u"framework"_s,
                                       tr("Framework profile"),
                                       text(r.framework),
                                       {},
                                       text(r.framework.substr(0, r.framework.find(" (")))});
    // Activation offloading's wait for its copies, part of the compute (pp 1: the busiest stage's is the
    // step's); shown only when the run offloads.
    if (const double wait = r.compute_split.offload_wait_s; wait > 0.0) {
        const auto compute =
            std::find_if(rows.begin(), rows.end(), [](const Row& row) { return row.key == u"compute_s"_s; });
        if (compute != rows.end())
            rows.insert(std::next(compute),
                        Row{G::StepTime, u"offload_wait_s"_s, tr("  of which offload wait"),
                            formatSignificant(wait, 4) + u" s"_s + share(wait), wait});
    }
    addPipelineRows(r, rows, share);
    addTrainAndServeRows(r, rows);
    addWholeRunRows(r, rows);
    if (const auto& site = r.site_power)
        rows.push_back(
            {G::Results, u"site_power_MW"_s, tr("Site power"),
             site->fits ? tr("%1 MW at rated power, within %2 MW")
                              .arg(formatSignificant(site->peak_MW, 3), formatSignificant(site->cap_MW, 3))
                        : tr("%1 MW at rated power, over %2 MW: %3 of the %4 devices fit")
                              .arg(formatSignificant(site->peak_MW, 3), formatSignificant(site->cap_MW, 3))
                              .arg(site->devices_that_fit)
                              .arg(r.devices),
             site->peak_MW});
    return rows;
}

void ResultSummaryModel::addMemoryRows(const models::RunResult& r, std::vector<Row>& rows) {
    // Tenths of a GB, or two significant digits below 1 GB (an IPU's SRAM would read 0.2, 0.0, 0.1).
    const auto gb = [](double v) {
        return (v > 0.0 && v < 1.0 ? formatSignificant(v, 2) : formatFixed(v, 1)) + u" GB"_s;
    };
    using G = Group;
    const std::vector<Row> memory = {
        {G::Memory, u"memory_per_device_GB"_s, tr("Memory per device"), gb(r.memory_per_device_GB),
         r.memory_per_device_GB},
        {G::Memory, u"weights_GB"_s, tr("  weights"), gb(r.memory.weights_GB), r.memory.weights_GB},
        {G::Memory, u"gradients_GB"_s, tr("  gradients"), gb(r.memory.gradients_GB), r.memory.gradients_GB},
        {G::Memory, u"optimizer_GB"_s, tr("  optimizer states"), gb(r.memory.optimizer_GB),
         r.memory.optimizer_GB},
        {G::Memory, u"activations_GB"_s, tr("  activations"), gb(r.memory.activations_GB),
         r.memory.activations_GB},
        {G::Memory, u"buffers_GB"_s, tr("  buffers and workspace"), gb(r.memory.buffers_GB),
         r.memory.buffers_GB},
        {G::Memory, u"stage"_s, tr("  worst pipeline stage"), QString::number(r.memory.stage),
         static_cast<double>(r.memory.stage)},
    };
    rows.insert(rows.end(), memory.begin(), memory.end());
    // State kept beside the device (an IPU's optimizer state in streaming memory), not in the total.
    if (r.memory.off_chip_GB > 0.0)
        rows.push_back({G::Memory, u"off_chip_GB"_s, tr("  off-chip (streaming memory)"),
                        gb(r.memory.off_chip_GB), r.memory.off_chip_GB});
}

void ResultSummaryModel::addWholeRunRows(const models::RunResult& r, std::vector<Row>& rows) {
    if (!r.whole_run)
        return;
    const models::WholeRun& w = *r.whole_run;
    const auto at = std::find_if(rows.begin(), rows.end(),
                                 [](const Row& row) { return row.key == u"time_to_train_days"_s; });
    if (at == rows.end())
        return;
    const auto days = [](double s) { return formatSignificant(s / 86400.0, 3); };
    at->text += tr(" (median with failures; ideal %1 days)").arg(days(w.ideal_s));
    at->shortText = days(r.time_to_train_s) + u" days"_s;
    using G = Group;
    const std::vector<Row> added = {
        {G::Results, u"time_to_train_spread"_s, tr("  p10 to p90"),
         tr("%1 to %2 days (%3)").arg(days(w.p10_s), days(w.p90_s), QString::fromStdString(w.note)),
         w.p90_s / 86400.0, tr("%1 to %2 days").arg(days(w.p10_s), days(w.p90_s))},
        {G::Results, u"goodput"_s, tr("  goodput"), formatPercent(w.goodput()), w.goodput()},
        {G::Results, u"lost_cost_usd"_s, tr("  cost of failures"),
         tr("%1 and %2 MWh: %3 days of redone work, %4 of recoveries, %5 of checkpoint stalls")
             .arg(formatUsd(w.lost_cost_usd), formatSignificant(w.lost_energy_kWh / 1e3, 3),
                  formatSignificant(w.lost_work_s / 86400.0, 3),
                  formatSignificant(w.recovery_total_s / 86400.0, 3),
                  formatSignificant(w.checkpoint_total_s / 86400.0, 3)),
         w.lost_cost_usd,
         tr("%1, %2 MWh").arg(formatUsd(w.lost_cost_usd), formatSignificant(w.lost_energy_kWh / 1e3, 3))},
        {G::Results, u"interruptions_expected"_s, tr("  interruptions"),
         tr("%1 expected, one every %2 h, %3 min to recover (%4)")
             .arg(formatFixed(w.interruptions_expected, 0), formatSignificant(w.mtbf_s / 3600.0, 3),
                  formatSignificant(w.recovery_s / 60.0, 3), QString::fromStdString(w.profile)),
         w.interruptions_expected,
         tr("%1, one every %2 h")
             .arg(formatFixed(w.interruptions_expected, 0), formatSignificant(w.mtbf_s / 3600.0, 3))},
        {G::Results, u"checkpoint_interval_s"_s, tr("  checkpoints"),
         tr("%1 GB every %2 min (%3), %4 s to write, %5 s stall")
             .arg(formatSignificant(w.checkpoint_GB, 3), formatSignificant(w.checkpoint_interval_s / 60.0, 3),
                  w.interval_from_rule ? tr("Young/Daly") : tr("as set"),
                  formatSignificant(w.checkpoint_write_s, 3), formatSignificant(w.checkpoint_stall_s, 3)),
         w.checkpoint_interval_s,
         tr("%1 GB every %2 min")
             .arg(formatSignificant(w.checkpoint_GB, 3),
                  formatSignificant(w.checkpoint_interval_s / 60.0, 3))},
    };
    rows.insert(std::next(at), added.begin(), added.end());
}

void ResultSummaryModel::addTrainAndServeRows(const models::RunResult& r, std::vector<Row>& rows) {
    if (!r.serving)
        return;
    const models::ServingResult& s = *r.serving;
    using G = Group;
    rows.push_back(
        {G::Results, u"serving"_s, tr("Serving beside it"),
         tr("%1 output tokens/s, p99 TTFT %2 ms, $%3 per million tokens")
             .arg(formatFixed(s.output_tokens_per_s, 0), formatSignificant(s.stream.ttft_s.p99 * 1e3, 3),
                  formatSignificant(s.usd_per_million_tokens, 3)),
         s.output_tokens_per_s});
    if (s.search.searched)
        rows.push_back({G::Results, u"serving_max_rate_rps"_s, tr("  highest rate within the SLOs"),
                        QString::fromStdString(s.search.verdict), s.search.max_rate_rps.value_or(0.0)});
    if (s.horizon_months <= 0.0)
        return;
    rows.push_back(
        {G::Results, u"serving_horizon_usd"_s, tr("  serving over %1 months").arg(s.horizon_months),
         tr("%1, %2 MWh").arg(formatUsd(s.horizon_serving_usd), formatSignificant(s.horizon_serving_MWh, 4)),
         s.horizon_serving_usd});
    rows.push_back({G::Results, u"train_and_serve_usd"_s, tr("Training and serving"),
                    tr("%1, %2 MWh")
                        .arg(formatUsd(r.cost_usd + s.horizon_serving_usd),
                             formatSignificant(r.energy_kWh / 1e3 + s.horizon_serving_MWh, 4)),
                    r.cost_usd + s.horizon_serving_usd});
}

// The data stage's wait, each pool's work and cost, the offload stages' traffic, and the bottleneck (results
// before pools: none).
// The data stage's batch: each part's time, the part that sets its pace, and whether it ran as flows
// beside the step or in closed form. The narrow cell keeps the batch's time and its pace.
ResultSummaryModel::Row ResultSummaryModel::dataStageRow(const models::DataStageTimes& d) {
    const QString batch = formatSignificant(d.stage_s(), 4) + u" s"_s;
    const QString limit = QString::fromStdString(d.limit());
    return Row{Group::Results,
               u"data_stage"_s,
               tr("Data stage"),
               tr("%1 a batch (storage reads %2 s, preprocessing %3 s, delivery %4 s), paced by %5; %6")
                   .arg(batch, formatSignificant(d.read_s, 4), formatSignificant(d.preprocess_s, 4),
                        formatSignificant(d.deliver_s, 4), limit,
                        d.simulated ? tr("flows beside the step") : tr("closed form")),
               d.stage_s(),
               tr("%1 a batch, %2").arg(batch, limit)};
}

void ResultSummaryModel::addPipelineRows(const models::RunResult& r, std::vector<Row>& rows,
                                         const std::function<QString(double)>& share) {
    using G = Group;
    if (const double wait = r.breakdown.data_wait_s; wait > 0.0)
        rows.push_back(Row{G::StepTime, u"data_wait_s"_s, tr("Waiting for data"),
                           formatSignificant(wait, 4) + u" s"_s + share(wait), wait});
    if (const double eval = r.breakdown.eval_s; eval > 0.0)
        rows.push_back(Row{G::StepTime, u"eval_s"_s, tr("Evaluation"),
                           formatSignificant(eval, 4) + u" s"_s + share(eval), eval});
    for (const auto& pool : r.pools) {
        QStringList stages;
        for (const auto& stage : pool.stages)
            stages << QString::fromStdString(stage);
        const QString work = stages.isEmpty() ? tr("idle") : stages.join(u" + "_s);
        QString text = tr("%1 × %2: %3, busy %4, %5")
                           .arg(QString::number(pool.count), QString::fromStdString(pool.device), work,
                                formatPercent(pool.utilisation), formatUsd(pool.cost_usd));
        if (pool.power_limit_W)
            text +=
                tr(", limited to %1 W (compute clock %2)")
                    .arg(QString::number(*pool.power_limit_W, 'g', 6), formatPercent(pool.clock_fraction));
        rows.push_back(Row{G::Results, u"pool:"_s + QString::fromStdString(pool.name),
                           tr("Pool %1").arg(QString::fromStdString(pool.name)), text, pool.cost_usd});
    }
    if (const auto& d = r.data_stage)
        rows.push_back(dataStageRow(*d));
    for (const auto& o : r.offload)
        rows.push_back(
            Row{G::Results, u"offload:"_s + QString::fromStdString(o.target),
                tr("Offloaded %1").arg(QString::fromStdString(o.target)),
                tr("on %1 over the %2 (%3 GB/s per device): %4 GB a step, busy %5 s")
                    .arg(QString::fromStdString(o.pool), QString::fromStdString(o.link),
                         formatSignificant(o.link_GBps, 3), formatSignificant(o.bytes_per_step / 1e9, 4),
                         formatSignificant(o.busy_s, 4)),
                o.bytes_per_step});
    if (const auto& b = r.bottleneck; !b.stage.empty()) {
        const QString where =
            QString::fromStdString(b.stage) + tr(" on ") + QString::fromStdString(b.pool) +
            (b.detail.empty() ? QString() : u" ("_s + QString::fromStdString(b.detail) + u")"_s);
        rows.push_back(Row{G::Results, u"bottleneck"_s, tr("Bottleneck"),
                           b.step_time_without_s > 0.0
                               ? tr("%1; without it a step takes %2 s")
                                     .arg(where, formatSignificant(b.step_time_without_s, 4))
                               : tr("%1; no other stage sets a pace").arg(where),
                           b.step_time_without_s, where});
    }
}

void ResultSummaryModel::addAnnouncedRow(const models::RunResult& r, std::vector<Row>& rows) {
    if (r.announced.empty())
        return;
    const auto accuracy =
        std::find_if(rows.begin(), rows.end(), [](const Row& row) { return row.key == u"accuracy"_s; });
    rows.insert(accuracy == rows.end() ? rows.end() : std::next(accuracy),
                Row{Group::Results,
                    u"announced"_s,
                    tr("Announced figures"),
                    QString::fromStdString(r.announced),
                    {},
                    tr("announced only: a projection")});
}

void ResultSummaryModel::setResult(const models::RunResult& result) {
    beginResetModel();
    result_ = result;
    rows_ = rowsFor(result);
    addAnnouncedRow(result, rows_);
    endResetModel();
}

void ResultSummaryModel::clear() {
    beginResetModel();
    result_.reset();
    rows_.clear();
    endResetModel();
}

std::vector<std::pair<QString, QString>> ResultSummaryModel::rowsOf(Group group) const {
    std::vector<std::pair<QString, QString>> out;
    for (const auto& row : rows_)
        if (row.group == group)
            out.emplace_back(row.label, row.text);
    return out;
}

int ResultSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ResultSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ResultSummaryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == QuantityColumn ? row.label
               : row.shortText.isEmpty()        ? row.text
                                                : row.shortText;
    case Qt::ToolTipRole:
        return row.label.trimmed() + u": "_s + row.text;
    case Qt::TextAlignmentRole:
        return index.column() == ValueColumn ? (Qt::AlignRight | Qt::AlignVCenter).toInt()
                                             : (Qt::AlignLeft | Qt::AlignVCenter).toInt();
    case ValueRole:
        return row.value;
    case GroupRole:
        return static_cast<int>(row.group);
    case KeyRole:
        return row.key;
    default:
        return {};
    }
}

QVariant ResultSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case QuantityColumn:
        return tr("Quantity");
    case ValueColumn:
        return tr("Value");
    default:
        return {};
    }
}

} // namespace choreo::ui
