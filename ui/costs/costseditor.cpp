#include "ui/costs/costseditor.h"

#include "ui/editids.h"
#include "ui/formfields.h"
#include "ui/formgrid.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

CostsEditor::CostsEditor(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , mode_(new QComboBox)
    , rent_(formfields::optionalSpin(10000.0, 2, u" $/h"_s, tr("catalog")))
    , buy_(formfields::optionalSpin(1e8, 0, u" $"_s, tr("catalog")))
    , amortisation_(formfields::numberSpin(0.1, 50.0, 1, tr(" years")))
    , electricity_(formfields::numberSpin(0.0, 10.0, 3, u" $/kWh"_s))
    , pue_(formfields::numberSpin(1.0, 5.0, 2)) {
    mode_->setObjectName(u"costModeCombo"_s);
    mode_->addItem(tr("rent"), static_cast<int>(models::CostMode::Rent));
    mode_->addItem(tr("buy"), static_cast<int>(models::CostMode::Buy));
    rent_->setObjectName(u"rentSpin"_s);
    rent_->setToolTip(tr("Rent per device-hour; \"catalog\" uses the catalog's price"));
    buy_->setObjectName(u"buySpin"_s);
    buy_->setToolTip(tr("Purchase price per device; \"catalog\" uses the catalog's price"));
    amortisation_->setObjectName(u"amortisationSpin"_s);
    electricity_->setObjectName(u"electricitySpin"_s);
    pue_->setObjectName(u"pueSpin"_s);
    pue_->setToolTip(tr("Power usage effectiveness: facility power / IT power"));
    mark(u"costs.mode"_s, mode_);
    mark(u"costs.rent_usd_per_device_hour"_s, rent_);
    mark(u"costs.buy_usd_per_device"_s, buy_);
    mark(u"costs.amortisation_years"_s, amortisation_);
    mark(u"costs.electricity_usd_per_kWh"_s, electricity_);
    mark(u"costs.pue"_s, pue_);

    auto* box = new QGroupBox(tr("Costs"));
    FormGrid grid(new QGridLayout(box));
    grid.add(tr("Mode"), mode_);
    grid.add(tr("PUE"), pue_);
    grid.add(tr("Rent"), rent_);
    grid.add(tr("Buy"), buy_);
    grid.add(tr("Amortise"), amortisation_);
    grid.add(tr("Electricity"), electricity_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(box);

    connect(mode_, &QComboBox::activated, this, [this] {
        change(NoMerge, tr("Change cost mode"), [v = mode_->currentData().toInt()](models::Scenario& s) {
            s.costs.mode = static_cast<models::CostMode>(v);
        });
    });
    connect(rent_, &QDoubleSpinBox::valueChanged, this, [this] {
        change(EditRentOverride, tr("Change rent price"),
               [v = formfields::optionalValue(rent_)](models::Scenario& s) {
                   s.costs.rent_usd_per_device_hour = v;
               });
    });
    connect(buy_, &QDoubleSpinBox::valueChanged, this, [this] {
        change(
            EditBuyOverride, tr("Change purchase price"),
            [v = formfields::optionalValue(buy_)](models::Scenario& s) { s.costs.buy_usd_per_device = v; });
    });
    connect(amortisation_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        change(EditAmortisation, tr("Change amortisation"),
               [v](models::Scenario& s) { s.costs.amortisation_years = v; });
    });
    connect(electricity_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        change(EditElectricity, tr("Change electricity price"),
               [v](models::Scenario& s) { s.costs.electricity_usd_per_kWh = v; });
    });
    connect(pue_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        change(EditPue, tr("Change PUE"), [v](models::Scenario& s) { s.costs.pue = v; });
    });
    refresh();
}

void CostsEditor::refresh() {
    const auto& c = document()->scenario().costs;
    formfields::show(mode_, static_cast<int>(c.mode));
    formfields::show(rent_, c.rent_usd_per_device_hour);
    formfields::show(buy_, c.buy_usd_per_device);
    formfields::show(amortisation_, c.amortisation_years);
    formfields::show(electricity_, c.electricity_usd_per_kWh);
    formfields::show(pue_, c.pue);
}

} // namespace choreo::ui
