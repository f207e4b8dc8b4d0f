#pragma once

#include "models/jsonreader.h"
#include "models/scenario.h"
#include "ui/runs/workercommand.h"

#include <QDate>
#include <QMap>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

QT_BEGIN_NAMESPACE
class QTemporaryDir;
QT_END_NAMESPACE

namespace choreo::ui {

// What the planner asks of `choreo-sim plan` (docs/plan.md): the limits, the devices and how far to search.
struct PlanSettings {
    QDate start; // the order
    std::optional<QDate> deadline;
    std::optional<double> budget_usd;
    std::optional<double> site_power_MW;
    QString mode = QStringLiteral("rent"); // "rent" or "buy"
    QStringList devices;                   // catalog ids; empty: every device that trains
    int max_devices = 65536;
    int confirm = 3;                       // options confirmed at flow fidelity
    QMap<QString, double> lead_time_weeks; // the planner's, by device id; over the catalog's
    // Board power limits tried on every device, as `plan --power-limit` reads them ("70%,85%,100%" or watts);
    // empty: rated power.
    QString power_limits;
    // Renting: the providers whose on-demand offers are searched, as `plan --provider` reads them
    // ("aws,lambda" or "all"); empty: the catalog's rent prices.
    QString providers;
};

// Runs `choreo-sim plan SCENARIO --json` on a copy of the scenario (written into a private temporary folder)
// and hands back its JSON. Every start() ends with exactly one of finished(), failed() or cancelled(), after
// the process has exited. A plan that finds no option is finished() too: its JSON says why ("infeasible").
class PlanRunner : public QObject {
    Q_OBJECT

public:
    // `command`: the program and its leading arguments, e.g. {choreo-sim, {plan, --assets, DIR}}.
    explicit PlanRunner(WorkerCommand command, QObject* parent = nullptr);
    ~PlanRunner() override; // kills a plan still running

    // Starts planning for `base`; false when one is already running.
    bool start(const models::Scenario& base, const PlanSettings& settings);
    void cancel();
    [[nodiscard]] bool isRunning() const { return process_ != nullptr; }
    // The arguments after the scenario file.
    static QStringList arguments(const PlanSettings& settings);

signals:
    void finished(const choreo::models::Json& plan);
    void failed(const QString& message);
    void cancelled();

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void fail(const QString& message);

    WorkerCommand command_;
    QProcess* process_ = nullptr;
    std::unique_ptr<QTemporaryDir> scratch_;
    bool cancelRequested_ = false;
};

} // namespace choreo::ui
