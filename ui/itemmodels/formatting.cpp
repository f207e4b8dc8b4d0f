#include "ui/itemmodels/formatting.h"

#include <QLocale>
#include <QObject>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

const QLocale& numberLocale() {
    static const QLocale locale(QLocale::English, QLocale::UnitedStates);
    return locale;
}

// The finest decimal formatSignificant shows.
constexpr int kMostDecimals = 9;

} // namespace

QString formatFixed(double value, int decimals) {
    if (!std::isfinite(value))
        return u"-"_s;
    return numberLocale().toString(value, 'f', decimals);
}

QString formatSignificant(double value, int significant) {
    if (!std::isfinite(value))
        return u"-"_s;
    // Zero, and what the finest decimal shown would print as zeros: the rounding residue of a difference
    // (a step's bubble, step time less computation and communication) reads "0", not "0.000000000".
    if (std::abs(value) < 0.5 * std::pow(10.0, -kMostDecimals))
        return u"0"_s;
    const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(value))));
    const int decimals = std::clamp(significant - 1 - magnitude, 0, kMostDecimals);
    return formatFixed(value, decimals);
}

QString formatCompact(double value, int significant) {
    QString text = formatSignificant(value, significant);
    if (text.contains(u'.')) {
        while (text.endsWith(u'0'))
            text.chop(1);
        if (text.endsWith(u'.'))
            text.chop(1);
    }
    return text;
}

QString formatPercent(double fraction) {
    return formatFixed(fraction * 100.0, 1) + u" %"_s;
}

QString formatUsd(double usd) {
    return u"$"_s + formatFixed(usd, 0);
}

QString formatEnergyJ(double joules) {
    if (joules >= 1e9)
        return formatSignificant(joules / 1e9) + QObject::tr(" GJ");
    if (joules >= 1e6)
        return formatSignificant(joules / 1e6) + QObject::tr(" MJ");
    return formatSignificant(joules / 1e3) + QObject::tr(" kJ");
}

QString formatEnergyKWh(double kWh) {
    if (kWh >= 1e6)
        return formatSignificant(kWh / 1e6) + QObject::tr(" GWh");
    if (kWh >= 1e3)
        return formatSignificant(kWh / 1e3) + QObject::tr(" MWh");
    return formatSignificant(kWh) + QObject::tr(" kWh");
}

} // namespace choreo::ui
