#include "ui/plan/planrunner.h"

#include "models/exitcodes.h"
#include "models/scenarioio.h"
#include "ui/runs/processgroup.h"

#include <QDir>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr qsizetype kStderrTailChars = 2000;

QString number(double value) {
    return QString::number(value, 'g', 17);
}

} // namespace

PlanRunner::PlanRunner(WorkerCommand command, QObject* parent)
    : QObject(parent)
    , command_(std::move(command)) {}

PlanRunner::~PlanRunner() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(3000);
    }
}

QStringList PlanRunner::arguments(const PlanSettings& s) {
    QStringList args{u"--json"_s,
                     u"--start"_s,
                     s.start.toString(Qt::ISODate),
                     u"--mode"_s,
                     s.mode,
                     u"--max-devices"_s,
                     QString::number(s.max_devices),
                     u"--confirm"_s,
                     QString::number(s.confirm)};
    if (s.deadline)
        args << u"--deadline"_s << s.deadline->toString(Qt::ISODate);
    if (s.budget_usd)
        args << u"--budget"_s << number(*s.budget_usd);
    if (s.site_power_MW)
        args << u"--power-cap"_s << number(*s.site_power_MW);
    if (!s.devices.isEmpty())
        args << u"--device"_s << s.devices.join(u',');
    for (auto it = s.lead_time_weeks.cbegin(); it != s.lead_time_weeks.cend(); ++it)
        args << u"--lead-time"_s << it.key() + u'=' + number(it.value());
    if (QString limits = s.power_limits; !limits.remove(u' ').isEmpty())
        args << u"--power-limit"_s << limits;
    if (QString providers = s.providers; !providers.remove(u' ').isEmpty() && s.mode == u"rent"_s)
        args << u"--provider"_s << providers;
    return args;
}

bool PlanRunner::start(const models::Scenario& base, const PlanSettings& settings) {
    if (process_)
        return false;
    scratch_ = std::make_unique<QTemporaryDir>();
    std::string error;
    const QString file = QDir(scratch_->path()).filePath(u"base.json"_s);
    if (!scratch_->isValid() || !models::saveScenarioFile(file.toStdString(), base, error)) {
        fail(tr("cannot write the scenario for the plan: %1")
                 .arg(error.empty() ? scratch_->errorString() : QString::fromStdString(error)));
        return true;
    }
    cancelRequested_ = false;
    process_ = new QProcess(this);
    // Its own process group: cancel kills choreo-sim and the flow confirmations it forked.
    startInOwnProcessGroup(*process_);
    connect(process_, &QProcess::finished, this, &PlanRunner::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &PlanRunner::onError);
    process_->start(command_.program, command_.arguments + QStringList{file} + arguments(settings));
    return true;
}

void PlanRunner::cancel() {
    if (!process_ || cancelRequested_)
        return;
    cancelRequested_ = true;
    killProcessGroup(*process_);
}

void PlanRunner::onError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart)
        return; // the others end in finished()
    const QString message = tr("cannot start %1: %2").arg(command_.program, process_->errorString());
    process_->deleteLater();
    process_ = nullptr;
    fail(message);
}

void PlanRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
    const QByteArray out = process_->readAllStandardOutput();
    const QString tail =
        QString::fromUtf8(process_->readAllStandardError()).right(kStderrTailChars).trimmed();
    process_->deleteLater();
    process_ = nullptr;
    if (cancelRequested_) {
        scratch_.reset();
        emit cancelled();
        return;
    }
    if (status != QProcess::NormalExit) {
        fail(tr("choreo-sim plan crashed.") + (tail.isEmpty() ? QString() : u"\n"_s + tail));
        return;
    }
    // Exit 0 with options, or exit 2 with the reason there are none; anything else is a failure.
    const auto plan = models::Json::parse(out.toStdString(), nullptr, false);
    const bool answered =
        !plan.is_discarded() && plan.is_object() && plan.contains("options") && plan["options"].is_array();
    if (!answered || (exitCode != kExitOk && exitCode != kExitInvalidInput)) {
        fail(tr("choreo-sim plan failed (exit code %1).").arg(exitCode) +
             (tail.isEmpty() ? QString() : u"\n"_s + tail));
        return;
    }
    scratch_.reset();
    emit finished(plan);
}

void PlanRunner::fail(const QString& message) {
    scratch_.reset();
    emit failed(message);
}

} // namespace choreo::ui
