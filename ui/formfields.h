#pragma once

#include <QString>
#include <QVariant>

#include <cstdint>
#include <optional>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace choreo::ui::formfields {

// Show a document value in a widget without emitting the widget's change signals (which would record an
// edit) and without touching a widget that already shows it (which would move the cursor of a line edit).
void show(QSpinBox* box, std::int64_t value);
void show(QDoubleSpinBox* box, double value);
// An optional number: its minimum shows the special value text ("catalog").
void show(QDoubleSpinBox* box, const std::optional<double>& value);
void show(QLineEdit* edit, const QString& text);
void show(QCheckBox* box, bool checked);
// Selects the item whose data is `data`.
void show(QComboBox* box, const QVariant& data);

// A spin box for a positive count (layers, devices, ...), typed values commit on Enter or focus out.
QSpinBox* countSpin(int maximum);
// A spin box for a number with `decimals` decimals between `minimum` and `maximum`.
QDoubleSpinBox* numberSpin(double minimum, double maximum, int decimals, const QString& suffix = {});
// A number that may be left to the catalog: the minimum (0) means "not set" and reads `unsetText`.
QDoubleSpinBox* optionalSpin(double maximum, int decimals, const QString& suffix, const QString& unsetText);
// The optional number a spin box made by optionalSpin() holds.
std::optional<double> optionalValue(const QDoubleSpinBox* box);

} // namespace choreo::ui::formfields
