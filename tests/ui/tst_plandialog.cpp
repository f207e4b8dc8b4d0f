// Tools > Plan a cluster against the real `choreo-sim plan`: the dialog passes the planner's limits, lists
// the options with what binds them, says why there is none, and an option opens as a new scenario in the
// window.
#include "ui/document.h"
#include "ui/mainwindow.h"
#include "ui/plan/plandialog.h"

#include <QAction>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "testsupport.h"

using namespace Qt::StringLiterals;

namespace {

constexpr int kPlanTimeoutMs = 60000;

choreo::ui::WorkerCommand planCommand() {
    return {QStringLiteral(CHOREO_SIM_WORKER),
            {u"plan"_s, u"--assets"_s, QString::fromStdString(choreo::test::assetsDir().string())}};
}

// H100 only, up to 256 of them, no flow confirmation: a search of a fraction of a second.
choreo::ui::PlanSettings smallPlan() {
    choreo::ui::PlanSettings s;
    s.start = QDate(2027, 1, 4);
    s.devices = {u"h100-sxm"_s};
    s.max_devices = 256;
    s.confirm = 0;
    return s;
}

} // namespace

class TestPlanDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        catalog_ = choreo::test::loadCatalog();
        QVERIFY(catalog_);
    }

    // The arguments carry every limit set, and only those.
    void argumentsNameTheLimits() {
        auto s = smallPlan();
        QStringList args = choreo::ui::PlanRunner::arguments(s);
        QVERIFY(!args.contains(u"--deadline"_s) && !args.contains(u"--budget"_s));
        s.deadline = QDate(2027, 6, 30);
        s.budget_usd = 2.5e7;
        s.site_power_MW = 1.5;
        args = choreo::ui::PlanRunner::arguments(s);
        QCOMPARE(args.at(args.indexOf(u"--deadline"_s) + 1), u"2027-06-30"_s);
        QCOMPARE(args.at(args.indexOf(u"--budget"_s) + 1), u"25000000"_s);
        QCOMPARE(args.at(args.indexOf(u"--power-cap"_s) + 1), u"1.5"_s);
        QCOMPARE(args.at(args.indexOf(u"--device"_s) + 1), u"h100-sxm"_s);
        s.lead_time_weeks[u"h200-sxm"_s] = 16;
        args = choreo::ui::PlanRunner::arguments(s);
        QCOMPARE(args.at(args.indexOf(u"--lead-time"_s) + 1), u"h200-sxm=16"_s);
        QVERIFY(!args.contains(u"--power-limit"_s));
        s.power_limits = u"70%, 85% ,100%"_s;
        args = choreo::ui::PlanRunner::arguments(s);
        QCOMPARE(args.at(args.indexOf(u"--power-limit"_s) + 1), u"70%,85%,100%"_s);
        s.providers = u"aws, lambda"_s;
        args = choreo::ui::PlanRunner::arguments(s);
        QCOMPARE(args.at(args.indexOf(u"--provider"_s) + 1), u"aws,lambda"_s);
        s.mode = u"buy"_s; // providers rent
        QVERIFY(!choreo::ui::PlanRunner::arguments(s).contains(u"--provider"_s));
        QString error;
        const auto leads = choreo::ui::PlanDialog::parseLeadTimes(u" h200-sxm=16, mi300x = 20.5 "_s, error);
        QVERIFY(leads && leads->size() == 2 && leads->value(u"mi300x"_s) == 20.5);
        QVERIFY(!choreo::ui::PlanDialog::parseLeadTimes(u"h200-sxm=soon"_s, error));
        QCOMPARE(error, u"expected DEVICE=WEEKS (0 to 520), got \"h200-sxm=soon\""_s);
    }

    void optionsListWhatBindsThem() {
        choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
        choreo::ui::PlanDialog dialog(*catalog_, &document, planCommand());
        auto s = smallPlan();
        s.budget_usd = 30e6;
        dialog.setSettings(s);
        QCOMPARE(dialog.settings().devices, QStringList{u"h100-sxm"_s});
        QSignalSpy done(&dialog, &choreo::ui::PlanDialog::planFinished);
        dialog.start();
        QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, kPlanTimeoutMs));
        QVERIFY2(dialog.optionCount() > 0, qPrintable(dialog.message()));
        auto* table = dialog.findChild<QTableWidget*>(u"planOptions"_s);
        QCOMPARE(table->rowCount(), dialog.optionCount());
        QVERIFY(table->item(0, 0)->text().endsWith(u" x h100-sxm"_s));
        QVERIFY(dialog.explanation(0).startsWith(u"Binds: "_s));
        QVERIFY(dialog.explanation(0).contains(u"Fewer devices: "_s));
        std::vector<choreo::models::Scenario> opened;
        connect(&dialog, &choreo::ui::PlanDialog::openRequested, this,
                [&](const choreo::models::Scenario& option) { opened.push_back(option); });
        QVERIFY(dialog.openOption(0));
        QCOMPARE(opened.size(), std::size_t{1});
        const auto& scenario = opened.front();
        QCOMPARE(scenario.trainingPool()->device, std::string("h100-sxm"));
        QCOMPARE(QString::number(scenario.trainingPool()->count) + u" x h100-sxm"_s,
                 table->item(0, 0)->text());
        QVERIFY(!dialog.openOption(dialog.optionCount())); // no such row
    }

    void noOptionSaysWhy() {
        choreo::ui::Document document(*catalog_, *choreo::test::loadDefaultScenario());
        choreo::ui::PlanDialog dialog(*catalog_, &document, planCommand());
        auto s = smallPlan();
        s.deadline = s.start.addDays(10);
        dialog.setSettings(s);
        QSignalSpy done(&dialog, &choreo::ui::PlanDialog::planFinished);
        dialog.start();
        QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, kPlanTimeoutMs));
        QCOMPARE(dialog.optionCount(), 0);
        QVERIFY2(dialog.message().startsWith(u"No option: the deadline cannot be met"_s),
                 qPrintable(dialog.message()));
        // A deadline before the order is refused before anything runs.
        s.deadline = s.start.addDays(-1);
        dialog.setSettings(s);
        dialog.start();
        QVERIFY(!dialog.runner()->isRunning());
        QVERIFY(dialog.message().contains(u"must come after the order"_s));
        // With no device ticked, nothing runs either.
        s.deadline.reset();
        s.devices = {u"no-such-device"_s};
        dialog.setSettings(s);
        dialog.start();
        QVERIFY(!dialog.runner()->isRunning());
        QCOMPARE(dialog.message(), u"Tick at least one device."_s);
        // A lead time that is not one is refused by the field.
        s.devices.clear();
        dialog.setSettings(s);
        dialog.findChild<QLineEdit*>(u"planLeadTimes"_s)->setText(u"h100-sxm=-3"_s);
        dialog.start();
        QVERIFY(!dialog.runner()->isRunning());
        QVERIFY(dialog.message().startsWith(u"Lead times: expected DEVICE=WEEKS"_s));
    }

    // In the window: Tools > Plan a cluster, and an option opened replaces the (unmodified) document.
    void windowOpensAnOption() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
        const QString path = QString::fromStdString(choreo::test::defaultScenarioPath().string());
        choreo::ui::MainWindow window(*catalog_, choreo::test::fakeWorker(u"scenario"_s), settings, path);
        window.setQuiet(true);
        QVERIFY(window.openFile(path));
        auto* action = window.findChild<QAction*>(u"planAction"_s);
        QVERIFY(action && !action->isEnabled());
        window.setPlanning(planCommand());
        QVERIFY(action->isEnabled());
        action->trigger();
        auto* dialog = window.planDialog();
        QVERIFY(dialog && dialog->isVisible());
        dialog->setSettings(smallPlan());
        QSignalSpy done(dialog, &choreo::ui::PlanDialog::planFinished);
        dialog->findChild<QPushButton*>(u"startPlanButton"_s)->click();
        QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, kPlanTimeoutMs));
        QVERIFY(dialog->optionCount() > 0);
        QVERIFY(dialog->openOption(0));
        const auto& opened = window.document()->scenario();
        QVERIFY(opened.name.find(": ") != std::string::npos); // the option's name: "base: N x device (...)"
        QCOMPARE(opened.trainingPool()->device, std::string("h100-sxm"));
        QVERIFY(window.document()->filePath().isEmpty()); // new and unsaved
    }

private:
    std::optional<choreo::models::Catalog> catalog_;
};

QTEST_MAIN(TestPlanDialog)
#include "tst_plandialog.moc"
