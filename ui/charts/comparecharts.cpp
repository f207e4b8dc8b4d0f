#include "ui/charts/comparecharts.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/comparemodel.h"
#include "ui/itemmodels/formatting.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr double kSecondsPerDay = 86400.0;

QColor scenarioColor(std::size_t column) {
    return chartstyle::kScenario[column % chartstyle::kScenario.size()];
}

// A bar's label: a square in the scenario's colour, its title, and why it has no bar (axis labels are
// rich text).
QString categoryLabel(const CompareModel::Entry& e, std::size_t column, const QString& detail) {
    QString label = u"<span style=\"color:%1\">&#9632;</span> %2"_s.arg(scenarioColor(column).name(),
                                                                        e.title.toHtmlEscaped());
    if (e.state == CompareModel::State::Failed)
        label += u"<br>"_s + QObject::tr("failed");
    else if (!e.result)
        label += u"<br>"_s + QObject::tr("not run");
    else if (!detail.isEmpty())
        label += u"<br>"_s + detail;
    return label;
}

struct Segment {
    QString name;
    QColor color;
    std::function<double(const models::RunResult&)> value;
};

// Stacked bars, one per scenario; returns the tallest bar's total.
double addStackedBars(QChart& chart, const CompareModel& model, const std::vector<Segment>& segments,
                      const QStringList& categories, QBarCategoryAxis*& x) {
    auto* series = new QStackedBarSeries;
    double tallest = 0.0;
    for (const Segment& s : segments) {
        auto* set = new QBarSet(s.name);
        set->setColor(s.color);
        set->setBorderColor(s.color.darker(130));
        for (const auto& e : model.entries())
            *set << (e.result ? s.value(*e.result) : 0.0); // no result: an empty bar
        series->append(set);
    }
    for (const auto& e : model.entries()) {
        double total = 0.0;
        for (const Segment& s : segments)
            total += e.result ? s.value(*e.result) : 0.0;
        tallest = std::max(tallest, total);
    }
    series->setBarWidth(0.6);
    chart.addSeries(series);
    x = new QBarCategoryAxis;
    x->append(categories);
    chart.addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    return tallest;
}

QValueAxis* addValueAxis(QChart& chart, const QString& title, double max, Qt::Alignment alignment) {
    auto* axis = new QValueAxis;
    axis->setTitleText(title);
    axis->setRange(0.0, max > 0 ? max * 1.1 : 1.0);
    axis->applyNiceNumbers();
    axis->setLabelFormat(max >= 100 ? u"%.0f"_s : u"%.3g"_s);
    chart.addAxis(axis, alignment);
    return axis;
}

bool anyResult(const CompareModel& model) {
    return std::any_of(model.entries().begin(), model.entries().end(),
                       [](const CompareModel::Entry& e) { return e.result.has_value(); });
}

} // namespace

QChart* createCompareBreakdownChart(const CompareModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(anyResult(model) ? QObject::tr("Step-time breakdown")
                                     : QObject::tr("Step-time breakdown (run the scenarios to see it)"));
    QStringList categories;
    for (std::size_t c = 0; c < model.entries().size(); ++c) {
        const auto& e = model.entries()[c];
        categories << categoryLabel(
            e, c,
            e.result ? QObject::tr("%1 s").arg(formatSignificant(e.result->step_time_s, 4)) : QString());
    }
    std::vector<Segment> segments = {
        {QObject::tr("Compute"), chartstyle::kCompute,
         [](const models::RunResult& r) { return r.breakdown.compute_s; }},
        {QObject::tr("Exposed communication"), chartstyle::kCommunication,
         [](const models::RunResult& r) { return r.breakdown.exposed_communication_s; }},
        {QObject::tr("Pipeline bubble"), chartstyle::kBubble,
         [](const models::RunResult& r) { return r.breakdown.pipeline_bubble_s; }},
    };
    // A hybrid run's bar reaches its step time only with its waits for data and its evaluation pauses.
    const Segment hybridParts[] = {
        {QObject::tr("Waiting for data"), chartstyle::kDataWait,
         [](const models::RunResult& r) { return r.breakdown.data_wait_s; }},
        {QObject::tr("Evaluation"), chartstyle::kEval,
         [](const models::RunResult& r) { return r.breakdown.eval_s; }},
    };
    for (const Segment& part : hybridParts)
        if (std::any_of(model.entries().begin(), model.entries().end(), [&](const CompareModel::Entry& e) {
                return e.result && part.value(*e.result) > 0.0;
            }))
            segments.push_back(part);
    QBarCategoryAxis* x = nullptr;
    const double tallest = addStackedBars(*chart, model, segments, categories, x);
    auto* y = addValueAxis(*chart, QObject::tr("Step time (s)"), tallest, Qt::AlignLeft);
    chart->series().front()->attachAxis(y);
    return chart;
}

QChart* createComparePowerChart(const CompareModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(anyResult(model)
                        ? QObject::tr("Facility power over one step (PUE included)")
                        : QObject::tr("Facility power over one step (run the scenarios to see it)"));
    double peak_W = 0.0;
    for (const auto& e : model.entries())
        if (e.result)
            for (std::size_t k = 0; k < e.result->power.bins(); ++k)
                peak_W = std::max(peak_W, e.result->power.facility_W(k));
    // Megawatts read better than 12,000 kW on an axis.
    const double scale = peak_W >= 1e6 ? 1e6 : 1e3;
    const QString unit = peak_W >= 1e6 ? QObject::tr("MW") : QObject::tr("kW");

    auto* x = new QValueAxis;
    x->setTitleText(QObject::tr("Time in the step (% of each scenario's step time)"));
    x->setRange(0.0, 100.0);
    x->setLabelFormat(u"%.0f"_s);
    chartstyle::niceTicks(*x, 100.0);
    chart->addAxis(x, Qt::AlignBottom);
    auto* y = addValueAxis(*chart, QObject::tr("Power (%1)").arg(unit), peak_W / scale, Qt::AlignLeft);

    for (std::size_t c = 0; c < model.entries().size(); ++c) {
        const auto& e = model.entries()[c];
        if (!e.result)
            continue;
        const models::PowerTrace& p = e.result->power;
        auto* line = new QLineSeries;
        const QString energy = formatEnergyKWh(e.result->energy_kWh);
        line->setName(p.empty() ? QObject::tr("%1: %2 per run (no power trace)").arg(e.title, energy)
                                : QObject::tr("%1: %2 per run").arg(e.title, energy));
        // Steps over the bins: each bin holds its average power.
        const double end_s = p.empty() ? 0.0 : p.time_s.back();
        for (std::size_t k = 0; k < p.bins() && end_s > 0; ++k) {
            const double v = p.facility_W(k) / scale;
            line->append(100.0 * p.time_s[k] / end_s, v);
            line->append(100.0 * p.time_s[k + 1] / end_s, v);
        }
        line->setPen(QPen(scenarioColor(c), 2.0));
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
    }
    return chart;
}

QChart* createCompareCostChart(const CompareModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(anyResult(model)
                        ? QObject::tr("Time to train and total cost")
                        : QObject::tr("Time to train and total cost (run the scenarios to see it)"));
    double maxDays = 0.0, maxCost = 0.0;
    for (const auto& e : model.entries())
        if (e.result) {
            maxDays = std::max(maxDays, e.result->time_to_train_s / kSecondsPerDay);
            maxCost = std::max(maxCost, e.result->cost_usd);
        }
    // Millions of dollars read better than 1.2e+07 on an axis.
    const double costScale = maxCost >= 1e6 ? 1e6 : 1e3;
    const QString costUnit = maxCost >= 1e6 ? QObject::tr("M$") : QObject::tr("k$");
    auto* x = addValueAxis(*chart, QObject::tr("Time to train (days)"), maxDays, Qt::AlignBottom);
    auto* y = addValueAxis(*chart, QObject::tr("Total cost (%1)").arg(costUnit), maxCost / costScale,
                           Qt::AlignLeft);
    for (std::size_t c = 0; c < model.entries().size(); ++c) {
        const auto& e = model.entries()[c];
        if (!e.result)
            continue;
        // One series per scenario, so that the legend names it; the point carries its title too.
        auto* point = new QScatterSeries;
        point->setName(e.title);
        point->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        point->setMarkerSize(13);
        point->setColor(scenarioColor(c));
        point->setBorderColor(scenarioColor(c).darker(130));
        point->append(e.result->time_to_train_s / kSecondsPerDay, e.result->cost_usd / costScale);
        // "@" would start a placeholder in the label format.
        point->setPointLabelsFormat(QString(e.title).replace(u'@', u' '));
        point->setPointLabelsVisible(true);
        point->setPointLabelsClipping(false);
        point->setPointLabelsColor(scenarioColor(c).darker(140));
        chart->addSeries(point);
        point->attachAxis(x);
        point->attachAxis(y);
    }
    return chart;
}

QChart* createCompareMemoryChart(const CompareModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(anyResult(model)
                        ? QObject::tr("Memory per device (most loaded pipeline stage) against capacity")
                        : QObject::tr("Memory per device (run the scenarios to see it)"));
    QStringList categories;
    double capacity = 0.0;
    for (std::size_t c = 0; c < model.entries().size(); ++c) {
        const auto& e = model.entries()[c];
        capacity = std::max(capacity, e.capacity_GB);
        categories << categoryLabel(
            e, c,
            e.result ? QObject::tr("%1 of %2 GB")
                           .arg(formatSignificant(e.result->memory.total()), formatSignificant(e.capacity_GB))
                     : QString());
    }
    const auto& colors = chartstyle::kMemory;
    const std::vector<Segment> segments = {
        {QObject::tr("Weights"), colors[0], [](const models::RunResult& r) { return r.memory.weights_GB; }},
        {QObject::tr("Gradients"), colors[1],
         [](const models::RunResult& r) { return r.memory.gradients_GB; }},
        {QObject::tr("Optimizer"), colors[2],
         [](const models::RunResult& r) { return r.memory.optimizer_GB; }},
        {QObject::tr("Activations"), colors[3],
         [](const models::RunResult& r) { return r.memory.activations_GB; }},
        {QObject::tr("Buffers"), colors[4], [](const models::RunResult& r) { return r.memory.buffers_GB; }},
    };
    QBarCategoryAxis* x = nullptr;
    const double tallest = addStackedBars(*chart, model, segments, categories, x);
    auto* y = addValueAxis(*chart, QObject::tr("Memory per device (GB)"), std::max(tallest, capacity),
                           Qt::AlignLeft);
    chart->series().front()->attachAxis(y);

    // Bars sit at 0 .. n-1 with half a slot either side; a hidden value axis of the same span puts each
    // capacity mark across its own bar.
    const auto n = static_cast<double>(model.entries().size());
    auto* span = new QValueAxis;
    span->setRange(-0.5, n - 0.5);
    span->setVisible(false);
    chart->addAxis(span, Qt::AlignTop);
    bool named = false;
    for (std::size_t c = 0; c < model.entries().size(); ++c) {
        const double gb = model.entries()[c].capacity_GB;
        if (!(gb > 0))
            continue;
        auto* line = new QLineSeries;
        line->setName(QObject::tr("Device capacity"));
        line->append(static_cast<double>(c) - 0.4, gb);
        line->append(static_cast<double>(c) + 0.4, gb);
        line->setPen(QPen(chartstyle::kFailed, 2.0, Qt::DashLine));
        chart->addSeries(line);
        line->attachAxis(span);
        line->attachAxis(y);
        // One legend entry for all the marks.
        for (QLegendMarker* marker : chart->legend()->markers(line))
            marker->setVisible(!named);
        named = true;
    }
    return chart;
}

namespace {

// One scenario's p99 latency (`ttft` or TPOT) against throughput over its search's loads.
QLineSeries* servingLine(const models::RateSearch& search, bool ttft, const QString& name,
                         const QColor& color) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPen(QPen(color, ttft ? 2.0 : 1.5, ttft ? Qt::SolidLine : Qt::DashLine));
    line->setPointsVisible(true);
    for (const auto& p : search.curve) // a log axis has no place for 0 (a probe too short to measure it)
        if (const double ms = (ttft ? p.ttft_s.p99 : p.tpot_s.p99) * 1e3; ms > 0.0)
            line->append(p.output_tokens_per_s, ms);
    return line;
}

} // namespace

QChart* createCompareServingChart(const CompareModel& model) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    double xMax = 0.0, yMin = std::numeric_limits<double>::max(), yMax = 0.0;
    std::set<double> slos; // ms
    for (const auto& e : model.entries()) {
        if (!e.result || !e.result->serving)
            continue;
        const auto& search = e.result->serving->search;
        for (const auto& p : search.curve) {
            xMax = std::max(xMax, p.output_tokens_per_s);
            for (double v : {p.ttft_s.p99 * 1e3, p.tpot_s.p99 * 1e3})
                if (v > 0.0) {
                    yMin = std::min(yMin, v);
                    yMax = std::max(yMax, v);
                }
        }
        for (const auto& slo : {search.ttft_slo_s, search.tpot_slo_s})
            if (slo)
                slos.insert(*slo * 1e3);
    }
    if (yMax <= 0.0) {
        chart->setTitle(
            QObject::tr("Latency against throughput (run serving scenarios with SLOs to see it)"));
        return chart;
    }
    chart->setTitle(QObject::tr("Latency against throughput: p99 TTFT solid, p99 TPOT dashed"));
    for (double slo : slos) {
        yMin = std::min(yMin, slo);
        yMax = std::max(yMax, slo);
    }
    auto* x = addValueAxis(*chart, QObject::tr("Throughput (output tokens/s)"), xMax, Qt::AlignBottom);
    QLogValueAxis* y = chartstyle::addLatencyAxis(*chart, yMin, yMax);
    for (std::size_t c = 0; c < model.entries().size(); ++c) {
        const auto& e = model.entries()[c];
        if (!e.result || !e.result->serving || e.result->serving->search.curve.empty())
            continue;
        for (bool ttft : {true, false}) {
            auto* line = servingLine(e.result->serving->search, ttft,
                                     ttft ? e.title : QObject::tr("%1 TPOT").arg(e.title), scenarioColor(c));
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
            if (!ttft) // the legend names each scenario once, by its colour
                for (QLegendMarker* marker : chart->legend()->markers(line))
                    marker->setVisible(false);
        }
    }
    for (double slo : slos) {
        auto* line = new QLineSeries;
        line->setName(QObject::tr("SLO %1 ms").arg(formatSignificant(slo)));
        line->setPen(QPen(QColor(0x70, 0x70, 0x70), 1.2, Qt::DashDotLine));
        line->append(0.0, slo);
        line->append(x->max(), slo);
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
    }
    return chart;
}

} // namespace choreo::ui
