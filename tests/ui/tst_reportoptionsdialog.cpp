// The report options dialog: which sections, which format, remembered between exports.
#include "ui/reports/reportinput.h"
#include "ui/reports/reportoptionsdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "tests/ui/cannedstep.h"
#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::ReportOptionsDialog;
using choreo::ui::ReportSection;
using choreo::ui::ReportSections;

class TestReportOptionsDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everythingApplicableByDefault();
    void togglingAndNothingSelected();
    void settingsRoundTrip();
    void unavailableSectionsKeepTheirStoredChoice();

private:
    choreo::ui::ReportInput input(bool withTimeline) const;
    QPushButton* ok(const ReportOptionsDialog& dialog) const;
    std::unique_ptr<QSettings> settings(const QString& name) const;

    std::optional<choreo::models::Catalog> catalog_;
    std::optional<choreo::models::Scenario> scenario_;
    QTemporaryDir dir_;
};

void TestReportOptionsDialog::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    scenario_ = choreo::test::loadDefaultScenario();
    QVERIFY(catalog_ && scenario_);
    QVERIFY(dir_.isValid());
}

choreo::ui::ReportInput TestReportOptionsDialog::input(bool withTimeline) const {
    choreo::ui::ReportInput in{*scenario_, {}, {}, &*catalog_, QDateTime(QDate(2026, 11, 30), QTime(12, 0))};
    if (withTimeline) {
        const auto step = choreo::test::cannedStepResult(4, 8);
        in.base.timeline = step.timeline;
        in.base.power = step.power;
    }
    choreo::ui::SweepOutcome point;
    point.devices = 64;
    point.state = choreo::ui::SweepOutcome::State::Succeeded;
    point.result = in.base;
    in.sweep.push_back(point);
    return in;
}

QPushButton* TestReportOptionsDialog::ok(const ReportOptionsDialog& dialog) const {
    return dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
}

// A settings file of its own per test, so that tests neither share state nor touch the user's.
std::unique_ptr<QSettings> TestReportOptionsDialog::settings(const QString& name) const {
    return std::make_unique<QSettings>(dir_.filePath(name + u".ini"_s), QSettings::IniFormat);
}

void TestReportOptionsDialog::everythingApplicableByDefault() {
    auto s = settings(u"default"_s);
    ReportOptionsDialog dialog(input(true), *s);
    // No calibration profile: that section is disabled, with the reason, and not selected.
    QCheckBox* calibration = dialog.sectionBox(ReportSection::Calibration);
    QVERIFY(!calibration->isEnabled());
    QVERIFY(calibration->text().contains(u"no calibration profile"_s));
    QCOMPARE(calibration->objectName(), u"section-calibration"_s);
    ReportSections expected = ReportSections::all();
    expected.set(ReportSection::Calibration, false);
    QCOMPARE(dialog.sections(), expected);
    QCOMPARE(dialog.format(), ReportOptionsDialog::Format::Pdf);
    QVERIFY(dialog.writeSweepCsv()); // as `choreo-sim report` does
    QVERIFY(ok(dialog)->isEnabled());
    // The picture in docs/desktop.md: CHOREO_REPORT_OPTIONS_PNG=docs/images/report-options.png.
    if (const QString png = qEnvironmentVariable("CHOREO_REPORT_OPTIONS_PNG"); !png.isEmpty()) {
        dialog.adjustSize();
        QVERIFY(dialog.grab().save(png, "PNG"));
    }

    // A result without a step timeline: the one-step section does not apply.
    ReportOptionsDialog older(input(false), *s);
    QVERIFY(!older.sectionBox(ReportSection::Timeline)->isEnabled());
    QVERIFY(older.sectionBox(ReportSection::Timeline)->text().contains(u"no step timeline"_s));
    QVERIFY(!older.sections().has(ReportSection::Timeline));
}

void TestReportOptionsDialog::togglingAndNothingSelected() {
    auto s = settings(u"toggle"_s);
    ReportOptionsDialog dialog(input(true), *s);
    dialog.sectionBox(ReportSection::Charts)->click();
    QVERIFY(!dialog.sections().has(ReportSection::Charts));
    QVERIFY(dialog.sections().has(ReportSection::Summary));
    for (ReportSection section : choreo::ui::kReportSections)
        dialog.sectionBox(section)->setChecked(false);
    QVERIFY(dialog.sections().isEmpty());
    QVERIFY(!ok(dialog)->isEnabled());
    // Accepting anyway (Enter on a disabled button does nothing; accept() guards too) neither closes nor
    // stores.
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(!s->contains(u"report/sections"_s));
    dialog.sectionBox(ReportSection::Sweep)->click();
    QVERIFY(ok(dialog)->isEnabled());
}

void TestReportOptionsDialog::settingsRoundTrip() {
    auto s = settings(u"roundtrip"_s);
    {
        ReportOptionsDialog dialog(input(true), *s);
        dialog.sectionBox(ReportSection::Charts)->click();
        dialog.sectionBox(ReportSection::Sources)->click();
        dialog.findChild<QRadioButton*>(u"formatHtml"_s)->click();
        dialog.findChild<QCheckBox*>(u"sweepCsv"_s)->click();
        ok(dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }
    ReportOptionsDialog again(input(true), *s);
    QVERIFY(!again.sections().has(ReportSection::Charts));
    QVERIFY(!again.sections().has(ReportSection::Sources));
    QVERIFY(again.sections().has(ReportSection::Summary));
    QVERIFY(again.sections().has(ReportSection::Sweep));
    QCOMPARE(again.format(), ReportOptionsDialog::Format::Html);
    QVERIFY(!again.writeSweepCsv());

    // Cancel stores nothing.
    again.sectionBox(ReportSection::Summary)->click();
    again.reject();
    ReportOptionsDialog third(input(true), *s);
    QVERIFY(third.sections().has(ReportSection::Summary));
}

void TestReportOptionsDialog::unavailableSectionsKeepTheirStoredChoice() {
    // Turned off on a result with a timeline, accepted on one without: still off afterwards, not reset.
    auto s = settings(u"unavailable"_s);
    {
        ReportOptionsDialog dialog(input(true), *s);
        dialog.sectionBox(ReportSection::Timeline)->click();
        dialog.accept();
    }
    {
        ReportOptionsDialog older(input(false), *s);
        older.accept();
    }
    ReportOptionsDialog dialog(input(true), *s);
    QVERIFY(!dialog.sections().has(ReportSection::Timeline));
    QVERIFY(!s->value(u"report/sections"_s).toStringList().contains(u"timeline"_s));
    // and the calibration section, never applicable here, keeps the default (on) for a calibrated run.
    QVERIFY(s->value(u"report/sections"_s).toStringList().contains(u"calibration"_s));
}

QTEST_MAIN(TestReportOptionsDialog)
#include "tst_reportoptionsdialog.moc"
