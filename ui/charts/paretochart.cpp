#include "ui/charts/paretochart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/roles.h"

#include <QAbstractItemModel>
#include <QChart>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <map>

using namespace Qt::StringLiterals;

namespace choreo::ui {

QChart* createParetoChart(const QAbstractItemModel& model, const ParetoColumns& columns,
                          const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);

    double maxTime = 0, maxCost = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        maxTime = std::max(maxTime, model.index(row, columns.time).data(ValueRole).toDouble());
        maxCost = std::max(maxCost, model.index(row, columns.cost).data(ValueRole).toDouble());
    }
    // Millions of dollars read better than 1.2e+07 on an axis.
    const double costScale = maxCost >= 1e6 ? 1e6 : 1e3;
    const QString costUnit = maxCost >= 1e6 ? QObject::tr("M$") : QObject::tr("k$");

    auto* others = new QScatterSeries;
    others->setName(QObject::tr("dominated option"));
    others->setMarkerSize(8);
    others->setColor(chartstyle::kOption);
    others->setBorderColor(chartstyle::kOption.darker(130));
    auto* front = new QLineSeries;
    front->setName(QObject::tr("Pareto front"));
    front->setPen(QPen(chartstyle::kPareto, 2.0, Qt::DashLine));
    std::multimap<double, double> frontPoints; // by time, so the line runs left to right
    std::vector<QScatterSeries*> named;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QVariant t = model.index(row, columns.time).data(ValueRole);
        const QVariant c = model.index(row, columns.cost).data(ValueRole);
        if (!t.isValid() || !c.isValid())
            continue;
        const QPointF point(t.toDouble(), c.toDouble() / costScale);
        if (!model.index(row, columns.label).data(ParetoRole).toBool()) {
            others->append(point);
            continue;
        }
        frontPoints.emplace(point.x(), point.y());
        // One series per front option, so that the legend names it.
        auto* option = new QScatterSeries;
        option->setName(model.index(row, columns.label).data().toString());
        option->setMarkerSize(12);
        option->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        option->append(point);
        named.push_back(option);
    }
    for (const auto& [x, y] : frontPoints)
        front->append(x, y);

    auto* x = new QValueAxis;
    x->setTitleText(QObject::tr("Time to train (days)"));
    x->setRange(0.0, maxTime > 0 ? maxTime * 1.1 : 1.0);
    x->applyNiceNumbers();
    x->setLabelFormat(maxTime >= 100 ? u"%.0f"_s : u"%.3g"_s);
    auto* y = new QValueAxis;
    y->setTitleText(QObject::tr("Total cost (%1)").arg(costUnit));
    y->setRange(0.0, maxCost > 0 ? maxCost / costScale * 1.1 : 1.0);
    y->applyNiceNumbers();
    y->setLabelFormat(maxCost / costScale >= 100 ? u"%.0f"_s : u"%.3g"_s);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{others, front}) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    for (QScatterSeries* s : named) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    return chart;
}

} // namespace choreo::ui
