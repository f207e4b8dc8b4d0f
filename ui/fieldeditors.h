#pragma once

#include "models/fieldtable.h"

#include <QString>

#include <functional>

QT_BEGIN_NAMESPACE
class QWidget;
QT_END_NAMESPACE

namespace choreo::ui::fieldeditors {

// The widget that edits one table field (models/fieldtable.h): a spin box for counts and numbers (the
// table's range, unit and "not set" text), a check box for flags, a line edit for texts and a list for
// choices. Named after the field's JSON path, with its tooltip. `edited` receives each value the user
// commits.
QWidget* create(const models::FieldSpec& field, std::function<void(const models::FieldValue&)> edited);

// Shows `value` in a widget made by create(), without emitting its change signals.
void show(QWidget* widget, const models::FieldSpec& field, const models::FieldValue& value);

// The undo text of an edit of the field: "Change layers", "Toggle dropout".
QString editDescription(const models::FieldSpec& field);

} // namespace choreo::ui::fieldeditors
