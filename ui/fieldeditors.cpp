#include "ui/fieldeditors.h"

#include "ui/formfields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <cmath>

using namespace Qt::StringLiterals;

namespace choreo::ui::fieldeditors {

namespace {

using models::FieldKind;
using models::FieldSpec;
using models::FieldValue;
using Edited = std::function<void(const FieldValue&)>;

QString tr(const char* text) {
    return QCoreApplication::translate("FieldEditors", text);
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

QWidget* countEditor(const FieldSpec& field, Edited edited) {
    QSpinBox* box = formfields::countSpin(static_cast<int>(field.maximum));
    // A count that may be absent (a default applies) is absent one below its smallest value, so that every
    // value in its range can still be chosen.
    const bool absentAtMinimum = !field.required && std::holds_alternative<std::monostate>(field.fallback);
    box->setMinimum(static_cast<int>(field.minimum) - (absentAtMinimum ? 1 : 0));
    if (!field.unset_text.empty())
        box->setSpecialValueText(q(field.unset_text));
    QObject::connect(box, &QSpinBox::valueChanged, box, [edited, absentAtMinimum, box](int value) {
        if (absentAtMinimum && value == box->minimum())
            edited(FieldValue{});
        else
            edited(FieldValue{std::int64_t{value}});
    });
    return box;
}

QWidget* numberEditor(const FieldSpec& field, Edited edited) {
    const double scale = field.display_scale;
    const double step = std::pow(10.0, -field.decimals);
    QDoubleSpinBox* box = nullptr;
    if (field.kind == FieldKind::OptionalNumber) {
        box = formfields::optionalSpin(field.maximum / scale, field.decimals, q(field.unit),
                                       q(field.unset_text));
    } else {
        const double minimum = field.minimum / scale + (field.minimum_exclusive ? step : 0.0);
        box = formfields::numberSpin(minimum, field.maximum / scale, field.decimals, q(field.unit));
    }
    QObject::connect(box, &QDoubleSpinBox::valueChanged, box, [box, scale, edited](double) {
        const auto value = formfields::optionalValue(box);
        if (box->specialValueText().isEmpty() || value)
            edited(FieldValue{box->value() * scale});
        else
            edited(FieldValue{});
    });
    return box;
}

QWidget* choiceEditor(const FieldSpec& field, Edited edited) {
    auto* box = new QComboBox;
    for (const auto& c : field.choices)
        box->addItem(q(c.label.empty() ? c.name : c.label), q(c.name));
    // As narrow as the other fields: the forms keep their column.
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(8);
    const bool count = field.kind == FieldKind::Count;
    QObject::connect(box, &QComboBox::activated, box, [box, count, edited] {
        const QString name = box->currentData().toString();
        edited(count ? FieldValue{name.toLongLong()} : FieldValue{name.toStdString()});
    });
    return box;
}

} // namespace

QWidget* create(const FieldSpec& field, Edited edited) {
    QWidget* widget = nullptr;
    if (!field.choices.empty()) {
        widget = choiceEditor(field, std::move(edited));
    } else if (field.kind == FieldKind::Count) {
        widget = countEditor(field, std::move(edited));
    } else if (field.kind == FieldKind::Number || field.kind == FieldKind::OptionalNumber) {
        widget = numberEditor(field, std::move(edited));
    } else if (field.kind == FieldKind::Flag) {
        auto* box = new QCheckBox(q(field.label));
        QObject::connect(box, &QCheckBox::toggled, box, [edited](bool on) { edited(FieldValue{on}); });
        widget = box;
    } else {
        auto* edit = new QLineEdit;
        QObject::connect(edit, &QLineEdit::textEdited, edit,
                         [edited](const QString& text) { edited(FieldValue{text.toStdString()}); });
        widget = edit;
    }
    widget->setObjectName(q(field.path));
    if (!field.tooltip.empty())
        widget->setToolTip(q(field.tooltip));
    return widget;
}

void show(QWidget* widget, const FieldSpec& field, const FieldValue& value) {
    if (auto* combo = qobject_cast<QComboBox*>(widget)) {
        const QString name = std::holds_alternative<std::int64_t>(value)
                                 ? QString::number(std::get<std::int64_t>(value))
                                 : q(std::get<std::string>(value));
        formfields::show(combo, QVariant(name));
    } else if (auto* spin = qobject_cast<QSpinBox*>(widget)) {
        const auto* count = std::get_if<std::int64_t>(&value);
        formfields::show(spin, count ? *count : spin->minimum()); // absent: the minimum reads the unset text
    } else if (auto* number = qobject_cast<QDoubleSpinBox*>(widget)) {
        if (const auto* v = std::get_if<double>(&value))
            formfields::show(number, *v / field.display_scale);
        else
            formfields::show(number, std::optional<double>{});
    } else if (auto* check = qobject_cast<QCheckBox*>(widget)) {
        formfields::show(check, std::get<bool>(value));
    } else if (auto* edit = qobject_cast<QLineEdit*>(widget)) {
        formfields::show(edit, q(std::get<std::string>(value)));
    }
}

QString editDescription(const FieldSpec& field) {
    const QString label = q(field.label);
    return field.kind == FieldKind::Flag ? tr("Toggle %1").arg(label) : tr("Change %1").arg(label.toLower());
}

} // namespace choreo::ui::fieldeditors
