#include "ui/charts/breakdownchart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/sweepresultmodel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Whether any row of `column` has a positive value.
bool anyPositive(const QAbstractItemModel& model, int column) {
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, column).data(ValueRole).toDouble() > 0.0)
            return true;
    return false;
}

} // namespace

QChart* createStepBreakdownChart(const QAbstractItemModel& model, const BreakdownColumns& columns,
                                 const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);

    auto* series = new QStackedBarSeries;
    QStringList categories;
    double tallest = 0.0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex index = model.index(row, columns.category);
        // Axis labels are rich text: the number on top, what is special about it below, so that
        // narrow bars keep readable labels.
        const QVariant number = index.data(ValueRole);
        QString label = number.isValid() ? QString::number(number.toLongLong()) : index.data().toString();
        if (index.data(StatusRole).toInt() == static_cast<int>(SweepOutcome::State::Failed))
            label += u"<br>"_s + QObject::tr("failed");
        else if (index.data(IsBaseRole).toBool())
            label += u"<br>"_s + QObject::tr("base");
        categories << label;
    }
    for (const BreakdownSegment& segment : columns.segments) {
        // The axis says seconds; the legend needs only the names.
        const QString name =
            segment.legend.isEmpty()
                ? model.headerData(segment.column, Qt::Horizontal).toString().remove(u" (s)"_s)
                : segment.legend;
        auto* set = new QBarSet(name);
        set->setColor(segment.color);
        set->setBorderColor(segment.color.darker(130));
        for (int row = 0; row < model.rowCount(); ++row)
            *set << model.index(row, segment.column).data(ValueRole).toDouble(); // invalid -> 0: an empty bar
        series->append(set);
    }
    for (int row = 0; row < model.rowCount(); ++row) {
        double total = 0.0;
        for (const BreakdownSegment& segment : columns.segments)
            total += model.index(row, segment.column).data(ValueRole).toDouble();
        tallest = std::max(tallest, total);
    }
    series->setBarWidth(0.6);
    chart->addSeries(series);

    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(QObject::tr("Devices"));
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);

    auto* y = new QValueAxis;
    y->setTitleText(QObject::tr("Step time (s)"));
    y->setRange(0.0, tallest > 0 ? tallest * 1.1 : 1.0);
    y->applyNiceNumbers();
    y->setLabelFormat(u"%.3g"_s);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    return chart;
}

QChart* createStepBreakdownChart(const SweepResultModel& sweep) {
    // Short names: the chart beside the summary is a quarter of the window wide, and its legend elided the
    // headers ("Expose...", "Pipeline..."); the sweep table keeps the full ones.
    BreakdownColumns columns{
        SweepResultModel::DevicesColumn,
        {{SweepResultModel::ComputeColumn, chartstyle::kCompute, QObject::tr("Compute")},
         {SweepResultModel::CommunicationColumn, chartstyle::kCommunication, QObject::tr("Comm.")},
         {SweepResultModel::BubbleColumn, chartstyle::kBubble, QObject::tr("Bubble")}}};
    // A hybrid run's bars reach its step time only with the waits for data and the evaluation pauses.
    if (anyPositive(sweep, SweepResultModel::DataWaitColumn))
        columns.segments.append(
            {SweepResultModel::DataWaitColumn, chartstyle::kDataWait, QObject::tr("Data wait")});
    if (anyPositive(sweep, SweepResultModel::EvalColumn))
        columns.segments.append({SweepResultModel::EvalColumn, chartstyle::kEval, QObject::tr("Eval")});
    return createStepBreakdownChart(sweep, columns, QObject::tr("Step-time breakdown"));
}

} // namespace choreo::ui
