#pragma once

#include "ui/scenarioform.h"

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
QT_END_NAMESPACE

namespace choreo::ui {

// What the hardware and the electricity cost: rent or buy, price overrides, energy prices.
class CostsEditor final : public ScenarioForm {
    Q_OBJECT

public:
    CostsEditor(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

protected:
    void refresh() override;

private:
    QComboBox* mode_;
    QDoubleSpinBox* rent_;
    QDoubleSpinBox* buy_;
    QDoubleSpinBox* amortisation_;
    QDoubleSpinBox* electricity_;
    QDoubleSpinBox* pue_;
};

} // namespace choreo::ui
