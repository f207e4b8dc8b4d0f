#include "ui/charts/ganttchart.h"

#include "models/timeline.h"
#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/timelinemodel.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <map>
#include <vector>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Fraction of a row's height a bar leaves empty above and below, so that rows stay apart.
constexpr double kRowGap = 0.12;

struct Bar {
    double start_ms;
    double end_ms;
    QString micro; // empty where the interval has no micro-batch
    QString chunk;
};

QString describe(const QString& kind, std::int64_t stage, const Bar& bar) {
    QString text = QObject::tr("Stage %1: %2").arg(stage).arg(kind);
    if (!bar.micro.isEmpty())
        text += QObject::tr(", micro-batch %1").arg(bar.micro);
    if (!bar.chunk.isEmpty())
        text += QObject::tr(", chunk %1").arg(bar.chunk);
    return text + QObject::tr("\n%1 – %2 ms (%3 ms)")
                      .arg(formatFixed(bar.start_ms, 3), formatFixed(bar.end_ms, 3),
                           formatFixed(bar.end_ms - bar.start_ms, 3));
}

} // namespace

QChart* createGanttChart(const TimelineModel& model, const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    const double folded_ms = model.timeline().folded_below_s * 1e3;
    // A timeline over the size bound says what it left out.
    chart->setTitle(folded_ms > 0 ? QObject::tr("%1, activities under %2 ms folded into the one before")
                                        .arg(title, formatSignificant(folded_ms))
                                  : title);

    // Bars per stage and activity, read from the model's rows.
    std::map<std::int64_t, std::map<int, std::vector<Bar>>> bars;
    double end_ms = 0.0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto stage = model.index(row, TimelineModel::StageColumn).data(ValueRole).toLongLong();
        const auto kind =
            models::activityKindFromString(
                model.index(row, TimelineModel::KindColumn).data(KeyRole).toString().toStdString())
                .value_or(models::ActivityKind::Bubble);
        Bar bar{model.index(row, TimelineModel::StartColumn).data(ValueRole).toDouble(),
                model.index(row, TimelineModel::EndColumn).data(ValueRole).toDouble(),
                model.index(row, TimelineModel::MicroBatchColumn).data().toString(),
                model.index(row, TimelineModel::ChunkColumn).data().toString()};
        end_ms = std::max(end_ms, bar.end_ms);
        bars[stage][static_cast<int>(kind)].push_back(bar);
    }
    if (bars.empty()) {
        chart->setTitle(title + QObject::tr(" (no timeline in this result)"));
        return chart;
    }
    const auto stages = static_cast<int>(bars.rbegin()->first + 1);

    QValueAxis* x = chartstyle::addStepTimeAxis(*chart, end_ms);
    auto* y = new QCategoryAxis;
    y->setRange(0.0, stages);
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    y->setGridLineVisible(false);
    QFont labels = y->labelsFont();
    labels.setPointSizeF(stages > 16 ? 6.5 : 8.0);
    y->setLabelsFont(labels);
    // Stage 0 on top: row r of the plot, counted from the bottom, is stage stages - 1 - r.
    for (int r = 0; r < stages; ++r)
        y->append(QObject::tr("stage %1").arg(stages - 1 - r), r + 1);
    y->setTitleText(QObject::tr("Pipeline stage"));
    chart->addAxis(y, Qt::AlignLeft);

    std::vector<bool> named(models::kActivityKindCount, false);
    for (const auto& [stage, kinds] : bars) {
        const double base = static_cast<double>(stages - 1 - stage) + kRowGap;
        const double top = static_cast<double>(stages - stage) - kRowGap;
        for (const auto& [kind, list] : kinds) {
            // A step line that rises to `top` over each bar and rests on `base` between them, filled down to
            // `base`: all bars of one activity on one row in one series.
            auto* upper = new QLineSeries;
            auto* lower = new QLineSeries;
            for (const Bar& b : list) {
                upper->append(b.start_ms, base);
                upper->append(b.start_ms, top);
                upper->append(b.end_ms, top);
                upper->append(b.end_ms, base);
            }
            lower->append(0.0, base);
            lower->append(end_ms, base);
            auto* area = new QAreaSeries(upper, lower);
            upper->setParent(area);
            lower->setParent(area);
            const auto k = static_cast<models::ActivityKind>(kind);
            const QColor color = chartstyle::kActivity[static_cast<std::size_t>(kind)];
            area->setName(TimelineModel::kindName(k));
            area->setColor(color);
            // White edges keep back-to-back micro-batches of one activity apart.
            area->setPen(QPen(Qt::white, stages > 16 ? 0.3 : 0.6));
            chart->addSeries(area);
            area->attachAxis(x);
            area->attachAxis(y);
            // One legend entry per activity.
            const bool first = !named[static_cast<std::size_t>(kind)];
            named[static_cast<std::size_t>(kind)] = true;
            for (QLegendMarker* marker : chart->legend()->markers(area))
                marker->setVisible(first);
            const QString kindName = TimelineModel::kindName(k);
            QObject::connect(area, &QAreaSeries::hovered, area,
                             [list, stage, kindName](const QPointF& point, bool state) {
                                 if (!state) {
                                     QToolTip::hideText();
                                     return;
                                 }
                                 const auto it = std::find_if(list.begin(), list.end(), [&](const Bar& b) {
                                     return point.x() >= b.start_ms && point.x() <= b.end_ms;
                                 });
                                 if (it != list.end())
                                     QToolTip::showText(QCursor::pos(), describe(kindName, stage, *it));
                             });
        }
    }
    return chart;
}

} // namespace choreo::ui
