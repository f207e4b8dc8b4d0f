#pragma once

#include "models/result.h"
#include "models/scenario.h"
#include "ui/runs/workercommand.h"
#include "ui/runs/workerfailure.h"

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>

#include <optional>

namespace choreo::ui {

// Runs one simulation in a worker process and speaks the line-delimited JSON protocol with it.
// Every start() ends with exactly one of finished(), failed() or cancelled(), emitted after the
// process has exited, so a caller never sees a late message from a worker it has let go.
class WorkerRunner : public QObject {
    Q_OBJECT

public:
    explicit WorkerRunner(WorkerCommand command, QObject* parent = nullptr);
    // Kills a worker that is still running.
    ~WorkerRunner() override;

    // Sends {"type":"run","scenario":...,"fidelity":...}; false when a run is already in progress.
    bool start(const models::Scenario& scenario, const QString& fidelity = QStringLiteral("flow"));
    // Sends a prepared request as is (tests use it for malformed requests).
    bool startRequest(const QByteArray& request);
    // Kills the worker; cancelled() follows once it is gone. Does nothing when idle.
    void cancel();

    [[nodiscard]] bool isRunning() const { return running_; }
    // The request body start() would send, for logs and tests.
    static QByteArray runRequest(const models::Scenario& scenario, const QString& fidelity);

signals:
    void helloReceived(const QString& version, qint64 pid);
    void progress(double fraction, const QString& stage);
    void finished(const choreo::models::RunResult& result);
    void failed(const choreo::ui::WorkerFailure& failure);
    void cancelled();

private:
    void onStarted();
    void onReadyReadStdout();
    void onReadyReadStderr();
    void onProcessError(QProcess::ProcessError error);
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void handleLine(const QByteArray& line);
    // Records a protocol violation and stops listening to a worker that no longer makes sense.
    void failProtocol(const QString& message);
    void finishWith(const WorkerFailure& failure);

    WorkerCommand command_;
    QProcess* process_ = nullptr;
    QByteArray request_;
    QByteArray stdoutBuffer_;
    QString stderrTail_;
    bool running_ = false;
    bool helloSeen_ = false;
    bool cancelRequested_ = false;
    std::optional<models::RunResult> result_;
    std::optional<WorkerFailure> failure_; // reported by the worker, or a protocol violation
};

} // namespace choreo::ui
