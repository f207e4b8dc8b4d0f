#include "ui/runs/workerrunner.h"

#include "models/jsonreader.h"
#include "models/scenarioio.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Enough of the worker's log to explain a crash, without growing without bound.
constexpr qsizetype kStderrTailChars = 4000;

QString fromStd(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

QString WorkerFailure::text() const {
    QString out = message;
    for (const auto& d : diagnostics) {
        const QString line = fromStd(d.text());
        // Workers often put the diagnostics in the message too; say each thing once.
        if (!message.contains(line) && !message.contains(fromStd(d.message)))
            out += u'\n' + line;
    }
    return out;
}

WorkerRunner::WorkerRunner(WorkerCommand command, QObject* parent)
    : QObject(parent)
    , command_(std::move(command)) {}

WorkerRunner::~WorkerRunner() {
    if (process_ && process_->state() != QProcess::NotRunning) {
        // No signal may reach a half-destroyed runner; SIGKILL makes the wait short.
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000);
    }
}

QByteArray WorkerRunner::runRequest(const models::Scenario& scenario, const QString& fidelity) {
    models::Json request;
    request["type"] = "run";
    request["scenario"] = models::Json::parse(models::serializeScenario(scenario));
    request["fidelity"] = fidelity.toStdString();
    return QByteArray::fromStdString(request.dump());
}

bool WorkerRunner::start(const models::Scenario& scenario, const QString& fidelity) {
    return startRequest(runRequest(scenario, fidelity));
}

bool WorkerRunner::startRequest(const QByteArray& request) {
    if (running_)
        return false;
    if (process_) {
        process_->disconnect(this);
        process_->deleteLater();
    }
    running_ = true;
    helloSeen_ = false;
    cancelRequested_ = false;
    result_.reset();
    failure_.reset();
    stdoutBuffer_.clear();
    stderrTail_.clear();
    request_ = request;

    process_ = new QProcess(this);
    process_->setProcessChannelMode(QProcess::SeparateChannels);
    connect(process_, &QProcess::started, this, &WorkerRunner::onStarted);
    connect(process_, &QProcess::readyReadStandardOutput, this, &WorkerRunner::onReadyReadStdout);
    connect(process_, &QProcess::readyReadStandardError, this, &WorkerRunner::onReadyReadStderr);
    connect(process_, &QProcess::errorOccurred, this, &WorkerRunner::onProcessError);
    connect(process_, &QProcess::finished, this, &WorkerRunner::onProcessFinished);
    process_->start(command_.program, command_.arguments);
    return true;
}

void WorkerRunner::cancel() {
    if (!running_ || !process_)
        return;
    cancelRequested_ = true;
    process_->kill();
}

void WorkerRunner::onStarted() {
    // The request is small; the pipe buffers it, and closing the channel is the protocol's end of input.
    process_->write(request_);
    process_->closeWriteChannel();
}

void WorkerRunner::onReadyReadStdout() {
    stdoutBuffer_ += process_->readAllStandardOutput();
    qsizetype newline = 0;
    while ((newline = stdoutBuffer_.indexOf('\n')) >= 0) {
        const QByteArray line = stdoutBuffer_.left(newline);
        stdoutBuffer_.remove(0, newline + 1);
        handleLine(line);
    }
}

void WorkerRunner::onReadyReadStderr() {
    stderrTail_ += QString::fromUtf8(process_->readAllStandardError());
    if (stderrTail_.size() > kStderrTailChars)
        stderrTail_ = stderrTail_.right(kStderrTailChars);
}

void WorkerRunner::handleLine(const QByteArray& rawLine) {
    const QByteArray line = rawLine.trimmed();
    if (line.isEmpty() || failure_)
        return;
    const models::Json message = models::Json::parse(line.toStdString(), nullptr, false);
    if (message.is_discarded() || !message.is_object() || !message.contains("type") ||
        !message["type"].is_string()) {
        failProtocol(tr("the worker wrote something that is not a protocol message: %1")
                         .arg(QString::fromUtf8(line.left(120))));
        return;
    }
    const std::string type = message["type"].get<std::string>();
    if (!helloSeen_) {
        if (type != "hello") {
            failProtocol(tr("the worker did not start with a hello message (got \"%1\")").arg(fromStd(type)));
            return;
        }
        const std::string protocol = message.value("protocol", std::string());
        if (protocol != kWorkerProtocol) {
            failProtocol(tr("the worker speaks protocol \"%1\", this program expects \"%2\"; "
                            "are choreo and choreo-sim from the same build?")
                             .arg(fromStd(protocol), QLatin1StringView(kWorkerProtocol)));
            return;
        }
        helloSeen_ = true;
        const auto pidIt = message.find("pid");
        const qint64 pid = pidIt != message.end() && pidIt->is_number_integer() ? pidIt->get<qint64>() : 0;
        emit helloReceived(fromStd(message.value("version", std::string())), pid);
        return;
    }
    if (type == "progress") {
        const auto f = message.find("fraction");
        const double fraction = f != message.end() && f->is_number() ? f->get<double>() : 0.0;
        emit progress(std::clamp(fraction, 0.0, 1.0), fromStd(message.value("stage", std::string())));
    } else if (type == "result") {
        models::Diagnostics errors;
        const auto it = message.find("result");
        std::optional<models::RunResult> result =
            it == message.end() ? std::nullopt : models::resultFromJson(*it, errors);
        if (!result) {
            failProtocol(tr("the worker's result could not be read"));
            failure_->diagnostics = errors;
            return;
        }
        result_ = std::move(result);
    } else if (type == "error") {
        WorkerFailure f;
        f.kind = WorkerFailure::Kind::Reported;
        f.code = fromStd(message.value("code", std::string()));
        const auto exitIt = message.find("exit_code");
        f.exitCode = exitIt != message.end() && exitIt->is_number_integer() ? exitIt->get<int>() : -1;
        f.message = fromStd(message.value("message", std::string("the worker reported an error")));
        if (const auto d = message.find("diagnostics"); d != message.end() && d->is_array())
            for (const auto& item : *d)
                if (item.is_object())
                    f.diagnostics.push_back(
                        {item.value("path", std::string()), item.value("message", std::string())});
        failure_ = std::move(f);
    }
    // Unknown message types are ignored: a newer worker may add some within the same protocol version.
}

void WorkerRunner::failProtocol(const QString& message) {
    WorkerFailure f;
    f.kind = WorkerFailure::Kind::Protocol;
    f.message = message;
    failure_ = std::move(f);
    process_->kill();
}

void WorkerRunner::onProcessError(QProcess::ProcessError error) {
    // Other errors (crash, read/write) are followed by finished(), which reports them.
    if (error != QProcess::FailedToStart)
        return;
    WorkerFailure f;
    f.kind = WorkerFailure::Kind::StartFailed;
    f.message = tr("could not start the worker %1: %2").arg(command_.program, process_->errorString());
    if (cancelRequested_) {
        running_ = false;
        emit cancelled();
        return;
    }
    finishWith(f);
}

void WorkerRunner::onProcessFinished(int exitCode, QProcess::ExitStatus status) {
    // The last line may arrive without a newline, or in the same read as the exit.
    stdoutBuffer_ += process_->readAllStandardOutput();
    if (!stdoutBuffer_.isEmpty()) {
        if (!stdoutBuffer_.endsWith('\n'))
            stdoutBuffer_ += '\n';
        onReadyReadStdout();
    }
    onReadyReadStderr();

    if (cancelRequested_) {
        running_ = false;
        emit cancelled();
        return;
    }
    if (failure_) {
        WorkerFailure f = *failure_;
        if (f.kind == WorkerFailure::Kind::Reported && f.exitCode < 0 && status == QProcess::NormalExit)
            f.exitCode = exitCode;
        finishWith(f);
        return;
    }
    if (result_ && status == QProcess::NormalExit && exitCode == 0) {
        running_ = false;
        const models::RunResult r = *result_;
        emit finished(r);
        return;
    }
    WorkerFailure f;
    f.kind = WorkerFailure::Kind::Crashed;
    // On Unix QProcess reports the terminating signal as the exit code of a crash.
    f.bySignal = status == QProcess::CrashExit;
    f.exitCode = exitCode;
    const QString how = f.bySignal ? tr("signal %1").arg(exitCode) : tr("exit code %1").arg(exitCode);
    f.message = result_ ? tr("worker crashed after sending its result (%1)").arg(how)
                        : tr("worker crashed (%1)").arg(how);
    finishWith(f);
}

void WorkerRunner::finishWith(const WorkerFailure& failure) {
    running_ = false;
    WorkerFailure f = failure;
    f.stderrTail = stderrTail_;
    emit failed(f);
}

} // namespace choreo::ui
