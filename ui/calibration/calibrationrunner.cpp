#include "ui/calibration/calibrationrunner.h"

#include "models/jsonreader.h"
#include "models/scenarioio.h"
#include "ui/runs/processgroup.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr qsizetype kStderrTailChars = 2000;

} // namespace

CalibrationRunner::CalibrationRunner(WorkerCommand command, QObject* parent)
    : QObject(parent)
    , command_(std::move(command)) {}

CalibrationRunner::~CalibrationRunner() {
    if (process_) {
        process_->disconnect(this);
        cancel();
        process_->waitForFinished(3000);
    }
}

QStringList CalibrationRunner::arguments(const QString& out, const QString& name, bool quick) {
    QStringList args{u"--progress"_s, u"json"_s, u"--out"_s, out, u"--name"_s, name};
    if (quick)
        args << u"--quick"_s;
    return args;
}

bool CalibrationRunner::start(const QString& destination, bool quick) {
    if (process_)
        return false;
    scratch_ = std::make_unique<QTemporaryDir>();
    if (!scratch_->isValid()) {
        const QString message = tr("cannot make a temporary folder: %1").arg(scratch_->errorString());
        scratch_.reset();
        emit failed(message);
        return true;
    }
    destination_ = destination;
    buffer_.clear();
    stderrTail_.clear();
    cancelRequested_ = false;
    haveProfileRecord_ = false;
    outcome_ = {};
    process_ = new QProcess(this);
    // Scratch files of the GPU tool go to our folder too, so nothing outlives a cancel.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"TMPDIR"_s, scratch_->path());
    process_->setProcessEnvironment(env);
    // Its own process group: cancel kills choreo-sim and the choreo-calibrate-gpu it may be running.
    startInOwnProcessGroup(*process_);
    connect(process_, &QProcess::readyReadStandardOutput, this, &CalibrationRunner::onReadyRead);
    connect(process_, &QProcess::readyReadStandardError, this, [this] {
        stderrTail_ += QString::fromUtf8(process_->readAllStandardError());
        if (stderrTail_.size() > kStderrTailChars)
            stderrTail_ = stderrTail_.right(kStderrTailChars);
    });
    connect(process_, &QProcess::finished, this, &CalibrationRunner::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &CalibrationRunner::onError);
    const QString name = QFileInfo(destination).completeBaseName();
    process_->start(command_.program,
                    command_.arguments +
                        arguments(QDir(scratch_->path()).filePath(u"profile.json"_s), name, quick));
    return true;
}

void CalibrationRunner::cancel() {
    if (!process_ || cancelRequested_)
        return;
    cancelRequested_ = true;
    killProcessGroup(*process_);
}

void CalibrationRunner::onReadyRead() {
    buffer_ += process_->readAllStandardOutput();
    qsizetype newline = 0;
    while ((newline = buffer_.indexOf('\n')) >= 0) {
        const QByteArray line = buffer_.left(newline).trimmed();
        buffer_.remove(0, newline + 1);
        if (!line.isEmpty())
            handleLine(line);
    }
}

void CalibrationRunner::handleLine(const QByteArray& line) {
    const auto record = models::Json::parse(line.toStdString(), nullptr, false);
    if (record.is_discarded() || !record.is_object() || !record.contains("type") ||
        !record["type"].is_string())
        return; // not a record: choreo-sim prints records only, so this is a stray line of a child tool
    const std::string type = record["type"].get<std::string>();
    if (type == "progress" && record.value("fraction", models::Json()).is_number()) {
        emit progress(record["fraction"].get<double>(),
                      QString::fromStdString(record.value("stage", std::string())));
    } else if (type == "profile") {
        haveProfileRecord_ = true;
        outcome_.name = QString::fromStdString(record.value("name", std::string()));
        outcome_.gpuMeasured = record.value("gpu_measured", false);
        outcome_.gpuMessage = QString::fromStdString(record.value("gpu_message", std::string()));
    }
}

void CalibrationRunner::onError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart)
        return; // the others end in finished()
    const QString message = tr("cannot start %1: %2").arg(command_.program, process_->errorString());
    process_->deleteLater();
    process_ = nullptr;
    cleanUp();
    emit failed(message);
}

void CalibrationRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
    onReadyRead();
    if (!buffer_.trimmed().isEmpty())
        handleLine(buffer_.trimmed());
    buffer_.clear();
    process_->deleteLater();
    process_ = nullptr;
    if (cancelRequested_) {
        cleanUp();
        emit cancelled();
        return;
    }
    const QString tail = stderrTail_.trimmed();
    if (status != QProcess::NormalExit) {
        finishWithFailure(tr("choreo-sim calibrate crashed.") +
                          (tail.isEmpty() ? QString() : u"\n"_s + tail));
        return;
    }
    if ((exitCode != 0 && exitCode != kExitNoGpu) || !haveProfileRecord_) {
        finishWithFailure(tr("choreo-sim calibrate failed (exit code %1).").arg(exitCode) +
                          (tail.isEmpty() ? QString() : u"\n"_s + tail));
        return;
    }
    // Into place in one step: the destination holds the old profile or the new one, never a part.
    QFile measured(QDir(scratch_->path()).filePath(u"profile.json"_s));
    if (!measured.open(QIODevice::ReadOnly)) {
        finishWithFailure(tr("choreo-sim calibrate wrote no profile: %1").arg(measured.errorString()));
        return;
    }
    QDir().mkpath(QFileInfo(destination_).absolutePath());
    std::string error;
    if (!models::writeTextFileAtomically(destination_.toStdString(), measured.readAll().toStdString(),
                                         error)) {
        finishWithFailure(QString::fromStdString(error));
        return;
    }
    outcome_.file = destination_;
    cleanUp();
    emit finished(outcome_);
}

void CalibrationRunner::finishWithFailure(const QString& message) {
    cleanUp();
    emit failed(message);
}

void CalibrationRunner::cleanUp() {
    scratch_.reset(); // removes the folder and whatever is in it
}

} // namespace choreo::ui
