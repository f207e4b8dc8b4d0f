#include "ui/calibration/calibrationform.h"

#include "ui/editids.h"
#include "ui/formfields.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

CalibrationForm::CalibrationForm(Document* document, FieldMarks* marks, QWidget* parent)
    : ScenarioForm(document, marks, parent)
    , choice_(new QComboBox)
    , device_(new QComboBox)
    , state_(new QLabel)
    , view_(new QPushButton(tr("View…"))) {
    choice_->setObjectName(u"profileCombo"_s);
    // A long profile path must not widen the form; the tooltip and the state line say it in full.
    choice_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    choice_->setMinimumContentsLength(16);
    choice_->setToolTip(tr("Spec sheet: the catalog's figures. A profile: figures measured by choreo-sim "
                           "calibrate (Tools > Calibrate this machine) for one catalog device."));
    state_->setObjectName(u"profileStateLabel"_s);
    state_->setWordWrap(true);
    QFont small = state_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    state_->setFont(small);
    view_->setObjectName(u"viewScenarioProfileButton"_s);
    mark(u"calibration"_s, choice_, true);
    mark(u"calibration.profile"_s, choice_);
    device_->setObjectName(u"refinedDeviceCombo"_s);
    device_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    device_->setMinimumContentsLength(16);
    device_->setToolTip(tr("The catalog device whose figures the profile replaces; by default the one the "
                           "profile names (matched from the measured GPU's name)"));
    mark(u"calibration.device"_s, device_);

    auto* box = new QGroupBox(tr("Calibration"));
    auto* grid = new QGridLayout(box);
    grid->addWidget(new QLabel(tr("Device figures")), 0, 0);
    auto* row = new QHBoxLayout;
    row->addWidget(choice_, 1);
    row->addWidget(view_);
    grid->addLayout(row, 0, 1);
    grid->addWidget(new QLabel(tr("Refines")), 1, 0);
    grid->addWidget(device_, 1, 1);
    grid->addWidget(state_, 2, 1);
    grid->setColumnStretch(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(box);

    // Items: the spec sheet first, "Choose a profile file…" last, the profile in use between them.
    connect(choice_, &QComboBox::activated, this, [this](int index) {
        if (index == choice_->count() - 1)
            chooseFile();
        else if (index == 0)
            useProfile(QString());
    });
    connect(device_, &QComboBox::activated, this,
            [this] { setRefinedDevice(device_->currentData().toString()); });
    connect(view_, &QPushButton::clicked, this, [this] {
        if (const auto file = this->document()->profileFile())
            emit viewRequested(QString::fromStdString(file->string()));
    });
    refresh();
}

QString CalibrationForm::referenceFor(const QString& path) const {
    if (path.isEmpty())
        return {};
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (document()->filePath().isEmpty())
        return absolute;
    const QString relative = QFileInfo(document()->filePath()).absoluteDir().relativeFilePath(absolute);
    return relative.startsWith(u"../"_s) || QDir::isAbsolutePath(relative) ? absolute : relative;
}

void CalibrationForm::useProfile(const QString& path) {
    const QString reference = referenceFor(path);
    change(NoMerge, reference.isEmpty() ? tr("Use the spec sheet") : tr("Use calibration profile"),
           [reference](models::Scenario& s) {
               if (reference.isEmpty())
                   s.calibration.reset();
               else
                   s.calibration = models::CalibrationRef{reference.toStdString(), std::nullopt};
           });
}

void CalibrationForm::setRefinedDevice(const QString& deviceId) {
    if (!document()->scenario().calibration)
        return;
    change(NoMerge, tr("Change the device the profile refines"),
           [id = deviceId.toStdString()](models::Scenario& s) {
               if (id.empty())
                   s.calibration->device.reset();
               else
                   s.calibration->device = id;
           });
}

void CalibrationForm::chooseFile() {
    const QString start =
        document()->filePath().isEmpty() ? QString() : QFileInfo(document()->filePath()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Calibration profile"), start,
                                                      tr("Calibration profiles (*.json);;All files (*)"));
    if (!path.isEmpty())
        useProfile(path);
    refresh(); // back to what the document says when the dialog was cancelled
}

void CalibrationForm::refresh() {
    const auto& calibration = document()->scenario().calibration;
    const QString reference = calibration ? QString::fromStdString(calibration->profile) : QString();
    {
        const QSignalBlocker block(choice_);
        choice_->clear();
        choice_->addItem(tr("Spec sheet (no profile)"), QString());
        if (!reference.isEmpty())
            choice_->addItem(tr("Profile: %1").arg(reference), reference);
        choice_->addItem(tr("Choose a profile file…"));
        choice_->setCurrentIndex(reference.isEmpty() ? 0 : 1);
    }
    const auto file = document()->profileFile();
    view_->setEnabled(file.has_value());
    const auto profile = file ? document()->loadProfile() : std::nullopt;
    {
        // The profile's own device, then every device of the scenario's pools.
        const QSignalBlocker block(device_);
        device_->clear();
        device_->addItem(profile && !profile->device.empty()
                             ? tr("as the profile says (%1)").arg(QString::fromStdString(profile->device))
                             : tr("as the profile says"),
                         QString());
        QStringList ids;
        for (const auto& pool : document()->scenario().cluster.pools)
            if (!ids.contains(QString::fromStdString(pool.device)))
                ids << QString::fromStdString(pool.device);
        if (calibration && calibration->device && !ids.contains(QString::fromStdString(*calibration->device)))
            ids << QString::fromStdString(*calibration->device); // shown even when no pool has it: a problem
        for (const QString& id : ids)
            device_->addItem(id, id);
        device_->setCurrentIndex(
            std::max(0, device_->findData(calibration && calibration->device
                                              ? QString::fromStdString(*calibration->device)
                                              : QString())));
        device_->setEnabled(calibration.has_value());
    }
    if (!calibration)
        state_->setText(tr("Results use the catalog's spec-sheet figures."));
    else if (!file)
        state_->setText(tr("The profile file cannot be found (see the problems below)."));
    else if (profile)
        state_->setText(tr("Results say \"calibration\": \"%1\" (%2, refines %3).")
                            .arg(QString::fromStdString(profile->name), QString::fromStdString(profile->kind),
                                 calibration->device ? QString::fromStdString(*calibration->device)
                                                     : QString::fromStdString(profile->device)));
    else
        state_->setText(tr("The profile file cannot be read (see the problems below)."));
}

} // namespace choreo::ui
