#pragma once

#include "ui/runs/workercommand.h"

#include <QMetaType>
#include <QObject>
#include <QProcess>
#include <QString>

#include <memory>

QT_BEGIN_NAMESPACE
class QTemporaryDir;
QT_END_NAMESPACE

namespace choreo::ui {

// What one `choreo-sim calibrate` left: the profile file and whether a GPU was part of it.
struct CalibrationOutcome {
    QString file; // where the profile now is
    QString name; // the profile's name
    bool gpuMeasured = false;
    QString gpuMessage; // why no GPU was measured (empty when one was)
};

// Runs `choreo-sim calibrate --progress json` in a process and reads its JSON-line records. The
// profile is written into a private temporary folder and moved to its destination only when the
// calibration succeeded, so a cancel or a crash never leaves a half-written profile. Every start()
// ends with exactly one of finished(), failed() or cancelled(), after the process has exited.
class CalibrationRunner : public QObject {
    Q_OBJECT

public:
    // `command`: the program and its leading arguments, e.g. {choreo-sim, {calibrate, --assets, DIR}}.
    explicit CalibrationRunner(WorkerCommand command, QObject* parent = nullptr);
    // Kills a calibration still running (and whatever it started).
    ~CalibrationRunner() override;

    // Starts measuring into `destination` (a .json file; the profile is named after its base name);
    // false when one is already running.
    bool start(const QString& destination, bool quick);
    // Kills the calibration and the processes it started; cancelled() follows once they are gone.
    void cancel();
    [[nodiscard]] bool isRunning() const { return process_ != nullptr; }
    // The arguments start() passes, after the command's own.
    static QStringList arguments(const QString& out, const QString& name, bool quick);

signals:
    void progress(double fraction, const QString& stage);
    void finished(const choreo::ui::CalibrationOutcome& outcome);
    void failed(const QString& message);
    void cancelled();

private:
    void onReadyRead();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void handleLine(const QByteArray& line);
    void finishWithFailure(const QString& message);
    void cleanUp();

    WorkerCommand command_;
    QProcess* process_ = nullptr;
    std::unique_ptr<QTemporaryDir> scratch_;
    QString destination_;
    QByteArray buffer_;
    QString stderrTail_;
    bool cancelRequested_ = false;
    bool haveProfileRecord_ = false;
    CalibrationOutcome outcome_;
};

} // namespace choreo::ui

Q_DECLARE_METATYPE(choreo::ui::CalibrationOutcome)
