#include "ui/charts/memorychart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/roles.h"

#include <QAbstractItemModel>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

QChart* createMemoryChart(const QAbstractItemModel& model, const MemoryColumns& columns, double capacity_GB,
                          const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);
    const int rows = model.rowCount();

    auto* series = new QStackedBarSeries;
    for (int s = 0; s < columns.segments.size(); ++s) {
        const int column = columns.segments[s];
        auto* set = new QBarSet(model.headerData(column, Qt::Horizontal).toString().remove(u" (GB)"_s));
        const QColor color = chartstyle::kMemory[s % chartstyle::kMemory.size()];
        set->setColor(color);
        set->setBorderColor(color.darker(130));
        for (int row = 0; row < rows; ++row)
            *set << model.index(row, column).data(ValueRole).toDouble();
        series->append(set);
    }
    series->setBarWidth(0.6);
    chart->addSeries(series);

    double tallest = 0;
    QStringList categories;
    for (int row = 0; row < rows; ++row) {
        double total = 0;
        for (int column : columns.segments)
            total += model.index(row, column).data(ValueRole).toDouble();
        tallest = std::max(tallest, total);
        categories << model.index(row, columns.category).data().toString();
    }
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(QObject::tr("Pipeline stage"));
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);

    auto* y = new QValueAxis;
    y->setTitleText(QObject::tr("Memory per device (GB)"));
    const double top = std::max({tallest, capacity_GB, 0.1}) * 1.1;
    y->setRange(0.0, top);
    y->applyNiceNumbers();
    // Whole GB on a GPU's scale; tenths below 10 GB (an IPU's 0.9 GB of SRAM would read 0, 1, 1, 2).
    y->setLabelFormat(top >= 10.0 ? u"%.0f"_s : u"%.2g"_s);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);

    if (capacity_GB > 0 && rows > 0) {
        // Categories sit at 0 .. rows-1 with half a slot either side; a hidden value axis with the same
        // span puts the line across the whole plot.
        auto* line = new QLineSeries;
        line->setName(QObject::tr("capacity %1 GB").arg(capacity_GB));
        line->append(-0.5, capacity_GB);
        line->append(rows - 0.5, capacity_GB);
        QPen pen(chartstyle::kFailed);
        pen.setWidthF(2);
        pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        chart->addSeries(line);
        auto* span = new QValueAxis;
        span->setRange(-0.5, rows - 0.5);
        span->setVisible(false);
        chart->addAxis(span, Qt::AlignTop);
        line->attachAxis(span);
        line->attachAxis(y);
    }
    return chart;
}

} // namespace choreo::ui
