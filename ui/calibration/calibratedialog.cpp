#include "ui/calibration/calibratedialog.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr int kProgressSteps = 1000;

} // namespace

CalibrateDialog::CalibrateDialog(WorkerCommand command, const QString& folder, QWidget* parent)
    : QDialog(parent)
    , runner_(new CalibrationRunner(std::move(command), this))
    , quick_(new QCheckBox(tr("Quick (about a minute; the full run takes up to ten)")))
    , destination_(new QLineEdit)
    , browse_(new QPushButton(tr("Browse…")))
    , progress_(new QProgressBar)
    , stage_(new QLabel)
    , message_(new QLabel)
    , start_(new QPushButton(tr("Start")))
    , cancel_(new QPushButton(tr("Cancel")))
    , view_(new QPushButton(tr("View profile")))
    , use_(new QPushButton(tr("Use in this scenario"))) {
    setObjectName(u"calibrateDialog"_s);
    setWindowTitle(tr("Calibrate this machine"));
    quick_->setObjectName(u"quickCheck"_s);
    quick_->setChecked(true);
    destination_->setObjectName(u"profileDestinationEdit"_s);
    destination_->setText(QDir(folder).filePath(
        u"calibration-%1.json"_s.arg(QDateTime::currentDateTimeUtc().toString(u"yyyy-MM-dd-HHmm"_s))));
    progress_->setObjectName(u"calibrationProgress"_s);
    progress_->setRange(0, kProgressSteps);
    progress_->setValue(0);
    stage_->setObjectName(u"calibrationStage"_s);
    stage_->setWordWrap(true);
    message_->setObjectName(u"calibrationMessage"_s);
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    start_->setObjectName(u"startCalibrationButton"_s);
    cancel_->setObjectName(u"cancelCalibrationButton"_s);
    view_->setObjectName(u"viewProfileButton"_s);
    use_->setObjectName(u"useProfileButton"_s);

    auto* intro = new QLabel(
        tr("Measures this machine's GPU (matrix multiply per precision, memory bandwidth, launch overhead, "
           "power) and CPU (BLAS, memory bandwidth, data preparation) and writes a calibration profile "
           "that a scenario can use instead of the spec sheet. Close other heavy programs first."));
    intro->setWordWrap(true);
    auto* where = new QHBoxLayout;
    where->addWidget(destination_, 1);
    where->addWidget(browse_);
    auto* form = new QFormLayout;
    form->addRow(QString(), quick_);
    form->addRow(tr("Profile file"), where);
    auto* buttons = new QDialogButtonBox;
    buttons->addButton(start_, QDialogButtonBox::ActionRole);
    buttons->addButton(cancel_, QDialogButtonBox::ActionRole);
    buttons->addButton(view_, QDialogButtonBox::ActionRole);
    buttons->addButton(use_, QDialogButtonBox::ActionRole);
    buttons->addButton(QDialogButtonBox::Close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(progress_);
    layout->addWidget(stage_);
    layout->addWidget(message_);
    layout->addStretch();
    layout->addWidget(buttons);
    resize(560, 300);

    connect(buttons, &QDialogButtonBox::rejected, this, &CalibrateDialog::reject);
    connect(start_, &QPushButton::clicked, this, &CalibrateDialog::start);
    connect(cancel_, &QPushButton::clicked, this, &CalibrateDialog::cancel);
    connect(view_, &QPushButton::clicked, this, [this] { emit viewRequested(outcome_.file); });
    connect(use_, &QPushButton::clicked, this, [this] { emit useRequested(outcome_.file); });
    connect(browse_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the profile as"), destination(),
                                                          tr("Calibration profiles (*.json)"));
        if (!path.isEmpty())
            setDestination(QFileInfo(path).suffix().isEmpty() ? path + u".json"_s : path);
    });
    connect(runner_, &CalibrationRunner::progress, this, [this](double fraction, const QString& stage) {
        progress_->setRange(0, kProgressSteps);
        progress_->setValue(static_cast<int>(fraction * kProgressSteps));
        stage_->setText(stage);
    });
    connect(runner_, &CalibrationRunner::finished, this, [this](const CalibrationOutcome& outcome) {
        outcome_ = outcome;
        setRunning(false);
        progress_->setValue(kProgressSteps);
        stage_->clear();
        if (outcome.gpuMeasured)
            showMessage(tr("Done: the GPU and the CPU were measured. Profile %1 written to %2.")
                            .arg(outcome.name, outcome.file),
                        u"#1c6b2a"_s);
        else
            showMessage(tr("Only the CPU part was measured: no GPU was measured (%1). The CPU profile %2 "
                           "was written to %3; it refines a CPU, not a GPU.")
                            .arg(outcome.gpuMessage, outcome.name, outcome.file),
                        u"#8a5a00"_s);
    });
    connect(runner_, &CalibrationRunner::failed, this, [this](const QString& message) {
        setRunning(false);
        stage_->clear();
        showMessage(tr("Calibration failed: %1").arg(message), u"#a01818"_s);
    });
    connect(runner_, &CalibrationRunner::cancelled, this, [this] {
        setRunning(false);
        progress_->setValue(0);
        stage_->clear();
        showMessage(tr("Cancelled; no profile was written."), u"#505050"_s);
    });
    setRunning(false);
}

QString CalibrateDialog::destination() const {
    return destination_->text().trimmed();
}

void CalibrateDialog::setDestination(const QString& path) {
    destination_->setText(path);
}

void CalibrateDialog::setQuick(bool quick) {
    quick_->setChecked(quick);
}

QString CalibrateDialog::message() const {
    return message_->text();
}

void CalibrateDialog::start() {
    if (runner_->isRunning())
        return;
    if (destination().isEmpty()) {
        showMessage(tr("Choose a file for the profile first."), u"#a01818"_s);
        return;
    }
    outcome_ = {};
    showMessage(QString(), QString());
    progress_->setRange(0, 0); // busy until the first progress record
    stage_->setText(tr("Starting…"));
    setRunning(true);
    runner_->start(destination(), quick_->isChecked());
}

void CalibrateDialog::cancel() {
    runner_->cancel();
}

void CalibrateDialog::reject() {
    runner_->cancel();
    QDialog::reject();
}

void CalibrateDialog::setRunning(bool running) {
    start_->setEnabled(!running);
    cancel_->setEnabled(running);
    quick_->setEnabled(!running);
    destination_->setEnabled(!running);
    browse_->setEnabled(!running);
    const bool have = !running && !outcome_.file.isEmpty();
    view_->setEnabled(have);
    use_->setEnabled(have);
}

void CalibrateDialog::showMessage(const QString& text, const QString& color) {
    message_->setText(text);
    message_->setStyleSheet(color.isEmpty() ? QString() : u"color: %1;"_s.arg(color));
}

} // namespace choreo::ui
