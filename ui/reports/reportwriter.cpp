#include "ui/reports/reportwriter.h"

#include "models/jsonreader.h"
#include "models/scenarioio.h"
#include "ui/charts/chartrender.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/powertracemodel.h"
#include "ui/itemmodels/resultsummarymodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/itemmodels/timelinemodel.h"
#include "ui/reports/calibrationsection.h"
#include "ui/reports/reportpainter.h"

#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr int kResolutionDpi = 300;
const QColor kFailedText(0xb0, 0x20, 0x20);

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Screen pixels a chart is laid out in before it is scaled onto the page: sets the size of its text.
constexpr double kChartLayoutWidth = 760.0;

ReportTable keyValueTable(const std::vector<std::pair<QString, QString>>& rows, double keyWidth = 0.45) {
    ReportTable t;
    t.widths = {keyWidth, 1.0 - keyWidth};
    t.alignRight = {false, false};
    for (const auto& [key, value] : rows)
        t.rows.push_back({key, value});
    return t;
}

// The note under the title; it points to the sources only when the report has them.
QString generatedNote(const ReportInput& in) {
    const QString when = in.generated.toString(u"yyyy-MM-dd HH:mm"_s);
    return in.sections.has(ReportSection::Sources)
               ? QObject::tr("Generated %1. Simulated estimates; the figures they rest on are listed "
                             "under \"Assumptions and sources\".")
                     .arg(when)
               : QObject::tr("Generated %1. Simulated estimates.").arg(when);
}

// Top of page 1, in every report: what this is.
void writeTitle(ReportPainter& page, const ReportInput& in) {
    page.title(QObject::tr("Choreo report"));
    page.paragraph(q(in.scenario.name), 14);
    if (in.scenario.description && !in.scenario.description->empty())
        page.paragraph(q(*in.scenario.description), 9.5, QColor(0x40, 0x40, 0x40));
    page.paragraph(generatedNote(in), 8.5, QColor(0x50, 0x50, 0x50));
}

// Page 1: the answer.
void writeSummary(ReportPainter& page, const ResultSummaryModel& summary) {
    page.heading(QObject::tr("Results"));
    page.table(keyValueTable(summary.rowsOf(ResultSummaryModel::Group::Results)));
    page.heading(QObject::tr("Step time"));
    page.table(keyValueTable(summary.rowsOf(ResultSummaryModel::Group::StepTime)));
}

void writeMemory(ReportPainter& page, const ResultSummaryModel& summary) {
    page.heading(QObject::tr("Memory per device"));
    page.table(keyValueTable(summary.rowsOf(ResultSummaryModel::Group::Memory)));
}

// Page 2: the two charts, drawn as vector graphics.
void writeCharts(ReportPainter& page, QPainter& painter, const SweepResultModel& sweep) {
    page.heading(QObject::tr("Step-time breakdown and scaling"));
    const double chartHeight = page.remaining() * 0.44;
    const QRectF first = page.reserve(chartHeight);
    renderStepBreakdownChart(sweep, painter, first,
                             QSizeF(kChartLayoutWidth, kChartLayoutWidth * first.height() / first.width()));
    page.paragraph(
        QObject::tr("Where one training step's time goes on the device that finishes last, for each "
                    "size of the scaling sweep (same global batch, tp and pp; dp varies)."),
        8.5, QColor(0x40, 0x40, 0x40));
    page.space(6);
    const QRectF second = page.reserve(chartHeight);
    renderScalingChart(sweep, painter, second,
                       QSizeF(kChartLayoutWidth, kChartLayoutWidth * second.height() / second.width()));
    page.paragraph(
        QObject::tr("Throughput and scaling efficiency (throughput per device relative to the smallest "
                    "successful point). Points that failed, for example because they do not fit in "
                    "memory, are marked in red and listed in the sweep table."),
        8.5, QColor(0x40, 0x40, 0x40));
}

QString timelineTitle(const models::RunResult& result) {
    return QObject::tr("One step per pipeline stage (%1)").arg(q(result.fidelity));
}

QString timelineCaption() {
    return QObject::tr("What each pipeline stage's first device does during one training step: forward, "
                       "backward and recomputation of each micro-batch, the optimizer, and the communication "
                       "it waits for (tensor/context-parallel collectives, pipeline sends and receives, "
                       "data-parallel gradient reduction and parameter gathers). Grey is bubble: the device "
                       "idles until another stage delivers. Communication hidden behind computation is not "
                       "shown.");
}

QString powerCaption(const PowerTraceModel& power) {
    return QObject::tr(
               "Facility power over the same step, stacked: accelerators at TDP while computing and at "
               "idle power otherwise, CPUs, network, and the cooling overhead from the PUE. %1")
        .arg(power.notes());
}

// Page 3: one step, as a Gantt chart per pipeline stage and as power over time.
void writeStep(ReportPainter& page, QPainter& painter, const ReportInput& in, const TimelineModel& timeline,
               const PowerTraceModel& power) {
    page.heading(QObject::tr("One step: timeline and power"));
    if (timeline.rowCount() == 0) {
        page.paragraph(QObject::tr("This result has no step timeline (it was written by an older version)."));
        return;
    }
    const double chartHeight = page.remaining() * 0.42;
    const QRectF first = page.reserve(chartHeight);
    renderGanttChart(timeline, timelineTitle(in.base), painter, first,
                     QSizeF(kChartLayoutWidth, kChartLayoutWidth * first.height() / first.width()));
    page.paragraph(timelineCaption(), 8.5, QColor(0x40, 0x40, 0x40));
    page.space(6);
    const QRectF second = page.reserve(chartHeight);
    renderPowerChart(power, painter, second,
                     QSizeF(kChartLayoutWidth, kChartLayoutWidth * second.height() / second.width()));
    page.paragraph(powerCaption(power), 8.5, QColor(0x40, 0x40, 0x40));
}

// "value (scenario)" when the scenario sets it, else "value (catalog)" from the training device.
QString withOrigin(const std::optional<double>& set, double catalogValue, const QString& unit,
                   bool known = true) {
    if (set)
        return formatCompact(*set) + unit + QObject::tr(" (scenario)");
    return known ? formatCompact(catalogValue) + unit + QObject::tr(" (catalog)")
                 : QObject::tr("not in the catalog");
}

std::vector<std::pair<QString, QString>> scenarioRows(const ReportInput& in) {
    const auto& s = in.scenario;
    const auto& net = s.cluster.network;
    const auto& w = s.workload;
    const auto& m = w.model;
    const auto& c = s.costs;
    std::vector<std::pair<QString, QString>> rows;
    const models::Pool* training = s.trainingPool();
    const models::Device* device = training && in.catalog ? in.catalog->find(training->device) : nullptr;
    for (const auto& p : s.cluster.pools) {
        const models::Device* d = in.catalog ? in.catalog->find(p.device) : nullptr;
        rows.emplace_back(QObject::tr("Pool \"%1\"").arg(q(p.name)),
                          QObject::tr("%1 × %2 (%3), %4 per node%5")
                              .arg(p.count)
                              .arg(q(p.device), d ? q(d->name) : QObject::tr("unknown device"))
                              .arg(p.devices_per_node)
                              .arg(&p == training ? QObject::tr("; trains the model") : QString()));
    }
    rows.emplace_back(
        QObject::tr("NIC per device"),
        withOrigin(net.nic_Gbps, device ? device->nic_Gbps.value : 0, u" Gb/s"_s, device != nullptr));
    rows.emplace_back(
        QObject::tr("Topology"),
        QObject::tr("%1, oversubscription %2:1, %3 nodes per leaf, %4 per switch hop")
            .arg(q(models::toString(net.topology.kind)), formatCompact(net.topology.oversubscription))
            .arg(net.topology.nodes_per_leaf.value_or(models::kDefaultNodesPerLeaf))
            .arg(formatCompact(net.topology.latency_us.value_or(models::kDefaultSwitchLatencyUs)) +
                 u" µs"_s));
    const bool fabric = device && device->scale_up;
    rows.emplace_back(
        QObject::tr("Scale-up fabric"),
        QObject::tr("%1; %2 per device; latency %3")
            .arg(net.scale_up.fabric ? q(*net.scale_up.fabric) + QObject::tr(" (scenario)")
                 : fabric            ? q(device->scale_up->fabric) + QObject::tr(" (catalog)")
                                     : QObject::tr("none"),
                 withOrigin(net.scale_up.bandwidth_GBps, fabric ? device->scale_up->bandwidth_GBps.value : 0,
                            u" GB/s"_s, fabric),
                 withOrigin(net.scale_up.latency_us, fabric ? device->scale_up->latency_us.value : 0,
                            u" µs"_s, fabric)));
    rows.emplace_back(QObject::tr("Model"),
                      QObject::tr("%1: %2 layers, hidden %3, %4 heads (%5 KV)%6, FFN %7%8, vocabulary %9, "
                                  "sequence %10%11")
                          .arg(q(m.name))
                          .arg(m.layers)
                          .arg(m.hidden)
                          .arg(m.heads)
                          .arg(m.kv_heads)
                          .arg(m.head_dim > 0 ? QObject::tr(" of width %1").arg(m.head_dim) : QString())
                          .arg(m.ffn_hidden)
                          .arg(m.ffn_gated ? QObject::tr(" gated") : QString())
                          .arg(m.vocab)
                          .arg(m.seq_len)
                          .arg(m.dropout ? QString() : QObject::tr(", no dropout")));
    rows.emplace_back(
        QObject::tr("Batch"),
        QObject::tr("global %1 sequences, micro-batch %2").arg(w.global_batch).arg(w.micro_batch));
    rows.emplace_back(QObject::tr("Tokens to train"),
                      formatCompact(w.tokens_to_train / 1e9) + QObject::tr(" billion"));
    rows.emplace_back(QObject::tr("Precision"), q(models::toString(w.precision)));
    rows.emplace_back(QObject::tr("Parallelism"),
                      QObject::tr("tp %1, pp %2 (vp %7), dp %3, cp %8; sequence parallel %4; ZeRO stage %5; "
                                  "recompute %6; attention %9")
                          .arg(w.parallel.tp)
                          .arg(w.parallel.pp)
                          .arg(w.parallel.dp)
                          .arg(w.parallel.sequence_parallel ? QObject::tr("on") : QObject::tr("off"))
                          .arg(w.parallel.zero)
                          .arg(q(models::toString(w.recompute)))
                          .arg(w.parallel.vp)
                          .arg(w.parallel.cp)
                          .arg(q(models::toString(w.attention))));
    {
        // What the result assumed the framework overlaps: it moves the step as much as a layout does.
        QStringList overlapped;
        if (w.overlap.tp_comm)
            overlapped << QObject::tr("tensor-parallel collectives");
        if (w.overlap.param_gather)
            overlapped << QObject::tr("parameter gather");
        if (w.overlap.grad_reduce)
            overlapped << QObject::tr("gradient reduction");
        if (w.overlap.ep_comm)
            overlapped << QObject::tr("expert all-to-alls (combined 1F1B)");
        rows.emplace_back(QObject::tr("Communication overlap"),
                          overlapped.isEmpty() ? QObject::tr("none") : overlapped.join(u", "_s));
    }
    if (w.activation_offload_layers > 0)
        rows.emplace_back(
            QObject::tr("Activation offloading"),
            QObject::tr("%1 layers' activations to host memory").arg(w.activation_offload_layers));
    rows.emplace_back(QObject::tr("Cost model"),
                      c.mode == models::CostMode::Rent
                          ? QObject::tr("rent (power and cooling in the hourly price)")
                          : QObject::tr("buy (amortised, plus electricity)"));
    const auto price = [](const std::optional<double>& set, const models::Sourced* fromCatalog,
                          const QString& prefix, int decimals) {
        if (set)
            return prefix + formatFixed(*set, decimals) + QObject::tr(" (scenario)");
        if (fromCatalog && fromCatalog->present())
            return prefix + formatFixed(fromCatalog->value, decimals) + QObject::tr(" (catalog)");
        return QObject::tr("not in the catalog");
    };
    rows.emplace_back(
        QObject::tr("Rent per device-hour"),
        price(c.rent_usd_per_device_hour, device ? &device->rent_usd_per_hour : nullptr, u"$"_s, 2));
    rows.emplace_back(QObject::tr("Purchase per device"),
                      price(c.buy_usd_per_device, device ? &device->buy_usd : nullptr, u"$"_s, 0));
    rows.emplace_back(QObject::tr("Amortisation"),
                      formatCompact(c.amortisation_years) + QObject::tr(" years"));
    rows.emplace_back(QObject::tr("Electricity"),
                      u"$"_s + formatCompact(c.electricity_usd_per_kWh) + u"/kWh"_s);
    rows.emplace_back(QObject::tr("PUE"), formatCompact(c.pue));
    return rows;
}

// The catalog figures the simulation used for one device, each with its source key.
struct Figure {
    QString name;
    QString value;
    models::Sourced sourced;
};

std::vector<Figure> deviceFigures(const models::Device& d, models::Precision precision) {
    std::vector<Figure> out;
    const auto add = [&out](const QString& name, const models::Sourced& s, const QString& unit,
                            int digits = 4) {
        if (s.present())
            out.push_back(
                {name, formatCompact(s.value, digits) + (unit.isEmpty() ? QString() : u' ' + unit), s});
    };
    if (auto it = d.peak_tflops.find(precision); it != d.peak_tflops.end())
        add(QObject::tr("Peak dense %1").arg(q(models::toString(precision))), it->second, u"TFLOP/s"_s);
    add(QObject::tr("Memory"), d.memory_GB, u"GB"_s);
    add(QObject::tr("Memory bandwidth"), d.memory_bandwidth_TBps, u"TB/s"_s);
    add(QObject::tr("TDP"), d.tdp_W, u"W"_s);
    add(QObject::tr("Idle power"), d.idle_W, u"W"_s);
    add(QObject::tr("NIC"), d.nic_Gbps, u"Gb/s"_s);
    add(QObject::tr("Host link"), d.host_link_GBps, u"GB/s"_s);
    if (d.scale_up) {
        add(QObject::tr("Scale-up (%1) bandwidth").arg(q(d.scale_up->fabric)), d.scale_up->bandwidth_GBps,
            u"GB/s"_s);
        add(QObject::tr("Scale-up domain"), d.scale_up->domain_size, QObject::tr("devices"));
        add(QObject::tr("Scale-up latency"), d.scale_up->latency_us, u"µs"_s);
    }
    if (d.buy_usd.present())
        out.push_back({QObject::tr("Purchase price"), formatUsd(d.buy_usd.value), d.buy_usd});
    if (d.rent_usd_per_hour.present())
        out.push_back({QObject::tr("Rent per hour"), u"$"_s + formatFixed(d.rent_usd_per_hour.value, 2),
                       d.rent_usd_per_hour});
    add(QObject::tr("Efficiency: GEMM"), d.efficiency.gemm, QObject::tr("of peak"), 3);
    add(QObject::tr("GEMM half-rate size"), d.efficiency.gemm_half_gflop, u"GFLOP"_s, 3);
    for (const auto& [p, f] : d.efficiency.gemm_by_precision)
        add(QObject::tr("Efficiency: GEMM %1").arg(q(models::toString(p))), f, QObject::tr("of peak"), 3);
    for (const auto& [p, f] : d.efficiency.gemm_half_gflop_by_precision)
        add(QObject::tr("GEMM %1 half-rate size").arg(q(models::toString(p))), f, u"GFLOP"_s, 3);
    add(QObject::tr("Efficiency: attention"), d.efficiency.attention, QObject::tr("of peak"), 3);
    add(QObject::tr("Attention half-rate size"), d.efficiency.attention_half_gflop, u"GFLOP"_s, 3);
    add(QObject::tr("Efficiency: FlashAttention-2"), d.efficiency.attention_flash2, QObject::tr("of peak"),
        3);
    add(QObject::tr("FlashAttention-2 half-rate size"), d.efficiency.attention_flash2_half_gflop, u"GFLOP"_s,
        3);
    add(QObject::tr("Efficiency: memory"), d.efficiency.memory, QObject::tr("of peak"), 3);
    add(QObject::tr("Efficiency: network"), d.efficiency.network, QObject::tr("of line rate"), 3);
    add(QObject::tr("Efficiency: NIC"), d.efficiency.nic, QObject::tr("of line rate"), 3);
    add(QObject::tr("Kernel overhead"), d.efficiency.kernel_overhead_us, u"µs"_s, 3);
    add(QObject::tr("Collective base latency"), d.efficiency.collective_base_us, u"µs"_s, 3);
    add(QObject::tr("Ring step latency, scale-up"), d.efficiency.ring_step_scale_up_us, u"µs"_s, 3);
    add(QObject::tr("Ring step latency, network"), d.efficiency.ring_step_network_us, u"µs"_s, 3);
    add(QObject::tr("Tree step latency, scale-up"), d.efficiency.tree_step_scale_up_us, u"µs"_s, 3);
    add(QObject::tr("Tree step latency, network"), d.efficiency.tree_step_network_us, u"µs"_s, 3);
    add(QObject::tr("Tree bandwidth"), d.efficiency.tree_bandwidth_fraction, QObject::tr("of the ring's"), 3);
    return out;
}

// S2 before S10: source keys sorted as people number them.
struct SourceKeyOrder {
    bool operator()(const std::string& a, const std::string& b) const {
        const auto split = [](const std::string& key) {
            std::size_t digits = key.size();
            while (digits > 0 && std::isdigit(static_cast<unsigned char>(key[digits - 1])))
                --digits;
            const std::string number = key.substr(digits);
            return std::make_tuple(key.substr(0, digits), number.size(), number);
        };
        return split(a) < split(b);
    }
};

// Page 4 on: the scenario, the catalog figures with their sources, the sweep table.
void writeScenario(ReportPainter& page, const ReportInput& in) {
    page.heading(QObject::tr("Scenario"));
    page.table(keyValueTable(scenarioRows(in), 0.25));
}

void writeSources(ReportPainter& page, const ReportInput& in) {
    page.heading(QObject::tr("Assumptions and sources"));
    page.paragraph(
        QObject::tr("Catalog figures used for this run. CHOREO-DEFAULT marks a modelling assumption of "
                    "Choreo's own, to be replaced by calibration."),
        8.5, QColor(0x40, 0x40, 0x40));
    std::set<std::string, SourceKeyOrder> cited;
    std::set<std::string> devicesDone;
    for (const auto& pool : in.scenario.cluster.pools) {
        const models::Device* d = in.catalog ? in.catalog->find(pool.device) : nullptr;
        if (!d || !devicesDone.insert(d->id).second)
            continue;
        page.subheading(QObject::tr("%1 (%2)").arg(q(d->name), q(d->id)));
        ReportTable t;
        t.headers = {QObject::tr("Figure"), QObject::tr("Value"), QObject::tr("Source"), QObject::tr("As of"),
                     QObject::tr("Note")};
        t.widths = {0.22, 0.15, 0.16, 0.1, 0.37};
        t.fontPt = 7.5;
        for (const Figure& f : deviceFigures(*d, in.scenario.workload.precision)) {
            const models::Source* source = in.catalog->source(f.sourced.source);
            cited.insert(f.sourced.source);
            t.rows.push_back({f.name, f.value, q(f.sourced.source), source ? q(source->as_of) : QString(),
                              q(f.sourced.note)});
        }
        page.table(t);
    }
    if (!cited.empty() && in.catalog) {
        page.subheading(QObject::tr("Sources"));
        ReportTable t;
        t.widths = {0.16, 0.84};
        t.fontPt = 7.5;
        for (const auto& key : cited) {
            const models::Source* s = in.catalog->source(key);
            t.rows.push_back(
                {q(key), s ? QObject::tr("%1. %2 (as of %3)").arg(q(s->title), q(s->url), q(s->as_of))
                           : QObject::tr("(not in the catalog's source table)")});
        }
        page.table(t);
    }
}

void writeSweepTable(ReportPainter& page, const SweepResultModel& sweep) {
    page.heading(QObject::tr("Scaling sweep"));
    page.paragraph(
        QObject::tr("Strong scaling over the data-parallel degree at the same global batch. Failed "
                    "points are kept and marked."),
        8.5, QColor(0x40, 0x40, 0x40));
    ReportTable t;
    const QList<int> columns = {SweepResultModel::DevicesColumn,     SweepResultModel::StatusColumn,
                                SweepResultModel::StepTimeColumn,    SweepResultModel::TokensPerSecondColumn,
                                SweepResultModel::EfficiencyColumn,  SweepResultModel::MfuColumn,
                                SweepResultModel::TimeToTrainColumn, SweepResultModel::CostColumn,
                                SweepResultModel::MemoryColumn};
    // Shorter than the on-screen headers: nine columns share a portrait page.
    t.headers = {QObject::tr("Devices"),  QObject::tr("Status"),     QObject::tr("Step (s)"),
                 QObject::tr("Tokens/s"), QObject::tr("Efficiency"), QObject::tr("MFU"),
                 QObject::tr("Days"),     QObject::tr("Cost"),       QObject::tr("Memory (GB)")};
    t.widths = {0.13, 0.08, 0.1, 0.13, 0.1, 0.09, 0.09, 0.15, 0.13};
    t.alignRight = {true, false, true, true, true, true, true, true, true};
    t.fontPt = 8;
    for (int row = 0; row < sweep.rowCount(); ++row) {
        const auto& outcome = sweep.outcomes()[static_cast<std::size_t>(row)];
        QStringList cells;
        if (outcome.state == SweepOutcome::State::Failed) {
            // The reason spans the number columns it leaves empty.
            cells << sweep.index(row, SweepResultModel::DevicesColumn).data().toString()
                  << sweep.index(row, SweepResultModel::StatusColumn).data().toString()
                  << sweep.index(row, SweepResultModel::NoteColumn).data().toString();
        } else {
            for (int c : columns)
                cells << sweep.index(row, c).data(Qt::DisplayRole).toString();
        }
        t.rows.push_back(cells);
        t.rowColors.push_back(outcome.state == SweepOutcome::State::Failed ? kFailedText : QColor());
    }
    if (t.rows.empty())
        page.paragraph(QObject::tr("No sweep points."));
    else
        page.table(t);
}

} // namespace

int writeReportPdf(const ReportInput& in, const QString& path, QString& error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return 0;
    }
    ResultSummaryModel summary;
    summary.setResult(in.base);
    SweepResultModel sweep;
    sweep.setOutcomes(in.sweep, in.base.devices);
    TimelineModel timeline;
    timeline.setTimeline(in.base.timeline);
    PowerTraceModel power;
    power.setResult(in.base);

    int pages = 0;
    {
        QPdfWriter writer(&file);
        writer.setResolution(kResolutionDpi);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                         QMarginsF(18, 16, 18, 14), QPageLayout::Millimeter));
        writer.setTitle(QObject::tr("Choreo report: %1").arg(q(in.scenario.name)));
        writer.setCreator(u"Choreo"_s);
        QPainter painter;
        if (!painter.begin(&writer)) {
            error = QObject::tr("cannot start a PDF on %1").arg(path);
            file.cancelWriting();
            return 0;
        }
        ReportPainter page(writer, painter,
                           QObject::tr("Choreo report · %1 · %2")
                               .arg(q(in.scenario.name), in.generated.toString(u"yyyy-MM-dd"_s)));
        // Each group of sections starts a page, unless only the title is on this one; with every section
        // selected that gives summary, charts, one step, inputs and calibration each on their own pages.
        const ReportSections& want = in.sections;
        bool titleOnly = true;
        const auto startPage = [&] {
            if (!titleOnly)
                page.newPage();
            titleOnly = false;
        };
        writeTitle(page, in);
        if (want.has(ReportSection::Summary)) {
            writeSummary(page, summary);
            titleOnly = false;
        }
        if (want.has(ReportSection::Memory)) {
            writeMemory(page, summary);
            titleOnly = false;
        }
        if (want.has(ReportSection::Charts)) {
            startPage();
            writeCharts(page, painter, sweep);
        }
        if (want.has(ReportSection::Timeline)) {
            startPage();
            writeStep(page, painter, in, timeline, power);
        }
        if (want.has(ReportSection::Scenario) || want.has(ReportSection::Sources) ||
            want.has(ReportSection::Sweep))
            startPage();
        if (want.has(ReportSection::Scenario))
            writeScenario(page, in);
        if (want.has(ReportSection::Sources))
            writeSources(page, in);
        if (want.has(ReportSection::Sweep))
            writeSweepTable(page, sweep);
        if (in.profile && want.has(ReportSection::Calibration)) {
            startPage();
            writeCalibrationPage(page, in);
        }
        page.finish();
        pages = page.pageCount();
        painter.end();
    }
    if (!file.commit()) {
        error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return 0;
    }
    return pages;
}

namespace {

QString esc(const QString& text) {
    return text.toHtmlEscaped();
}

QString htmlTable(const std::vector<std::pair<QString, QString>>& rows) {
    QString out = u"<table class=\"kv\">\n"_s;
    for (const auto& [key, value] : rows)
        out += u"<tr><th>%1</th><td>%2</td></tr>\n"_s.arg(esc(key), esc(value));
    return out + u"</table>\n"_s;
}

// A chart as inline SVG: the same vector drawing the PDF gets.
QString svgChart(const std::function<void(QPainter&, const QRectF&, const QSizeF&)>& render,
                 const QString& title) {
    const QSize size(760, 380);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        QPainter painter(&svg);
        render(painter, QRectF(QPointF(0, 0), QSizeF(size)), QSizeF(size));
    }
    QString text = QString::fromUtf8(buffer.data());
    // Inline SVG needs no XML prolog.
    if (const auto start = text.indexOf(u"<svg"_s); start > 0)
        text = text.mid(start);
    return u"<figure>"_s + text + u"</figure>\n"_s;
}

QString timelineHtml(const ReportInput& in) {
    QString h = u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("One step: timeline and power")));
    TimelineModel timeline;
    timeline.setTimeline(in.base.timeline);
    PowerTraceModel power;
    power.setResult(in.base);
    if (timeline.rowCount() == 0) {
        h += u"<p>%1</p>\n"_s.arg(
            esc(QObject::tr("This result has no step timeline (it was written by an older version).")));
    } else {
        h += svgChart([&](QPainter& p, const QRectF& r,
                          const QSizeF& s) { renderGanttChart(timeline, timelineTitle(in.base), p, r, s); },
                      QObject::tr("Step timeline"));
        h += u"<p class=\"note\">%1</p>\n"_s.arg(esc(timelineCaption()));
        h +=
            svgChart([&](QPainter& p, const QRectF& r, const QSizeF& s) { renderPowerChart(power, p, r, s); },
                     QObject::tr("Power over one step"));
        h += u"<p class=\"note\">%1</p>\n"_s.arg(esc(powerCaption(power)));
    }
    return h;
}

QString sourcesHtml(const ReportInput& in) {
    QString h = u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("Assumptions and sources")));
    h += u"<p class=\"note\">%1</p>\n"_s.arg(
        esc(QObject::tr("Catalog figures used for this run. CHOREO-DEFAULT marks a modelling assumption of "
                        "Choreo's own, to be replaced by calibration.")));
    std::set<std::string, SourceKeyOrder> cited;
    std::set<std::string> devicesDone;
    for (const auto& pool : in.scenario.cluster.pools) {
        const models::Device* d = in.catalog ? in.catalog->find(pool.device) : nullptr;
        if (!d || !devicesDone.insert(d->id).second)
            continue;
        h += u"<h4>%1 (%2)</h4>\n<table><tr><th>%3</th><th>%4</th><th>%5</th><th>%6</th><th>%7</th></tr>\n"_s
                 .arg(esc(q(d->name)), esc(q(d->id)), esc(QObject::tr("Figure")), esc(QObject::tr("Value")),
                      esc(QObject::tr("Source")), esc(QObject::tr("As of")), esc(QObject::tr("Note")));
        for (const Figure& f : deviceFigures(*d, in.scenario.workload.precision)) {
            const models::Source* source = in.catalog->source(f.sourced.source);
            cited.insert(f.sourced.source);
            h += u"<tr><td>%1</td><td class=\"num\">%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n"_s.arg(
                esc(f.name), esc(f.value), esc(q(f.sourced.source)),
                source ? esc(q(source->as_of)) : QString(), esc(q(f.sourced.note)));
        }
        h += u"</table>\n"_s;
    }
    if (!cited.empty() && in.catalog) {
        h += u"<h4>%1</h4>\n<table>\n"_s.arg(esc(QObject::tr("Sources")));
        for (const auto& key : cited) {
            const models::Source* s = in.catalog->source(key);
            const QString text =
                s ? u"%1. <a href=\"%2\">%2</a> (%3)"_s.arg(esc(q(s->title)), esc(q(s->url)),
                                                            esc(QObject::tr("as of %1").arg(q(s->as_of))))
                  : esc(QObject::tr("(not in the catalog's source table)"));
            h += u"<tr><td>%1</td><td>%2</td></tr>\n"_s.arg(esc(q(key)), text);
        }
        h += u"</table>\n"_s;
    }
    return h;
}

QString sweepHtml(const SweepResultModel& sweep) {
    QString h = u"<h3>%1</h3>\n<table><tr>"_s.arg(esc(QObject::tr("Scaling sweep")));
    for (int c = 0; c < SweepResultModel::ColumnCount; ++c)
        h += u"<th>%1</th>"_s.arg(esc(sweep.headerData(c, Qt::Horizontal).toString()));
    h += u"</tr>\n"_s;
    for (int row = 0; row < sweep.rowCount(); ++row) {
        const bool failed =
            sweep.outcomes()[static_cast<std::size_t>(row)].state == SweepOutcome::State::Failed;
        h += failed ? u"<tr class=\"failed\">"_s : u"<tr>"_s;
        for (int c = 0; c < SweepResultModel::ColumnCount; ++c) {
            const QModelIndex index = sweep.index(row, c);
            const bool number = index.data(ValueRole).isValid();
            h += (number ? u"<td class=\"num\">%1</td>"_s : u"<td>%1</td>"_s)
                     .arg(esc(index.data().toString()));
        }
        h += u"</tr>\n"_s;
    }
    h += u"</table>\n"_s;
    return h;
}

} // namespace

QString reportHtml(const ReportInput& in) {
    ResultSummaryModel summary;
    summary.setResult(in.base);
    SweepResultModel sweep;
    sweep.setOutcomes(in.sweep, in.base.devices);

    QString h;
    h += u"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"_s;
    h += u"<title>%1</title>\n"_s.arg(esc(QObject::tr("Choreo report: %1").arg(q(in.scenario.name))));
    h += u"<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#202020}"
         "table{border-collapse:collapse;margin:0.5em 0 1em}th,td{border:1px solid #ccc;padding:2px 8px;"
         "text-align:left;font-size:90%}table.kv th{font-weight:normal;color:#404040}td.num{text-align:right}"
         "tr.failed td{color:#b02020}figure{margin:1em 0}p.note{color:#505050;font-size:85%}</style>\n"_s;
    h += u"</head><body>\n"_s;
    h += u"<h1>%1</h1>\n<h2>%2</h2>\n"_s.arg(esc(QObject::tr("Choreo report")), esc(q(in.scenario.name)));
    if (in.scenario.description && !in.scenario.description->empty())
        h += u"<p>%1</p>\n"_s.arg(esc(q(*in.scenario.description)));
    h += u"<p class=\"note\">%1</p>\n"_s.arg(esc(generatedNote(in)));
    const ReportSections& want = in.sections;
    if (want.has(ReportSection::Summary)) {
        h += u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("Results")));
        h += htmlTable(summary.rowsOf(ResultSummaryModel::Group::Results));
        h += u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("Step time")));
        h += htmlTable(summary.rowsOf(ResultSummaryModel::Group::StepTime));
    }
    if (want.has(ReportSection::Memory)) {
        h += u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("Memory per device")));
        h += htmlTable(summary.rowsOf(ResultSummaryModel::Group::Memory));
    }
    if (want.has(ReportSection::Charts)) {
        h += u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("Step-time breakdown and scaling")));
        h += svgChart(
            [&](QPainter& p, const QRectF& r, const QSizeF& s) { renderStepBreakdownChart(sweep, p, r, s); },
            QObject::tr("Step-time breakdown"));
        h += svgChart(
            [&](QPainter& p, const QRectF& r, const QSizeF& s) { renderScalingChart(sweep, p, r, s); },
            QObject::tr("Scaling"));
    }
    if (want.has(ReportSection::Timeline))
        h += timelineHtml(in);
    if (want.has(ReportSection::Scenario)) {
        h += u"<h3>%1</h3>\n"_s.arg(esc(QObject::tr("Scenario")));
        h += htmlTable(scenarioRows(in));
    }
    if (want.has(ReportSection::Calibration))
        h += calibrationSectionHtml(in);
    if (want.has(ReportSection::Sources))
        h += sourcesHtml(in);
    if (want.has(ReportSection::Sweep))
        h += sweepHtml(sweep);
    h += u"</body></html>\n"_s;
    return h;
}

bool writeReportHtml(const ReportInput& input, const QString& path, QString& error) {
    std::string message;
    if (!models::writeTextFileAtomically(path.toStdString(), reportHtml(input).toStdString(), message)) {
        error = QString::fromStdString(message);
        return false;
    }
    return true;
}

} // namespace choreo::ui
