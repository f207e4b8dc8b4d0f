#include "ui/charts/profilechart.h"

#include "ui/charts/chartstyle.h"
#include "ui/itemmodels/profilecomparisonmodel.h"
#include "ui/itemmodels/profilegemmmodel.h"
#include "ui/itemmodels/roles.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <map>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

QColor precisionColor(int index) {
    static const QColor colors[] = {chartstyle::kThroughput, chartstyle::kCommunication,
                                    chartstyle::kEfficiency, QColor(0x8e, 0x44, 0xad),
                                    QColor(0x7f, 0x7f, 0x7f)};
    return colors[index % 5];
}

} // namespace

QChart* createGemmEfficiencyChart(const ProfileGemmModel& model, const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);
    const bool fraction = model.hasPeaks();
    const int valueColumn = fraction ? ProfileGemmModel::FractionColumn : ProfileGemmModel::TflopsColumn;
    const double scale = fraction ? 100.0 : 1.0;

    struct Pair {
        QScatterSeries* measured = nullptr;
        QLineSeries* fitted = nullptr;
    };
    std::map<QString, Pair> byPrecision; // sorted: the same colours every time
    for (int row = 0; row < model.rowCount(); ++row)
        byPrecision[model.index(row, ProfileGemmModel::PrecisionColumn).data(KeyRole).toString()];
    int i = 0;
    for (auto& [name, pair] : byPrecision) {
        const QColor color = precisionColor(i++);
        pair.fitted = new QLineSeries;
        pair.fitted->setName(QObject::tr("%1 fitted").arg(name));
        pair.fitted->setPen(QPen(color, 2.0));
        pair.measured = new QScatterSeries;
        pair.measured->setName(QObject::tr("%1 measured").arg(name));
        pair.measured->setColor(color);
        pair.measured->setBorderColor(color.darker(140));
        pair.measured->setMarkerSize(9);
    }
    double lo = 0, hi = 0, top = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QVariant v = model.index(row, valueColumn).data(ValueRole);
        if (!v.isValid())
            continue;
        const double gflop = model.index(row, ProfileGemmModel::GflopColumn).data(ValueRole).toDouble();
        const double y = v.toDouble() * scale;
        lo = lo > 0 ? std::min(lo, gflop) : gflop;
        hi = std::max(hi, gflop);
        top = std::max(top, y);
        Pair& pair =
            byPrecision[model.index(row, ProfileGemmModel::PrecisionColumn).data(KeyRole).toString()];
        const bool measured = model.index(row, 0).data(StatusRole).toInt() ==
                              static_cast<int>(ProfileGemmModel::Kind::Measured);
        if (measured)
            pair.measured->append(gflop, y);
        else
            pair.fitted->append(gflop, y);
    }

    auto* x = new QLogValueAxis;
    x->setBase(10.0);
    x->setLabelFormat(u"%g"_s);
    x->setTitleText(QObject::tr("GEMM size (GFLOP = 2·m·n·k / 10⁹, log scale)"));
    x->setMinorTickCount(8);
    x->setRange(lo > 0 ? lo / 1.5 : 0.1, hi > 0 ? hi * 1.5 : 1000.0);
    chart->addAxis(x, Qt::AlignBottom);
    auto* y = new QValueAxis;
    y->setTitleText(fraction ? QObject::tr("Achieved, % of the spec-sheet peak") : QObject::tr("TFLOP/s"));
    y->setRange(0.0, fraction ? std::max(100.0, top * 1.05) : (top > 0 ? top * 1.15 : 1.0));
    y->applyNiceNumbers();
    y->setLabelFormat(u"%.0f"_s);
    chart->addAxis(y, Qt::AlignLeft);
    for (auto& [name, pair] : byPrecision) {
        for (QAbstractSeries* s :
             {static_cast<QAbstractSeries*>(pair.fitted), static_cast<QAbstractSeries*>(pair.measured)}) {
            chart->addSeries(s);
            s->attachAxis(x);
            s->attachAxis(y);
        }
    }
    chart->legend()->setAlignment(Qt::AlignBottom);
    return chart;
}

QChart* createSpecMeasuredChart(const ProfileComparisonModel& model, const QString& unit,
                                const QString& title) {
    auto* chart = new QChart;
    chartstyle::apply(*chart);
    chart->setTitle(title);
    auto* spec = new QBarSet(QObject::tr("Spec sheet"));
    spec->setColor(chartstyle::kOption);
    spec->setBorderColor(chartstyle::kOption.darker(130));
    auto* measured = new QBarSet(QObject::tr("Measured"));
    measured->setColor(chartstyle::kThroughput);
    measured->setBorderColor(chartstyle::kThroughput.darker(130));
    QStringList categories;
    double top = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.index(row, 0).data(KeyRole).toString() != unit)
            continue;
        // "Power, compute-bound (spec: TDP)" -> "compute": the chart's title says the rest.
        QString label = model.index(row, ProfileComparisonModel::FigureColumn).data().toString();
        label.remove(u" (spec: TDP)"_s);
        label.remove(u"Power, "_s);
        label.remove(u"Power at "_s);
        label.remove(u"-bound"_s); // QBarCategoryAxis elides long labels
        categories << label;
        const double s = model.index(row, ProfileComparisonModel::SpecColumn).data(ValueRole).toDouble();
        const double m = model.index(row, ProfileComparisonModel::MeasuredColumn).data(ValueRole).toDouble();
        *spec << s; // no spec: an empty bar
        *measured << m;
        top = std::max({top, s, m});
    }
    auto* series = new QBarSeries;
    series->append(spec);
    series->append(measured);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories.isEmpty() ? QStringList{QObject::tr("(not measured)")} : categories);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto* y = new QValueAxis;
    y->setTitleText(unit);
    y->setRange(0.0, top > 0 ? top * 1.15 : 1.0);
    y->applyNiceNumbers();
    y->setLabelFormat(u"%.4g"_s);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    chart->legend()->setAlignment(Qt::AlignBottom);
    return chart;
}

} // namespace choreo::ui
