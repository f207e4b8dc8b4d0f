#pragma once

#include "ui/calibration/calibrationrunner.h"

#include <QDialog>
#include <QString>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
QT_END_NAMESPACE

namespace choreo::ui {

// Tools > Calibrate this machine: runs `choreo-sim calibrate` with progress and Cancel, says plainly
// what was measured (the GPU, or only the CPU), and offers the profile to view or to use.
class CalibrateDialog : public QDialog {
    Q_OBJECT

public:
    // `command` starts choreo-sim calibrate (see CalibrationRunner); profiles go to `folder` by default.
    CalibrateDialog(WorkerCommand command, const QString& folder, QWidget* parent = nullptr);

    [[nodiscard]] CalibrationRunner* runner() const { return runner_; }
    [[nodiscard]] QString destination() const;
    void setDestination(const QString& path);
    void setQuick(bool quick);
    // The outcome of the last calibration that finished (empty file before).
    [[nodiscard]] const CalibrationOutcome& outcome() const { return outcome_; }
    // What the dialog says now (the state line under the progress bar).
    [[nodiscard]] QString message() const;

public slots:
    void start();
    void cancel();

signals:
    void viewRequested(const QString& profilePath);
    void useRequested(const QString& profilePath);

protected:
    void reject() override; // closing cancels a calibration under way

private:
    void setRunning(bool running);
    void showMessage(const QString& text, const QString& color);

    CalibrationRunner* runner_;
    CalibrationOutcome outcome_;
    QCheckBox* quick_;
    QLineEdit* destination_;
    QPushButton* browse_;
    QProgressBar* progress_;
    QLabel* stage_;
    QLabel* message_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* view_;
    QPushButton* use_;
};

} // namespace choreo::ui
