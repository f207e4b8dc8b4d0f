#pragma once

#include <QString>

namespace choreo::ui {

// Numbers as Choreo shows them, independent of the user's locale so that reports compare across machines.

// A number with thousands separators and `decimals` decimals ("12,345.6").
QString formatFixed(double value, int decimals);
// About `significant` significant digits, fixed notation, thousands separators ("0.0123", "1,234").
QString formatSignificant(double value, int significant = 3);
// Like formatSignificant, without trailing zeros ("80", "3.35", "0.75"): for inputs and catalog figures.
QString formatCompact(double value, int significant = 4);
// A fraction as a percentage with one decimal ("41.2 %").
QString formatPercent(double fraction);
// US dollars, rounded to whole dollars ("$1,234,567").
QString formatUsd(double usd);
// Energy in joules with the unit that reads best ("12.3 kJ", "4.56 MJ", "1.2 GJ").
QString formatEnergyJ(double joules);
// Energy in kilowatt-hours with the unit that reads best ("950 kWh", "3.48 MWh", "1.2 GWh").
QString formatEnergyKWh(double kWh);

} // namespace choreo::ui
