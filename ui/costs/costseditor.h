#pragma once

#include "ui/scenarioform.h"

namespace choreo::ui {

// What the hardware and the electricity cost: rent or buy, price overrides, energy prices. Its fields are the
// field table's "Costs" group (models/fieldtable.cpp).
class CostsEditor final : public ScenarioForm {
    Q_OBJECT

public:
    CostsEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

protected:
    void refresh() override;
};

} // namespace choreo::ui
