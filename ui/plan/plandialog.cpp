#include "ui/plan/plandialog.h"

#include "models/scenarioio.h"
#include "ui/document.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

std::string text(const models::Json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

double number(const models::Json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// A limit the planner may leave unset: a check box and its value side by side.
QWidget* optional(QCheckBox* check, QWidget* value) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(check);
    layout->addWidget(value, 1);
    value->setEnabled(check->isChecked());
    QObject::connect(check, &QCheckBox::toggled, value, &QWidget::setEnabled);
    return row;
}

const QStringList kColumns = {u"Devices"_s, u"Layout"_s,  u"Days"_s,  u"Finish"_s,  u"Cost ($M)"_s,
                              u"MWh"_s,     u"Peak MW"_s, u"Binds"_s, u"Fidelity"_s};

} // namespace

PlanDialog::PlanDialog(const models::Catalog& catalog, Document* document, WorkerCommand command,
                       QWidget* parent)
    : QDialog(parent)
    , catalog_(catalog)
    , document_(document)
    , runner_(new PlanRunner(std::move(command), this))
    , table_(new QTableWidget(0, static_cast<int>(kColumns.size())))
    , detail_(new QLabel)
    , message_(new QLabel)
    , plan_(new QPushButton(tr("&Plan")))
    , cancel_(new QPushButton(tr("&Cancel")))
    , open_(new QPushButton(tr("&Open as scenario"))) {
    setObjectName(u"planDialog"_s);
    setWindowTitle(tr("Plan a cluster"));
    table_->setObjectName(u"planOptions"_s);
    table_->setHorizontalHeaderLabels(kColumns);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    detail_->setObjectName(u"planDetail"_s);
    detail_->setWordWrap(true);
    detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    detail_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    message_->setObjectName(u"planMessage"_s);
    message_->setWordWrap(true);
    plan_->setObjectName(u"startPlanButton"_s);
    open_->setObjectName(u"openOptionButton"_s);

    auto* top = new QHBoxLayout;
    top->addWidget(createLimits(), 1);
    top->addWidget(createDevices(), 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(plan_, QDialogButtonBox::ActionRole);
    buttons->addButton(cancel_, QDialogButtonBox::ActionRole);
    buttons->addButton(open_, QDialogButtonBox::ApplyRole);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    auto* detailScroll = new QScrollArea; // the notes can outgrow the pane
    detailScroll->setWidget(detail_);
    detailScroll->setWidgetResizable(true);
    detailScroll->setFrameShape(QFrame::NoFrame);
    split->addWidget(detailScroll);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(message_);
    layout->addWidget(split, 1);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &PlanDialog::reject);
    connect(plan_, &QPushButton::clicked, this, &PlanDialog::start);
    connect(cancel_, &QPushButton::clicked, this, &PlanDialog::cancel);
    connect(open_, &QPushButton::clicked, this, [this] { openOption(table_->currentRow()); });
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openOption(row); });
    connect(table_, &QTableWidget::itemSelectionChanged, this, &PlanDialog::showDetail);
    connect(runner_, &PlanRunner::finished, this, &PlanDialog::showPlan);
    connect(runner_, &PlanRunner::failed, this, [this](const QString& message) {
        setRunning(false);
        showMessage(message, true);
        emit planFinished();
    });
    connect(runner_, &PlanRunner::cancelled, this, [this] {
        setRunning(false);
        showMessage(tr("The plan was cancelled."), false);
    });
    setRunning(false);
    resize(1100, 720);
}

QWidget* PlanDialog::createLimits() {
    auto* box = new QWidget;
    auto* form = new QFormLayout(box);
    const QDate today = QDate::currentDate();
    start_ = new QDateEdit(today);
    hasDeadline_ = new QCheckBox;
    deadline_ = new QDateEdit(today.addYears(1));
    hasBudget_ = new QCheckBox;
    budget_ = new QDoubleSpinBox;
    budget_->setRange(0.01, 1e6);
    budget_->setDecimals(2);
    budget_->setValue(100.0);
    budget_->setSuffix(tr(" $ million"));
    hasPower_ = new QCheckBox;
    power_ = new QDoubleSpinBox;
    power_->setRange(0.01, 10000.0);
    power_->setValue(20.0);
    power_->setSuffix(tr(" MW at the facility"));
    mode_ = new QComboBox;
    mode_->addItem(tr("Rent"), u"rent"_s);
    mode_->addItem(tr("Buy"), u"buy"_s);
    mode_->setCurrentIndex(document_->scenario().costs.mode == models::CostMode::Buy ? 1 : 0);
    maxDevices_ = new QSpinBox;
    maxDevices_->setRange(1, 1 << 20);
    maxDevices_->setValue(65536);
    confirm_ = new QSpinBox;
    confirm_->setRange(0, 64);
    confirm_->setValue(3);
    for (QWidget* w : std::initializer_list<QWidget*>{start_, deadline_})
        static_cast<QDateEdit*>(w)->setDisplayFormat(u"yyyy-MM-dd"_s);
    start_->setObjectName(u"planStart"_s);
    deadline_->setObjectName(u"planDeadline"_s);
    budget_->setObjectName(u"planBudget"_s);
    power_->setObjectName(u"planPower"_s);
    form->addRow(tr("Order placed"), start_);
    form->addRow(tr("Trained by"), optional(hasDeadline_, deadline_));
    form->addRow(tr("Budget"), optional(hasBudget_, budget_));
    form->addRow(tr("Site power"), optional(hasPower_, power_));
    form->addRow(tr("Rent or buy"), mode_);
    form->addRow(tr("Largest pool"), maxDevices_);
    form->addRow(tr("Confirmed at flow"), confirm_);
    leadTimes_ = new QLineEdit;
    leadTimes_->setObjectName(u"planLeadTimes"_s);
    leadTimes_->setPlaceholderText(tr("e.g. h200-sxm=16, mi300x=20 (weeks; the catalog's otherwise)"));
    form->addRow(tr("Lead times"), leadTimes_);
    powerLimits_ = new QLineEdit;
    powerLimits_->setObjectName(u"planPowerLimits"_s);
    powerLimits_->setPlaceholderText(tr("e.g. 70%, 85%, 100% of each device's busy power, or watts"));
    powerLimits_->setValidator(new QRegularExpressionValidator(
        QRegularExpression(u"\\s*(\\d+(\\.\\d*)?%?\\s*(,\\s*\\d+(\\.\\d*)?%?\\s*)*)?"_s), powerLimits_));
    powerLimits_->setToolTip(
        tr("Board power limits the search tries on every device (nvidia-smi -pl). Under a "
           "site power cap, more devices at a lower clock can beat fewer at full clocks."));
    form->addRow(tr("Power limits"), powerLimits_);
    providers_ = new QLineEdit;
    providers_->setObjectName(u"planProviders"_s);
    providers_->setPlaceholderText(tr("renting: e.g. aws, lambda, or all (their on-demand prices)"));
    QStringList known;
    for (const auto& p : catalog_.providers())
        known << q(p.id + " (" + p.name + ")");
    providers_->setToolTip(
        tr("The clouds whose published on-demand prices the search compares, when renting; "
           "empty: the catalog's rent prices. Known: %1")
            .arg(known.join(u", "_s)));
    form->addRow(tr("Providers"), providers_);
    return box;
}

QWidget* PlanDialog::createDevices() {
    devices_ = new QListWidget;
    devices_->setObjectName(u"planDevices"_s);
    for (const auto& device : catalog_.devices()) {
        if (device.kind == models::DeviceKind::Cpu)
            continue;
        auto* item = new QListWidgetItem(q(device.id + "  (" + device.vendor + ", " + device.name + ")"));
        item->setData(Qt::UserRole, q(device.id));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        devices_->addItem(item);
    }
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Devices the search may use (those without a price in the mode are left "
                                    "out and named):")));
    layout->addWidget(devices_);
    return box;
}

PlanSettings PlanDialog::settings() const {
    PlanSettings s;
    s.start = start_->date();
    if (hasDeadline_->isChecked())
        s.deadline = deadline_->date();
    if (hasBudget_->isChecked())
        s.budget_usd = budget_->value() * 1e6;
    if (hasPower_->isChecked())
        s.site_power_MW = power_->value();
    s.mode = mode_->currentData().toString();
    s.max_devices = maxDevices_->value();
    s.confirm = confirm_->value();
    QString unused;
    s.lead_time_weeks = parseLeadTimes(leadTimes_->text(), unused).value_or(QMap<QString, double>{});
    s.power_limits = powerLimits_->text().trimmed();
    s.providers = providers_->text().trimmed();
    bool all = true;
    for (int i = 0; i < devices_->count(); ++i) {
        const bool checked = devices_->item(i)->checkState() == Qt::Checked;
        all = all && checked;
        if (checked)
            s.devices << devices_->item(i)->data(Qt::UserRole).toString();
    }
    if (all)
        s.devices.clear(); // every device: let the search say which it left out
    return s;
}

void PlanDialog::setSettings(const PlanSettings& s) {
    start_->setDate(s.start);
    hasDeadline_->setChecked(s.deadline.has_value());
    if (s.deadline)
        deadline_->setDate(*s.deadline);
    hasBudget_->setChecked(s.budget_usd.has_value());
    if (s.budget_usd)
        budget_->setValue(*s.budget_usd / 1e6);
    hasPower_->setChecked(s.site_power_MW.has_value());
    if (s.site_power_MW)
        power_->setValue(*s.site_power_MW);
    mode_->setCurrentIndex(s.mode == u"buy"_s ? 1 : 0);
    maxDevices_->setValue(s.max_devices);
    confirm_->setValue(s.confirm);
    QStringList leads;
    for (auto it = s.lead_time_weeks.cbegin(); it != s.lead_time_weeks.cend(); ++it)
        leads << it.key() + u'=' + QString::number(it.value());
    leadTimes_->setText(leads.join(u", "_s));
    powerLimits_->setText(s.power_limits);
    providers_->setText(s.providers);
    for (int i = 0; i < devices_->count(); ++i) {
        const QString id = devices_->item(i)->data(Qt::UserRole).toString();
        devices_->item(i)->setCheckState(s.devices.isEmpty() || s.devices.contains(id) ? Qt::Checked
                                                                                       : Qt::Unchecked);
    }
}

void PlanDialog::start() {
    if (runner_->isRunning())
        return;
    const PlanSettings s = settings();
    bool anyDevice = false;
    for (int i = 0; i < devices_->count(); ++i)
        anyDevice = anyDevice || devices_->item(i)->checkState() == Qt::Checked;
    if (!anyDevice) {
        showMessage(tr("Tick at least one device."), true);
        return;
    }
    if (QString error; !parseLeadTimes(leadTimes_->text(), error)) {
        showMessage(tr("Lead times: %1").arg(error), true);
        return;
    }
    if (s.deadline && *s.deadline <= s.start) {
        showMessage(tr("The deadline (%1) must come after the order (%2).")
                        .arg(s.deadline->toString(Qt::ISODate), s.start.toString(Qt::ISODate)),
                    true);
        return;
    }
    options_.clear();
    notes_.clear();
    table_->setRowCount(0);
    detail_->clear();
    setRunning(true);
    showMessage(tr("Searching every device, count and layout…"), false);
    runner_->start(document_->scenario(), s);
}

std::optional<QMap<QString, double>> PlanDialog::parseLeadTimes(const QString& text, QString& error) {
    QMap<QString, double> out;
    for (const QString& item : text.split(u',', Qt::SkipEmptyParts)) {
        const QStringList parts = item.trimmed().split(u'=');
        bool number = false;
        const double weeks = parts.size() == 2 ? parts[1].trimmed().toDouble(&number) : 0.0;
        if (parts.size() != 2 || parts[0].trimmed().isEmpty() || !number || weeks < 0.0 || weeks > 520.0) {
            error = tr("expected DEVICE=WEEKS (0 to 520), got \"%1\"").arg(item.trimmed());
            return std::nullopt;
        }
        out[parts[0].trimmed()] = weeks;
    }
    return out;
}

void PlanDialog::cancel() {
    runner_->cancel();
}

void PlanDialog::reject() {
    runner_->cancel();
    QDialog::reject();
}

void PlanDialog::showPlan(const models::Json& plan) {
    setRunning(false);
    for (const auto& option : plan["options"])
        options_.push_back(option);
    if (plan.contains("notes") && plan["notes"].is_array())
        for (const auto& note : plan["notes"])
            if (note.is_string())
                notes_ << q(note.get<std::string>());
    table_->setRowCount(static_cast<int>(options_.size()));
    for (int row = 0; row < static_cast<int>(options_.size()); ++row) {
        const auto& o = options_[static_cast<std::size_t>(row)];
        const QStringList cells = {QString::number(number(o, "count"), 'f', 0) + u" x "_s +
                                       q(text(o, "device")),
                                   q(text(o, "layout")),
                                   QString::number(number(o, "time_to_train_s") / 86400.0, 'f', 1),
                                   q(text(o, "finish")),
                                   QString::number(number(o, "cost_usd") / 1e6, 'f', 2),
                                   QString::number(number(o, "energy_MWh"), 'f', 0),
                                   QString::number(number(o, "peak_MW"), 'f', 2),
                                   q(text(o, "binding_constraint")),
                                   q(text(o, "fidelity"))};
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            if (column >= 2 && column <= 6)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(row, column, item);
        }
    }
    const auto searched = plan.value("searched", std::int64_t{0});
    if (options_.empty())
        showMessage(tr("No option: %1").arg(q(text(plan, "infeasible"))), true);
    else
        showMessage(
            (options_.size() == 1 ? tr("1 option") : tr("%1 options").arg(options_.size())) +
                tr(" on the front of time, cost and energy, of %1 candidates searched. Select one for what "
                   "binds it; open it as a scenario to run or change it.")
                    .arg(searched),
            false);
    if (!options_.empty())
        table_->selectRow(0);
    else
        detail_->setText(notes_.join(u"\n"_s));
    emit planFinished();
}

QString PlanDialog::explanation(int row) const {
    if (row < 0 || row >= static_cast<int>(options_.size()))
        return {};
    const auto& o = options_[static_cast<std::size_t>(row)];
    QString out = tr("Binds: %1 — %2\nFewer devices: %3\nMore devices: %4\nStarts %5 (the devices there), "
                     "finishes %6.")
                      .arg(q(text(o, "binding_constraint")), q(text(o, "why")), q(text(o, "fewer_devices")),
                           q(text(o, "more_devices")), q(text(o, "start")), q(text(o, "finish")));
    if (!notes_.isEmpty())
        out += u"\n\n"_s + tr("Notes:") + u"\n"_s + notes_.join(u"\n"_s);
    return out;
}

void PlanDialog::showDetail() {
    detail_->setText(explanation(table_->currentRow()));
    open_->setEnabled(!runner_->isRunning() && table_->currentRow() >= 0);
}

bool PlanDialog::openOption(int row) {
    if (row < 0 || row >= static_cast<int>(options_.size()))
        return false;
    models::Diagnostics errors;
    const auto scenario =
        models::readScenarioDocument(options_[static_cast<std::size_t>(row)]["scenario"], errors);
    if (!scenario) {
        showMessage(tr("The option cannot be read: %1").arg(q(models::joinDiagnostics(errors))), true);
        return false;
    }
    emit openRequested(*scenario);
    return true;
}

void PlanDialog::setRunning(bool running) {
    plan_->setEnabled(!running);
    cancel_->setEnabled(running);
    open_->setEnabled(!running && table_->currentRow() >= 0);
}

void PlanDialog::showMessage(const QString& text, bool problem) {
    message_->setText(text);
    message_->setStyleSheet(problem ? u"color: #b00020;"_s : QString());
}

QString PlanDialog::message() const {
    return message_->text();
}

} // namespace choreo::ui
