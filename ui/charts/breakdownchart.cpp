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

QColor segmentColor(int index) {
    static const QColor colors[] = {chartstyle::kCompute, chartstyle::kCommunication, chartstyle::kBubble};
    return colors[index % 3];
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
    for (int s = 0; s < columns.segments.size(); ++s) {
        const int column = columns.segments[s];
        // The axis says seconds; the legend needs only the names.
        auto* set = new QBarSet(model.headerData(column, Qt::Horizontal).toString().remove(u" (s)"_s));
        set->setColor(segmentColor(s));
        set->setBorderColor(segmentColor(s).darker(130));
        for (int row = 0; row < model.rowCount(); ++row)
            *set << model.index(row, column).data(ValueRole).toDouble(); // invalid -> 0: an empty bar
        series->append(set);
    }
    for (int row = 0; row < model.rowCount(); ++row) {
        double total = 0.0;
        for (int column : columns.segments)
            total += model.index(row, column).data(ValueRole).toDouble();
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
    return createStepBreakdownChart(sweep,
                                    {SweepResultModel::DevicesColumn,
                                     {SweepResultModel::ComputeColumn, SweepResultModel::CommunicationColumn,
                                      SweepResultModel::BubbleColumn}},
                                    QObject::tr("Step-time breakdown"));
}

} // namespace choreo::ui
