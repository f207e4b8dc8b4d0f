#include "ui/reports/reportcontent.h"

#include "models/fieldtable.h"
#include "ui/charts/chartrender.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/powertracemodel.h"
#include "ui/itemmodels/resultsummarymodel.h"
#include "ui/itemmodels/servingcurvemodel.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/itemmodels/timelinemodel.h"
#include "ui/reports/calibrationsection.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <tuple>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

using KeyValueRows = std::vector<std::pair<QString, QString>>;

QString q(const std::string& s) {
    return QString::fromStdString(s);
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

// The scenario's pools, and the training device's links (`device`, from the catalog) that the network
// fields the scenario leaves unset fall back to; the network fields themselves are addFieldRows'.
void addClusterRows(KeyValueRows& rows, const ReportInput& in, const models::Pool* training,
                    const models::Device* device) {
    const auto& s = in.scenario;
    for (const auto& p : s.cluster.pools) {
        const models::Device* d = in.catalog ? in.catalog->find(p.device) : nullptr;
        rows.emplace_back(QObject::tr("Pool \"%1\"").arg(q(p.name)),
                          QObject::tr("%1 × %2 (%3), %4 per node%5%6")
                              .arg(p.count)
                              .arg(q(p.device), d ? q(d->name) : QObject::tr("unknown device"))
                              .arg(p.devices_per_node)
                              .arg(p.power_limit_W
                                       ? QObject::tr(", limited to %1 W").arg(formatCompact(*p.power_limit_W))
                                       : QString(),
                                   &p == training ? QObject::tr("; trains the model") : QString()));
    }
    if (!device)
        return;
    const auto& net = s.cluster.network;
    QStringList fromCatalog;
    if (!net.nic_Gbps)
        fromCatalog << (device->nic_Gbps.present()
                            ? QObject::tr("NIC %1 Gb/s").arg(formatCompact(device->nic_Gbps.value))
                            : QObject::tr("no NIC figure"));
    if (const auto& fabric = device->scale_up) {
        if (!net.scale_up.fabric)
            fromCatalog << QObject::tr("scale-up fabric %1").arg(q(fabric->fabric));
        if (!net.scale_up.bandwidth_GBps && fabric->bandwidth_GBps.present())
            fromCatalog << QObject::tr("%1 GB/s per device").arg(formatCompact(fabric->bandwidth_GBps.value));
        if (!net.scale_up.latency_us && fabric->latency_us.present())
            fromCatalog << QObject::tr("latency %1").arg(formatCompact(fabric->latency_us.value) + u" µs"_s);
    } else if (!net.scale_up.fabric) {
        fromCatalog << QObject::tr("no scale-up fabric");
    }
    if (!fromCatalog.isEmpty())
        rows.emplace_back(QObject::tr("Links (catalog)"),
                          q(device->name) + u": "_s + fromCatalog.join(u", "_s));
}

// One field of the table in a report row: "Layers 80", "sequence parallel", "no dropout"; empty when it does
// not apply or holds the default the file leaves out.
QString fieldPhrase(const models::FieldSpec& field, const models::Scenario& s) {
    if (!field.appliesTo(s))
        return {};
    const models::FieldValue value = field.get(s);
    if (const auto* on = std::get_if<bool>(&value)) {
        if (*on)
            return q(field.label);
        return field.fallback == models::FieldValue{true} ? QObject::tr("no %1").arg(q(field.label))
                                                          : QString();
    }
    if (std::holds_alternative<std::monostate>(value) || (field.omit_default && value == field.fallback))
        return {};
    return q(field.label) + u' ' + q(field.describe(s));
}

// One row per group of the field table (models/fieldtable.cpp): what is trained, how it is laid out, its
// network, and how the cost is reckoned.
void addFieldRows(KeyValueRows& rows, const models::Scenario& s) {
    for (const auto& group : models::fieldGroups()) {
        QStringList phrases;
        bool applies = false;
        for (const auto& field : models::scenarioFields()) {
            if (field.group != group)
                continue;
            applies = applies || field.appliesTo(s);
            if (QString phrase = fieldPhrase(field, s); !phrase.isEmpty())
                phrases << phrase;
        }
        if (applies)
            rows.emplace_back(q(group), phrases.isEmpty() ? QObject::tr("none") : phrases.join(u", "_s));
    }
}

// The prices the cost used, from the scenario, the provider's offer (renting) or the catalog's `device`.
void addPriceRows(KeyValueRows& rows, const models::Costs& c, const models::Device* device,
                  const models::Catalog* catalog) {
    const auto price = [](const std::optional<double>& set, const models::Sourced* fromCatalog,
                          const QString& prefix, int decimals) {
        if (set)
            return prefix + formatFixed(*set, decimals) + QObject::tr(" (scenario)");
        if (fromCatalog && fromCatalog->present())
            return prefix + formatFixed(fromCatalog->value, decimals) + QObject::tr(" (catalog)");
        return QObject::tr("not in the catalog");
    };
    const models::Provider* provider =
        catalog && c.mode == models::CostMode::Rent ? catalog->provider(c.provider) : nullptr;
    const models::RentOffer* offer = provider && device ? provider->offer(device->id) : nullptr;
    rows.emplace_back(
        QObject::tr("Rent per device-hour"),
        offer && !c.rent_usd_per_device_hour
            ? u"$"_s + formatFixed(offer->usdPerDeviceHour(), 2) +
                  QObject::tr(" (%1 %2, on demand, %3)")
                      .arg(q(provider->name), q(offer->instance), q(offer->usd_per_instance_hour.source))
            : price(c.rent_usd_per_device_hour, device ? &device->rent_usd_per_hour : nullptr, u"$"_s, 2));
    rows.emplace_back(QObject::tr("Purchase per device"),
                      price(c.buy_usd_per_device, device ? &device->buy_usd : nullptr, u"$"_s, 0));
}

// The workload's stages in the file's order, each on its pool ("data on cpus, train on gpus, offload
// embeddings on cpus"); no row when the workload lists none (it trains on its pool alone).
void addStageRow(KeyValueRows& rows, const models::Scenario& s) {
    const auto& w = s.workload;
    const models::Pool* training = s.trainingPool();
    const QString trainingName = training ? q(training->name) : QObject::tr("the training pool");
    const QString hostCpus = QObject::tr("the host CPUs of %1").arg(trainingName);
    const auto pool = [](const std::optional<std::string>& name, const QString& otherwise) {
        return name ? q(*name) : otherwise;
    };
    std::vector<std::pair<std::size_t, QString>> stages;
    if (w.data)
        stages.emplace_back(w.data->stage_index, QObject::tr("data on %1").arg(pool(w.data->pool, hostCpus)));
    if (w.train_stage_index)
        stages.emplace_back(*w.train_stage_index, QObject::tr("train on %1").arg(trainingName));
    for (const auto& o : w.offload)
        stages.emplace_back(
            o.stage_index,
            QObject::tr("offload %1 on %2").arg(q(models::toString(o.target)), pool(o.pool, hostCpus)));
    if (w.eval)
        stages.emplace_back(w.eval->stage_index, QObject::tr("eval every %1 steps on %2")
                                                     .arg(w.eval->every_steps)
                                                     .arg(pool(w.eval->pool, trainingName)));
    if (w.serve)
        stages.emplace_back(w.serve->stage_index,
                            QObject::tr("serve on %1").arg(pool(w.serve->pool, trainingName)));
    if (stages.empty())
        return;
    std::stable_sort(stages.begin(), stages.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    QStringList phrases;
    for (const auto& [index, phrase] : stages)
        phrases << phrase;
    rows.emplace_back(QObject::tr("Stages"), phrases.join(u", "_s));
}

KeyValueRows scenarioRows(const ReportInput& in) {
    KeyValueRows rows;
    const models::Pool* training = in.scenario.trainingPool();
    const models::Device* device = training && in.catalog ? in.catalog->find(training->device) : nullptr;
    addClusterRows(rows, in, training, device);
    addStageRow(rows, in.scenario);
    addFieldRows(rows, in.scenario);
    addPriceRows(rows, in.scenario.costs, device, in.catalog);
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

// One group of the result summary (results, step time, memory per device) under `title`.
report::Section keyValueSection(const QString& title, const ResultSummaryModel& summary,
                                ResultSummaryModel::Group group) {
    return {title, {report::KeyValues{summary.rowsOf(group)}}};
}

// The step-time breakdown and scaling charts over the sweep, drawn as vector graphics.
report::Section chartsSection(const std::shared_ptr<const SweepResultModel>& sweep) {
    report::Section section{QObject::tr("Step-time breakdown and scaling")};
    section.blocks.emplace_back(report::Chart{
        QObject::tr("Step-time breakdown"),
        [sweep](QPainter& p, const QRectF& r, const QSizeF& s) { renderStepBreakdownChart(*sweep, p, r, s); },
        0.44});
    section.blocks.emplace_back(report::Note{
        QObject::tr("Where one training step's time goes on the device that finishes last, for each "
                    "size of the scaling sweep (same global batch, tp and pp; dp varies).")});
    section.blocks.emplace_back(report::Chart{
        QObject::tr("Scaling"),
        [sweep](QPainter& p, const QRectF& r, const QSizeF& s) { renderScalingChart(*sweep, p, r, s); },
        0.44});
    section.blocks.emplace_back(report::Note{
        QObject::tr("Throughput and scaling efficiency (throughput per device relative to the smallest "
                    "successful point). Points that failed, for example because they do not fit in "
                    "memory, are marked in red and listed in the sweep table.")});
    return section;
}

// A serving run's latency against throughput over the rate search's loads.
report::Section servingCurveSection(const ReportInput& in) {
    report::Section section{QObject::tr("Latency against throughput")};
    auto curve = std::make_shared<ServingCurveModel>();
    curve->setResult(in.base);
    if (curve->rowCount() == 0) {
        section.blocks.emplace_back(report::Paragraph{
            QObject::tr("No rate was searched: the scenario sets no SLO (or the result is from an older "
                        "version).")});
        return section;
    }
    section.blocks.emplace_back(report::Chart{
        QObject::tr("Latency against throughput"),
        [curve](QPainter& p, const QRectF& r, const QSizeF& s) { renderServingCurveChart(*curve, p, r, s); },
        0.5});
    section.blocks.emplace_back(report::Note{
        QObject::tr("p99 time to first token and time per output token at each Poisson load the search "
                    "simulated (each a stream of its own, at least 600 s of arrivals), against the output "
                    "tokens per second it achieved. Dashed: the SLOs; dotted: the highest rate that meets "
                    "both; red: loads that miss one.")});
    return section;
}

// One step, as a Gantt chart per pipeline stage and as power over time.
report::Section timelineSection(const ReportInput& in) {
    report::Section section{QObject::tr("One step: timeline and power")};
    auto timeline = std::make_shared<TimelineModel>();
    timeline->setTimeline(in.base.timeline);
    if (timeline->rowCount() == 0) {
        section.blocks.emplace_back(report::Paragraph{
            QObject::tr("This result has no step timeline (it was written by an older version).")});
        return section;
    }
    auto power = std::make_shared<PowerTraceModel>();
    power->setResult(in.base);
    section.blocks.emplace_back(report::Chart{
        QObject::tr("Step timeline"),
        [timeline, title = timelineTitle(in.base)](QPainter& p, const QRectF& r, const QSizeF& s) {
            renderGanttChart(*timeline, title, p, r, s);
        },
        0.42});
    section.blocks.emplace_back(report::Note{timelineCaption()});
    section.blocks.emplace_back(report::Chart{
        QObject::tr("Power over one step"),
        [power](QPainter& p, const QRectF& r, const QSizeF& s) { renderPowerChart(*power, p, r, s); }, 0.42});
    section.blocks.emplace_back(report::Note{powerCaption(*power)});
    return section;
}

report::Section scenarioSection(const ReportInput& in) {
    return {QObject::tr("Scenario"), {report::KeyValues{scenarioRows(in), 0.25}}};
}

// One device's catalog figures, each with its source; the sources' keys are added to `cited`.
report::Table figuresTable(const ReportInput& in, const models::Device& d,
                           std::set<std::string, SourceKeyOrder>& cited) {
    report::Table table;
    table.columns = {{QObject::tr("Figure"), {}, 0.22},
                     {QObject::tr("Value"), {}, 0.15, true},
                     {QObject::tr("Source"), {}, 0.16},
                     {QObject::tr("As of"), {}, 0.1},
                     {QObject::tr("Note"), {}, 0.37}};
    table.printFontPt = 7.5;
    for (const Figure& f : deviceFigures(d, in.scenario.workload.precision)) {
        const models::Source* source = in.catalog->source(f.sourced.source);
        cited.insert(f.sourced.source);
        table.rows.push_back({{f.name, f.value, q(f.sourced.source), source ? q(source->as_of) : QString(),
                               q(f.sourced.note)}});
    }
    return table;
}

// The sources cited, by key: title, address and date.
report::Table sourcesTable(const models::Catalog& catalog,
                           const std::set<std::string, SourceKeyOrder>& cited) {
    report::Table table;
    table.columns = {{{}, {}, 0.16}, {{}, {}, 0.84}};
    table.printFontPt = 7.5;
    for (const auto& key : cited) {
        const models::Source* s = catalog.source(key);
        table.rows.push_back(
            {{q(key),
              s ? report::Cell(QObject::tr("%1. %2 (as of %3)").arg(q(s->title), q(s->url), q(s->as_of)),
                               q(s->url))
                : report::Cell(QObject::tr("(not in the catalog's source table)"))}});
    }
    return table;
}

// The catalog figures the run used, per device of the scenario, and their sources.
report::Section sourcesSection(const ReportInput& in) {
    report::Section section{QObject::tr("Assumptions and sources")};
    section.blocks.emplace_back(
        report::Note{QObject::tr("Catalog figures used for this run. CHOREO-DEFAULT marks a modelling "
                                 "assumption of Choreo's own, to be replaced by calibration.")});
    std::set<std::string, SourceKeyOrder> cited;
    std::set<std::string> devicesDone;
    for (const auto& pool : in.scenario.cluster.pools) {
        const models::Device* d = in.catalog ? in.catalog->find(pool.device) : nullptr;
        if (!d || !devicesDone.insert(d->id).second)
            continue;
        section.blocks.emplace_back(report::Subheading{QObject::tr("%1 (%2)").arg(q(d->name), q(d->id))});
        section.blocks.emplace_back(figuresTable(in, *d, cited));
    }
    if (!cited.empty() && in.catalog) {
        section.blocks.emplace_back(report::Subheading{QObject::tr("Sources")});
        section.blocks.emplace_back(sourcesTable(*in.catalog, cited));
    }
    return section;
}

// Every point of the scaling sweep, failed ones included. The printed table has the nine columns that fit
// a portrait page, with shorter headers than the screen's.
report::Table sweepTable(const SweepResultModel& sweep) {
    const std::map<int, std::pair<QString, double>> printColumns = {
        {SweepResultModel::DevicesColumn, {QObject::tr("Devices"), 0.13}},
        {SweepResultModel::StatusColumn, {QObject::tr("Status"), 0.08}},
        {SweepResultModel::StepTimeColumn, {QObject::tr("Step (s)"), 0.1}},
        {SweepResultModel::TokensPerSecondColumn, {QObject::tr("Tokens/s"), 0.13}},
        {SweepResultModel::EfficiencyColumn, {QObject::tr("Efficiency"), 0.1}},
        {SweepResultModel::MfuColumn, {QObject::tr("MFU"), 0.09}},
        {SweepResultModel::TimeToTrainColumn, {QObject::tr("Days"), 0.09}},
        {SweepResultModel::CostColumn, {QObject::tr("Cost"), 0.15}},
        {SweepResultModel::MemoryColumn, {QObject::tr("Memory (GB)"), 0.13}}};
    report::Table table;
    for (int c = 0; c < SweepResultModel::ColumnCount; ++c) {
        const auto print = printColumns.find(c);
        table.columns.push_back({sweep.headerData(c, Qt::Horizontal).toString(),
                                 print != printColumns.end() ? print->second.first : QString(),
                                 print != printColumns.end() ? print->second.second : 0.0,
                                 c != SweepResultModel::StatusColumn && c != SweepResultModel::NoteColumn});
    }
    table.reasonColumn = SweepResultModel::NoteColumn;
    table.whenEmpty = QObject::tr("No sweep points.");
    table.printFontPt = 8;
    for (int row = 0; row < sweep.rowCount(); ++row) {
        report::Row line;
        for (int c = 0; c < SweepResultModel::ColumnCount; ++c)
            line.cells.emplace_back(sweep.index(row, c).data(Qt::DisplayRole).toString());
        line.failed = sweep.outcomes()[static_cast<std::size_t>(row)].state == SweepOutcome::State::Failed;
        table.rows.push_back(std::move(line));
    }
    return table;
}

report::Section sweepSection(const SweepResultModel& sweep) {
    return {QObject::tr("Scaling sweep"),
            {report::Note{QObject::tr("Strong scaling over the data-parallel degree at the same global "
                                      "batch. Failed points are kept and marked.")},
             sweepTable(sweep)}};
}

} // namespace

report::Document buildReportDocument(const ReportInput& in) {
    report::Document document;
    document.documentTitle = QObject::tr("Choreo report: %1").arg(q(in.scenario.name));
    document.printFooter = QObject::tr("Choreo report · %1 · %2")
                               .arg(q(in.scenario.name), in.generated.toString(u"yyyy-MM-dd"_s));
    document.title = QObject::tr("Choreo report");
    document.scenarioName = q(in.scenario.name);
    if (in.scenario.description)
        document.description = q(*in.scenario.description);
    document.generatedNote = generatedNote(in);

    const ReportSections& want = in.sections;
    auto& sections = document.sections;
    const auto add = [&sections](report::Section section, bool onNewPage) {
        section.printOnNewPage = onNewPage;
        sections.push_back(std::move(section));
    };
    ResultSummaryModel summary;
    summary.setResult(in.base);
    auto sweep = std::make_shared<SweepResultModel>();
    sweep->setOutcomes(in.sweep, in.base.devices);
    // Printed, the results and memory share the title's page; charts, one step, the inputs (scenario,
    // sources and sweep) and the calibration each start one. Both formats show the sections in this order.
    // A serving result has no step: its section is the stream's, and the step charts are left out.
    const bool serving = in.base.kind == "serve";
    if (want.has(ReportSection::Summary)) {
        add(keyValueSection(serving ? QObject::tr("Serving") : QObject::tr("Results"), summary,
                            ResultSummaryModel::Group::Results),
            false);
        add(keyValueSection(serving ? QObject::tr("Replicas over the stream") : QObject::tr("Step time"),
                            summary, ResultSummaryModel::Group::StepTime),
            false);
    }
    if (want.has(ReportSection::Memory))
        add(keyValueSection(QObject::tr("Memory per device"), summary, ResultSummaryModel::Group::Memory),
            false);
    if (want.has(ReportSection::Charts))
        add(serving ? servingCurveSection(in) : chartsSection(sweep), true);
    if (want.has(ReportSection::Timeline) && !serving)
        add(timelineSection(in), true);
    bool inputsStarted = false;
    const auto addInput = [&](report::Section section) {
        add(std::move(section), !inputsStarted);
        inputsStarted = true;
    };
    if (want.has(ReportSection::Scenario))
        addInput(scenarioSection(in));
    if (want.has(ReportSection::Sources))
        addInput(sourcesSection(in));
    if (want.has(ReportSection::Sweep) && !serving)
        addInput(sweepSection(*sweep));
    if (in.profile && want.has(ReportSection::Calibration))
        add(calibrationReportSection(in), true);
    return document;
}

} // namespace choreo::ui
