#include "ui/formfields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <limits>

namespace choreo::ui::formfields {

void show(QSpinBox* box, std::int64_t value) {
    const int v = static_cast<int>(
        std::clamp<std::int64_t>(value, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
    if (box->value() != v) {
        const QSignalBlocker block(box);
        box->setValue(v);
    }
}

void show(QDoubleSpinBox* box, double value) {
    if (box->value() != value) {
        const QSignalBlocker block(box);
        box->setValue(value);
    }
}

void show(QDoubleSpinBox* box, const std::optional<double>& value) {
    show(box, value.value_or(box->minimum()));
}

void show(QLineEdit* edit, const QString& text) {
    if (edit->text() != text) {
        const QSignalBlocker block(edit);
        edit->setText(text);
    }
}

void show(QCheckBox* box, bool checked) {
    if (box->isChecked() != checked) {
        const QSignalBlocker block(box);
        box->setChecked(checked);
    }
}

void show(QComboBox* box, const QVariant& data) {
    const int index = box->findData(data);
    if (box->currentIndex() != index) {
        const QSignalBlocker block(box);
        box->setCurrentIndex(index);
    }
}

QSpinBox* countSpin(int maximum) {
    auto* box = new QSpinBox;
    box->setRange(1, maximum);
    box->setKeyboardTracking(false);
    box->setAlignment(Qt::AlignRight);
    return box;
}

QDoubleSpinBox* numberSpin(double minimum, double maximum, int decimals, const QString& suffix) {
    auto* box = new QDoubleSpinBox;
    box->setRange(minimum, maximum);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    box->setKeyboardTracking(false);
    box->setAlignment(Qt::AlignRight);
    return box;
}

QDoubleSpinBox* optionalSpin(double maximum, int decimals, const QString& suffix, const QString& unsetText) {
    QDoubleSpinBox* box = numberSpin(0.0, maximum, decimals, suffix);
    box->setSpecialValueText(unsetText);
    return box;
}

std::optional<double> optionalValue(const QDoubleSpinBox* box) {
    if (box->value() <= box->minimum())
        return std::nullopt;
    return box->value();
}

} // namespace choreo::ui::formfields
