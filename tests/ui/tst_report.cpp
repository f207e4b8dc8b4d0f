// The PDF report and the sweep CSV from canned results: no worker needed.
#include "models/sweep.h"
#include "ui/charts/breakdownchart.h"
#include "ui/itemmodels/formatting.h"
#include "ui/itemmodels/resultsummarymodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/sweepresultmodel.h"
#include "ui/reports/reportcommand.h"
#include "ui/reports/reportwriter.h"
#include "ui/reports/sweepcsv.h"
#include "ui/reports/tablecsv.h"

#include <QBarSet>
#include <QChart>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStackedBarSeries>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include "tests/fulldisk.h"
#include "tests/ui/cannedstep.h"
#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::SweepOutcome;

namespace {

choreo::models::RunResult cannedResult(std::int64_t devices, double tokensPerDevice) {
    choreo::models::RunResult r;
    r.scenario = "Llama-3 70B on 128 H100";
    r.device = "h100-sxm";
    r.devices = devices;
    r.fidelity = "flow";
    r.calibration = "none (catalog spec sheet)";
    r.tokens_per_s = tokensPerDevice * static_cast<double>(devices);
    r.step_time_s = 128.0 * 8192.0 / r.tokens_per_s;
    r.mfu = 0.41;
    r.achieved_tflops_per_device = 405.0;
    r.steps = 14305.0;
    r.time_to_train_s = r.steps * r.step_time_s;
    r.energy_kWh = 123456.0;
    r.average_power_kW = 120.0;
    r.it_power_kW = 92.3;
    r.cost_usd = 2.0e6;
    r.cost_hardware_usd = 2.0e6;
    r.cost_mode = "rent";
    r.memory = {8.9, 17.8, 35.6, 12.0, 3.0, 0};
    r.memory_per_device_GB = r.memory.total();
    r.breakdown = {r.step_time_s * 0.8, r.step_time_s * 0.15, r.step_time_s * 0.05};
    const auto step = choreo::test::cannedStepResult(8, 16);
    r.timeline = step.timeline;
    r.power = step.power;
    return r;
}

// Four points: three results with falling efficiency, one that did not fit in memory.
std::vector<SweepOutcome> cannedSweep() {
    std::vector<SweepOutcome> out;
    const std::int64_t devices[] = {32, 64, 128, 256};
    const double perDevice[] = {620.0, 600.0, 560.0, 0.0};
    for (int i = 0; i < 4; ++i) {
        SweepOutcome o;
        o.devices = devices[i];
        o.label = QString::number(devices[i]) + u" devices"_s;
        if (i == 0) {
            o.state = SweepOutcome::State::Failed;
            o.failure = choreo::ui::WorkerFailure{};
            o.failure->kind = choreo::ui::WorkerFailure::Kind::Reported;
            o.failure->message = u"memory: 97.3 GB per device needed, h100-sxm has 80 GB"_s;
        } else {
            o.state = SweepOutcome::State::Succeeded;
            o.result = cannedResult(devices[i], perDevice[i - 1]);
        }
        out.push_back(o);
    }
    return out;
}

// The summary table's value cell of the row `key` for `result`, in `role`; empty when there is no such row.
QString summaryCell(const choreo::models::RunResult& result, const QString& key, int role) {
    choreo::ui::ResultSummaryModel model;
    model.setResult(result);
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, 0).data(choreo::ui::KeyRole) == key)
            return model.index(row, choreo::ui::ResultSummaryModel::ValueColumn).data(role).toString();
    return QString();
}

// Page objects of a PDF (not the /Pages tree node).
int pageCount(const QByteArray& pdf) {
    int n = 0;
    auto it = QRegularExpression(u"/Type\\s*/Page(?!s)"_s).globalMatch(QString::fromLatin1(pdf));
    while (it.hasNext()) {
        it.next();
        ++n;
    }
    return n;
}

// Every content stream of the PDF, inflated (Qt writes them with FlateDecode).
QList<QByteArray> contentStreams(const QByteArray& pdf) {
    QList<QByteArray> out;
    qsizetype at = 0;
    while ((at = pdf.indexOf("stream\n", at)) >= 0) {
        const qsizetype begin = at + 7;
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (end < 0)
            break;
        const QByteArray dictionary = pdf.mid(std::max<qsizetype>(0, at - 200), 200);
        QByteArray data = pdf.mid(begin, end - begin);
        if (dictionary.contains("/FlateDecode")) {
            // qUncompress wants the expected size up front; an upper bound works.
            QByteArray framed(4, '\0');
            const quint32 bound = 64u * 1024u * 1024u;
            framed[0] = char((bound >> 24) & 0xff);
            framed[1] = char((bound >> 16) & 0xff);
            framed[2] = char((bound >> 8) & 0xff);
            framed[3] = char(bound & 0xff);
            data = qUncompress(framed + data);
        }
        out << data;
        at = end + 9; // past "endstream", which itself ends in "stream"
    }
    return out;
}

// How often a PDF path operator (" l" line-to, " c" curve-to, " re" rectangle) appears in `stream`.
int pathOperators(const QByteArray& stream) {
    int n = 0;
    for (const QByteArray& line : stream.split('\n'))
        if (line.endsWith(" l") || line.endsWith(" c") || line.endsWith(" re") || line.endsWith(" m"))
            ++n;
    return n;
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void pdfHasPagesAndVectorCharts();
    void failingPointsAreListed();
    void csvHasEveryPoint();
    void breakdownReachesAHybridStep();
    void csvPathNextToReport();
    void reportCommand_data();
    void reportCommand();
    void htmlReportIsSelfContained();
    void htmlReportCommand();
    void tableCsvAsShown();
    void specVersusMeasuredPage();
    void calibratedReportCommand();
    void pdfWithSomeSections_data();
    void pdfWithSomeSections();
    void htmlWithSomeSections();
    void sectionListParses_data();
    void sectionListParses();
    void reportCommandUnknownSection();
    void summaryNamesAssumedEfficiencies();
    void summaryGivesTheDataStagesParts();
    void servingReportShowsTheStream();
    void trainAndServeReportShowsBothCosts();
    void stagesAndFailuresAreReported();
    void networkRowComesFromTheFieldTable();
    void fullDiskKeepsTheEarlierReport();

private:
    choreo::ui::ReportInput input() const;

    std::optional<choreo::models::Catalog> catalog_;
    std::optional<choreo::models::Scenario> scenario_;
    QTemporaryDir dir_;
};

void TestReport::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    scenario_ = choreo::test::loadDefaultScenario();
    QVERIFY(catalog_.has_value());
    QVERIFY(scenario_.has_value());
    QVERIFY(dir_.isValid());
}

choreo::ui::ReportInput TestReport::input() const {
    return {*scenario_, cannedResult(128, 560.0), cannedSweep(), &*catalog_,
            QDateTime(QDate(2026, 11, 30), QTime(12, 0))};
}

void TestReport::fullDiskKeepsTheEarlierReport() {
    // The disk fills while a report is written over an earlier one: the writer fails and names the file,
    // and the earlier report is still whole (QSaveFile writes beside it and renames only on success).
    for (const bool pdf : {true, false}) {
        const QString path = dir_.filePath(pdf ? u"full.pdf"_s : u"full.html"_s);
        QString error;
        const auto write = [&] {
            return pdf ? choreo::ui::writeReportPdf(input(), path, error) > 0
                       : choreo::ui::writeReportHtml(input(), path, error);
        };
        QVERIFY2(write(), qPrintable(error));
        QFile before(path);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray earlier = before.readAll();
        before.close();
        bool written = true;
        {
            choreo::testing::FullDisk full(4096); // the report is tens of kilobytes
            if (!full.active())
                QSKIP("cannot limit the file size here");
            written = write();
        }
        QVERIFY(!written);
        QVERIFY2(error.contains(path), qPrintable(error));
        QFile after(path);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), earlier);
        const QString name = QFileInfo(path).fileName();
        QCOMPARE(QDir(dir_.path()).entryList({name + u"*"_s}, QDir::Files),
                 QStringList{name}); // no temporary
    }
}

void TestReport::pdfHasPagesAndVectorCharts() {
    const QString path = dir_.filePath(u"report.pdf"_s);
    QString error;
    const int pages = choreo::ui::writeReportPdf(input(), path, error);
    QVERIFY2(pages > 0, qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray pdf = file.readAll();
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
    // Summary, charts, one step, scenario with sources and sweep: at least four pages, and the count the
    // writer saw.
    QVERIFY2(pages >= 4, qPrintable(QString::number(pages)));
    QCOMPARE(pageCount(pdf), pages);
    // Without a timeline the step page says so instead of drawing empty charts: one page, no fewer.
    auto older = input();
    older.base.timeline = {};
    older.base.power = {};
    const QString olderPath = dir_.filePath(u"older.pdf"_s);
    QCOMPARE(choreo::ui::writeReportPdf(older, olderPath, error), pages);

    // Charts are vector drawing: no bitmap anywhere, and the chart page is full of paths.
    QVERIFY(!pdf.contains("/Subtype /Image"));
    const QList<QByteArray> streams = contentStreams(pdf);
    int mostPaths = 0;
    for (const QByteArray& s : streams)
        mostPaths = std::max(mostPaths, pathOperators(s));
    // A text-and-tables page draws a few dozen rules; two charts draw hundreds of path segments.
    QVERIFY2(mostPaths > 400, qPrintable(QString::number(mostPaths)));
}

void TestReport::failingPointsAreListed() {
    // A report with a failed point is as long as one without: the point is listed, not dropped.
    auto withFailure = input();
    auto allFine = input();
    allFine.sweep.erase(allFine.sweep.begin());
    QString error;
    const QString a = dir_.filePath(u"a.pdf"_s), b = dir_.filePath(u"b.pdf"_s);
    QVERIFY(choreo::ui::writeReportPdf(withFailure, a, error) > 0);
    QVERIFY(choreo::ui::writeReportPdf(allFine, b, error) > 0);
    choreo::ui::SweepResultModel model;
    model.setOutcomes(withFailure.sweep, 128);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.index(0, choreo::ui::SweepResultModel::StatusColumn).data().toString(), u"failed"_s);
    QVERIFY(
        model.index(0, choreo::ui::SweepResultModel::NoteColumn).data().toString().contains(u"97.3 GB"_s));
    // Efficiency is relative to the smallest successful point (64 devices), not to the failed one.
    QCOMPARE(model.scalingEfficiency(1).value(), 1.0);
    QVERIFY(qAbs(model.scalingEfficiency(3).value() - 560.0 / 620.0) < 1e-12);
    QVERIFY(!model.scalingEfficiency(0).has_value());
}

void TestReport::csvHasEveryPoint() {
    choreo::ui::SweepResultModel model;
    model.setOutcomes(cannedSweep(), 128);
    const QString csv = choreo::ui::sweepCsv(model);
    const QStringList lines = csv.split(u"\r\n"_s, Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines[0].startsWith(u"label,devices,status,step_time_s,tokens_per_s,scaling_efficiency,"_s));
    QVERIFY(lines[0].endsWith(u",note"_s));
    const QStringList header = lines[0].split(u',');
    // The failed point: its status and message, no numbers.
    QVERIFY(lines[1].startsWith(u"32 devices,32,failed,,,"_s));
    QVERIFY(lines[1].contains(u"97.3 GB per device needed"_s));
    // A message with a comma would be quoted; the successful rows parse back to the numbers given.
    for (int i = 2; i < 5; ++i) {
        const QStringList fields = lines[i].split(u',');
        QCOMPARE(fields.size(), header.size());
        QCOMPARE(fields[header.indexOf(u"status"_s)], u"ok"_s);
        const double tokens = fields[header.indexOf(u"tokens_per_s"_s)].toDouble();
        const double devices = fields[header.indexOf(u"devices"_s)].toDouble();
        const double perDevice[] = {620.0, 600.0, 560.0};
        QVERIFY(qAbs(tokens - perDevice[i - 2] * devices) < 1e-6 * tokens);
    }
    QCOMPARE(lines[4].split(u',')[header.indexOf(u"scaling_efficiency"_s)].toDouble(), 560.0 / 620.0);

    QString error;
    const QString path = dir_.filePath(u"sweep.csv"_s);
    QVERIFY2(choreo::ui::writeSweepCsv(model, path, error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), csv);
}

// The breakdown's bars stack to the step time: a run that waits for its data stage or pauses to evaluate
// shows those parts too (only then), in the chart and the sweep's columns.
void TestReport::breakdownReachesAHybridStep() {
    const auto segmentsOf = [](const choreo::ui::SweepResultModel& model) {
        std::unique_ptr<QChart> chart(choreo::ui::createStepBreakdownChart(model));
        QStringList names;
        QList<double> base;
        const auto* series = qobject_cast<QStackedBarSeries*>(chart->series().front());
        for (const QBarSet* set : series->barSets()) {
            names << set->label();
            base << set->at(2); // the 128-device point
        }
        return std::pair{names, base};
    };
    choreo::ui::SweepResultModel dense;
    dense.setOutcomes(cannedSweep(), 128);
    QCOMPARE(segmentsOf(dense).first,
             (QStringList{u"Compute"_s, u"Comm."_s, u"Bubble"_s})); // short: the chart is narrow
    auto sweep = cannedSweep();
    choreo::models::RunResult& r = *sweep[2].result;
    r.breakdown.data_wait_s = 0.5;
    r.breakdown.eval_s = 0.25;
    r.step_time_s += 0.75;
    choreo::ui::SweepResultModel hybrid;
    hybrid.setOutcomes(sweep, 128);
    const auto [names, seconds] = segmentsOf(hybrid);
    QCOMPARE(names, (QStringList{u"Compute"_s, u"Comm."_s, u"Bubble"_s, u"Data wait"_s, u"Eval"_s}));
    double stacked = 0.0;
    for (double part : seconds)
        stacked += part;
    QVERIFY(qAbs(stacked - r.step_time_s) < 1e-9 * r.step_time_s);
    QCOMPARE(hybrid.index(2, choreo::ui::SweepResultModel::DataWaitColumn).data(choreo::ui::KeyRole),
             QVariant(u"data_wait_s"_s));
}

void TestReport::csvPathNextToReport() {
    QCOMPARE(choreo::ui::csvPathForReport(u"/tmp/out/report.pdf"_s), u"/tmp/out/report.csv"_s);
    QCOMPARE(choreo::ui::csvPathForReport(u"/tmp/out/report.PDF"_s), u"/tmp/out/report.csv"_s);
    QCOMPARE(choreo::ui::csvPathForReport(u"/tmp/out/report"_s), u"/tmp/out/report.csv"_s);
}

void TestReport::reportCommand_data() {
    QTest::addColumn<QString>("scenarioName"); // the fake worker fails a scenario named "...fail..."
    QTest::addColumn<bool>("scenarioExists");
    QTest::addColumn<bool>("scenarioValid");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("ok") << u"Report test"_s << true << true << 0;
    QTest::newRow("base run fails") << u"Report test fail"_s << true << true << 3;
    QTest::newRow("invalid scenario") << u"Report test"_s << true << false << 2;
    QTest::newRow("unreadable scenario") << u"Report test"_s << false << true << 4;
}

void TestReport::reportCommand() {
    QFETCH(QString, scenarioName);
    QFETCH(bool, scenarioExists);
    QFETCH(bool, scenarioValid);
    QFETCH(int, exitCode);
    auto scenario = *scenario_;
    scenario.name = scenarioName.toStdString();
    if (!scenarioValid)
        scenario.workload.parallel.tp = 3; // divides neither the heads nor the node
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-');
    const std::string scenarioPath = dir_.filePath(tag + u".json"_s).toStdString();
    std::string error;
    if (scenarioExists)
        QVERIFY(choreo::models::saveScenarioFile(scenarioPath, scenario, error));
    const QString pdf = dir_.filePath(tag + u"-report.pdf"_s);

    char arg0[] = "choreo-sim";
    char* argv[] = {arg0, nullptr};
    // The fake worker answers `worker --assets DIR` like the real one, by the scenario's name.
    const int rc = choreo::ui::runReportCommand(1, argv, scenarioPath, pdf.toStdString(), CHOREO_FAKE_WORKER,
                                                choreo::test::assetsDir().string());
    QCOMPARE(rc, exitCode);
    QCOMPARE(QFile::exists(pdf), exitCode == 0);
    if (exitCode != 0)
        return;
    QFile csv(choreo::ui::csvPathForReport(pdf));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split(u"\r\n"_s, Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + int(choreo::models::scalingSweep(scenario).size()));
}

void TestReport::htmlReportIsSelfContained() {
    const auto in = input();
    const QString html = choreo::ui::reportHtml(in);
    QVERIFY(html.startsWith(u"<!DOCTYPE html>"_s));
    QVERIFY(html.trimmed().endsWith(u"</html>"_s));
    QVERIFY(html.contains(QString::fromStdString(in.scenario.name).toHtmlEscaped()));
    // Four charts inline as vector drawing (breakdown, scaling, step timeline, power), no external file and
    // no bitmap.
    QCOMPARE(html.count(u"<svg"_s), 4);
    QVERIFY(html.contains(u"One step: timeline and power"_s));
    QVERIFY(html.contains(u"One step per pipeline stage (flow)"_s));
    QVERIFY(html.contains(u"Power over one step"_s));
    QVERIFY(html.contains(u"per run"_s));
    QVERIFY(html.contains(u"no CPU pool"_s)); // the power notes
    // The communication the scenario overlaps (the example: the gradient reduction, the default), in the
    // scenario section's row.
    const auto overlapRow = [](const QString& text) {
        const auto at = text.indexOf(u"Communication overlap"_s);
        return at < 0 ? QString() : text.mid(at, 120);
    };
    QVERIFY2(overlapRow(html).contains(u"gradient reduction"_s), qPrintable(overlapRow(html)));
    auto overlapped = in;
    overlapped.scenario.workload.overlap.ep_comm = true;
    overlapped.scenario.workload.overlap.grad_reduce = false;
    const QString row = overlapRow(choreo::ui::reportHtml(overlapped));
    QVERIFY2(row.contains(u"overlap expert all-to-all"_s), qPrintable(row));
    QVERIFY2(row.contains(u"no overlap gradient reduction"_s), qPrintable(row));
    auto older = in;
    older.base.timeline = {};
    older.base.power = {};
    const QString olderHtml = choreo::ui::reportHtml(older);
    QCOMPARE(olderHtml.count(u"<svg"_s), 2);
    QVERIFY(olderHtml.contains(u"no step timeline"_s));
    QVERIFY(!html.contains(u"<img"_s));
    QVERIFY(!html.contains(u"<?xml"_s));
    // The sources of the catalog figures, as in the PDF.
    const auto* device = catalog_->find(in.scenario.cluster.pools.front().device);
    const auto* source = catalog_->source(device->memory_GB.source);
    QVERIFY(html.contains(QString::fromStdString(source->title).toHtmlEscaped()));
    // One sweep row per point, the failed one marked.
    QCOMPARE(html.count(u"<tr class=\"failed\">"_s), 1);
    const QString path = dir_.filePath(u"report.html"_s);
    QString error;
    QVERIFY2(choreo::ui::writeReportHtml(in, path, error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), html);
    QVERIFY(!choreo::ui::writeReportHtml(in, dir_.filePath(u"no/such/dir/r.html"_s), error));
    QVERIFY(!error.isEmpty());
}

void TestReport::htmlReportCommand() {
    const std::string scenarioPath = dir_.filePath(u"html-report.json"_s).toStdString();
    std::string error;
    QVERIFY(choreo::models::saveScenarioFile(scenarioPath, *scenario_, error));
    const QString html = dir_.filePath(u"cli-report.html"_s);
    char arg0[] = "choreo-sim";
    char* argv[] = {arg0, nullptr};
    QCOMPARE(choreo::ui::runReportCommand(1, argv, scenarioPath, html.toStdString(), CHOREO_FAKE_WORKER,
                                          choreo::test::assetsDir().string()),
             0);
    QFile file(html);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().startsWith("<!DOCTYPE html>"));
    QVERIFY(QFile::exists(dir_.filePath(u"cli-report.csv"_s)));
    QCOMPARE(choreo::ui::csvPathForReport(u"/tmp/out/report.html"_s), u"/tmp/out/report.csv"_s);
}

void TestReport::tableCsvAsShown() {
    QStandardItemModel model(2, 2);
    model.setHorizontalHeaderLabels({u"Name"_s, u"Cost"_s});
    model.setVerticalHeaderLabels({u"first"_s, u"second"_s});
    model.setData(model.index(0, 0), u"plain"_s);
    model.setData(model.index(0, 1), u"$1,234"_s);
    model.setData(model.index(1, 0), u"say \"hi\""_s);
    model.setData(model.index(1, 1), u"two\nlines"_s);
    QCOMPARE(choreo::ui::tableCsv(model),
             u"Name,Cost\r\nplain,\"$1,234\"\r\n\"say \"\"hi\"\"\",\"two\nlines\"\r\n"_s);
    QVERIFY(choreo::ui::tableCsv(model, true).startsWith(u",Name,Cost\r\nfirst,plain,"_s));
    QString error;
    const QString path = dir_.filePath(u"table.csv"_s);
    QVERIFY2(choreo::ui::writeTableCsv(model, path, error), qPrintable(error));
    QVERIFY(QFile::exists(path));
}

void TestReport::specVersusMeasuredPage() {
    // A run with the test fixture profile (synthetic numbers, labelled so in the file) gets one more
    // PDF page and an HTML section, with the spec sheet and the measured figure side by side.
    choreo::models::Diagnostics errors;
    const auto profile =
        choreo::models::loadProfileFile(CHOREO_TEST_DATA_DIR "/fixture-h100-synthetic.json", errors);
    QVERIFY2(profile, choreo::models::joinDiagnostics(errors).c_str());
    auto plain = input();
    auto calibrated = input();
    calibrated.scenario.calibration =
        choreo::models::CalibrationRef{"fixture-h100-synthetic.json", std::nullopt};
    calibrated.profile = profile;
    QString error;
    const int plainPages = choreo::ui::writeReportPdf(plain, dir_.filePath(u"plain.pdf"_s), error);
    const int calibratedPages =
        choreo::ui::writeReportPdf(calibrated, dir_.filePath(u"calibrated.pdf"_s), error);
    QVERIFY2(plainPages > 0 && calibratedPages > 0, qPrintable(error));
    QCOMPARE(calibratedPages, plainPages + 1);

    QVERIFY(!choreo::ui::reportHtml(plain).contains(u"spec-vs-measured"_s));
    const QString html = choreo::ui::reportHtml(calibrated);
    QVERIFY(html.contains(u"<h3 id=\"spec-vs-measured\">Spec sheet vs measured</h3>"_s));
    QVERIFY(html.contains(u"fixture-h100-synthetic"_s));
    // Memory bandwidth: the H100's spec sheet (3.35 TB/s) beside the fixture's 2.9, and their ratio.
    const auto* h100 = catalog_->find("h100-sxm");
    QVERIFY(h100);
    const QRegularExpression row(
        u"<tr><td>Memory bandwidth</td><td class=\"num\">([0-9.]+)</td><td>[^<]*</td>"
        "<td class=\"num\">2.9</td><td>TB/s</td><td class=\"num\">([0-9.]+)</td></tr>"_s);
    const auto match = row.match(html);
    QVERIFY2(match.hasMatch(), qPrintable(html.mid(html.indexOf(u"spec-vs-measured"_s), 1500)));
    QCOMPARE(match.captured(1).toDouble(), h100->memory_bandwidth_TBps.value);
    QVERIFY(qAbs(match.captured(2).toDouble() - 2.9 / h100->memory_bandwidth_TBps.value) < 0.005);
    // The fixture says it is one, and the report passes that on.
    QVERIFY(html.contains(u"TEST FIXTURE"_s));
}

void TestReport::calibratedReportCommand() {
    // `choreo-sim report` finds the profile next to the scenario (as `choreo-sim run` does) and adds the
    // spec-vs-measured section; a profile that is not there stops it before any simulation.
    const QString folder = dir_.filePath(u"calibrated-report"_s);
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(QFile::copy(QStringLiteral(CHOREO_TEST_DATA_DIR "/fixture-h100-synthetic.json"),
                        QDir(folder).filePath(u"fixture-h100-synthetic.json"_s)));
    auto scenario = *scenario_;
    scenario.calibration = choreo::models::CalibrationRef{"fixture-h100-synthetic", std::nullopt};
    const std::string scenarioPath = QDir(folder).filePath(u"scenario.json"_s).toStdString();
    std::string error;
    QVERIFY(choreo::models::saveScenarioFile(scenarioPath, scenario, error));
    char arg0[] = "choreo-sim";
    char* argv[] = {arg0, nullptr};
    const QString html = QDir(folder).filePath(u"report.html"_s);
    QCOMPARE(choreo::ui::runReportCommand(1, argv, scenarioPath, html.toStdString(), CHOREO_FAKE_WORKER,
                                          choreo::test::assetsDir().string()),
             0);
    QFile file(html);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(file.readAll()).contains(u"<h3 id=\"spec-vs-measured\">"_s));

    scenario.calibration->profile = "no-such-profile";
    QVERIFY(choreo::models::saveScenarioFile(scenarioPath, scenario, error));
    QCOMPARE(choreo::ui::runReportCommand(1, argv, scenarioPath, html.toStdString(), CHOREO_FAKE_WORKER,
                                          choreo::test::assetsDir().string()),
             2);
}

void TestReport::pdfWithSomeSections_data() {
    QTest::addColumn<QString>("sections");
    QTest::addColumn<int>("pages");
    // The title block is on every first page; each group (charts, one step, inputs, calibration) starts a
    // page unless only the title is on the current one.
    QTest::newRow("summary") << u"summary"_s << 1;
    QTest::newRow("summary and memory") << u"summary,memory"_s << 1;
    QTest::newRow("summary and sweep") << u"summary,sweep"_s << 2;
    QTest::newRow("charts") << u"charts"_s << 1;
    QTest::newRow("charts and one step") << u"charts,timeline"_s << 2;
    QTest::newRow("memory, charts, one step") << u"memory,charts,timeline"_s << 3;
    QTest::newRow("summary, one step, scenario") << u"summary,timeline,scenario"_s << 3;
}

void TestReport::pdfWithSomeSections() {
    QFETCH(QString, sections);
    QFETCH(int, pages);
    std::string parseError;
    const auto parsed = choreo::ui::ReportSections::parse(sections.toStdString(), parseError);
    QVERIFY2(parsed, parseError.c_str());
    auto in = input();
    in.sections = *parsed;
    const QString path = dir_.filePath(u"sections-"_s + sections + u".pdf"_s);
    QString error;
    QCOMPARE(choreo::ui::writeReportPdf(in, path, error), pages);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(pageCount(file.readAll()), pages);
    // The whole report is longer than any part of it.
    QVERIFY(choreo::ui::writeReportPdf(input(), dir_.filePath(u"sections-all.pdf"_s), error) > pages);
}

void TestReport::htmlWithSomeSections() {
    auto in = input();
    const QString all = choreo::ui::reportHtml(in);
    const QStringList headings = {u"<h3>Results</h3>"_s,
                                  u"<h3>Memory per device</h3>"_s,
                                  u"<h3>Step-time breakdown and scaling</h3>"_s,
                                  u"<h3>One step: timeline and power</h3>"_s,
                                  u"<h3>Scenario</h3>"_s,
                                  u"<h3>Assumptions and sources</h3>"_s,
                                  u"<h3>Scaling sweep</h3>"_s};
    for (const QString& h : headings)
        QVERIFY2(all.contains(h), qPrintable(h));
    // The default is the whole report: the same text as with every section named.
    in.sections = choreo::ui::ReportSections::fromKeys(choreo::ui::ReportSections::all().keys());
    QCOMPARE(choreo::ui::reportHtml(in), all);

    in.sections = choreo::ui::ReportSections::none();
    in.sections.set(choreo::ui::ReportSection::Memory, true);
    in.sections.set(choreo::ui::ReportSection::Sweep, true);
    const QString some = choreo::ui::reportHtml(in);
    QVERIFY(some.contains(u"<h3>Memory per device</h3>"_s));
    QVERIFY(some.contains(u"<h3>Scaling sweep</h3>"_s));
    QVERIFY(some.contains(QString::fromStdString(in.scenario.name).toHtmlEscaped())); // the title block
    for (const QString& h : {headings[0], headings[2], headings[3], headings[4], headings[5]})
        QVERIFY2(!some.contains(h), qPrintable(h));
    QCOMPARE(some.count(u"<svg"_s), 0);
    // Without the sources section the note under the title does not point to it.
    QVERIFY(!some.contains(u"Assumptions and sources"_s));
    QVERIFY(some.trimmed().endsWith(u"</html>"_s));

    // A calibration profile's section is left out when not selected.
    choreo::models::Diagnostics errors;
    in = input();
    in.scenario.calibration = choreo::models::CalibrationRef{"fixture-h100-synthetic.json", std::nullopt};
    in.profile = choreo::models::loadProfileFile(CHOREO_TEST_DATA_DIR "/fixture-h100-synthetic.json", errors);
    QVERIFY(in.profile);
    QVERIFY(choreo::ui::reportHtml(in).contains(u"spec-vs-measured"_s));
    in.sections.set(choreo::ui::ReportSection::Calibration, false);
    QVERIFY(!choreo::ui::reportHtml(in).contains(u"spec-vs-measured"_s));
}

void TestReport::sectionListParses_data() {
    QTest::addColumn<QString>("list");
    QTest::addColumn<QStringList>("keys");  // empty: an error
    QTest::addColumn<QString>("errorPart"); // part of the error message
    QTest::newRow("two") << u"sweep,summary"_s << QStringList{u"summary"_s, u"sweep"_s} << QString();
    QTest::newRow("spaces") << u" charts , memory"_s << QStringList{u"memory"_s, u"charts"_s} << QString();
    QTest::newRow("unknown") << u"summary,charst"_s << QStringList{}
                             << u"unknown section \"charst\" (known: summary, memory, charts, timeline, "
                                "scenario, calibration, sources, sweep)"_s;
    QTest::newRow("empty") << u","_s << QStringList{} << u"no section given"_s;
}

void TestReport::sectionListParses() {
    QFETCH(QString, list);
    QFETCH(QStringList, keys);
    QFETCH(QString, errorPart);
    std::string error;
    const auto parsed = choreo::ui::ReportSections::parse(list.toStdString(), error);
    QCOMPARE(parsed.has_value(), !keys.isEmpty());
    if (parsed)
        QCOMPARE(parsed->keys(), keys);
    else
        QVERIFY2(QString::fromStdString(error).contains(errorPart), error.c_str());
}

void TestReport::reportCommandUnknownSection() {
    // An unknown section stops the command before any simulation, and writes nothing.
    const std::string scenarioPath = dir_.filePath(u"sections-report.json"_s).toStdString();
    std::string error;
    QVERIFY(choreo::models::saveScenarioFile(scenarioPath, *scenario_, error));
    const QString pdf = dir_.filePath(u"sections-cli.pdf"_s);
    char arg0[] = "choreo-sim";
    char* argv[] = {arg0, nullptr};
    QCOMPARE(choreo::ui::runReportCommand(1, argv, scenarioPath, pdf.toStdString(), CHOREO_FAKE_WORKER,
                                          choreo::test::assetsDir().string(), "summary,bogus"),
             1);
    QVERIFY(!QFile::exists(pdf));
    // A known list gives a shorter report than the whole one.
    QCOMPARE(choreo::ui::runReportCommand(1, argv, scenarioPath, pdf.toStdString(), CHOREO_FAKE_WORKER,
                                          choreo::test::assetsDir().string(), "summary"),
             0);
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(pageCount(file.readAll()), 1);
}

// A run with a data stage gives its batch's parts and what sets its pace, in the table and the report; one
// held back by its loaders names them, not the CPUs' preprocessing.
void TestReport::summaryGivesTheDataStagesParts() {
    choreo::models::RunResult r = cannedResult(64, 10000.0);
    const auto dataRow = [](const choreo::models::RunResult& result, int role) {
        return summaryCell(result, u"data_stage"_s, role);
    };
    QVERIFY(dataRow(r, Qt::DisplayRole).isEmpty()); // no data stage, no row
    choreo::models::DataStageTimes d;
    d.read_s = 0.05;
    d.preprocess_s = 8.0;
    d.loader_bound = true;
    d.deliver_s = 0.0045;
    d.simulated = true;
    d.span_s = 8.0004;
    r.data_stage = d;
    QCOMPARE(dataRow(r, Qt::DisplayRole), u"8.000 s a batch, data loaders"_s);
    QCOMPARE(
        dataRow(r, Qt::ToolTipRole),
        u"Data stage: 8.000 s a batch (storage reads 0.05000 s, preprocessing 8.000 s, delivery 0.004500 s), "
        "paced by data loaders; flows beside the step"_s);
    choreo::ui::ResultSummaryModel model;
    model.setResult(r);
    bool inReport = false;
    for (const auto& [label, text] : model.rowsOf(choreo::ui::ResultSummaryModel::Group::Results))
        inReport = inReport || (label == u"Data stage"_s && text.contains(u"paced by data loaders"_s));
    QVERIFY(inReport);
    r.data_stage->loader_bound = false;
    QVERIFY(dataRow(r, Qt::DisplayRole).endsWith(u"preprocessing"_s));
}

// An uncalibrated run on a device whose efficiencies are assumptions says so in the summary's narrow cell;
// the whole sentence is in its tooltip and in the report's rows.
void TestReport::summaryNamesAssumedEfficiencies() {
    choreo::models::RunResult r = cannedResult(128, 300.0);
    r.calibration = "none (the catalog's figures, each with its source); gb200's GEMM and attention "
                    "efficiencies are assumed (CHOREO-DEFAULT), not measured";
    const auto cell = [](const choreo::models::RunResult& result, int role) {
        return summaryCell(result, u"calibration"_s, role);
    };
    QCOMPARE(cell(r, Qt::DisplayRole), u"none: efficiencies assumed"_s);
    QVERIFY(cell(r, Qt::ToolTipRole).endsWith(QString::fromStdString(r.calibration)));
    choreo::ui::ResultSummaryModel model;
    model.setResult(r);
    bool inReport = false;
    for (const auto& [label, text] : model.rowsOf(choreo::ui::ResultSummaryModel::Group::Results))
        inReport = inReport || text == QString::fromStdString(r.calibration);
    QVERIFY(inReport);
    r.calibration = "none (the catalog's figures, each with its source)";
    QCOMPARE(cell(r, Qt::DisplayRole), u"none: catalog figures"_s);
    r.calibration = "h100-test";
    QCOMPARE(cell(r, Qt::DisplayRole), u"h100-test"_s);
    // A bubble that is only the rounding residue of step time less its parts reads 0 s, not 0.000000000 s.
    r.breakdown.pipeline_bubble_s = 2.2e-16;
    choreo::ui::ResultSummaryModel residue;
    residue.setResult(r);
    for (int row = 0; row < residue.rowCount(); ++row)
        if (residue.index(row, 0).data(choreo::ui::KeyRole) == u"pipeline_bubble_s"_s)
            QVERIFY2(residue.index(row, choreo::ui::ResultSummaryModel::ValueColumn)
                         .data(Qt::DisplayRole)
                         .toString()
                         .startsWith(u"0 s"_s),
                     qPrintable(residue.index(row, choreo::ui::ResultSummaryModel::ValueColumn)
                                    .data(Qt::DisplayRole)
                                    .toString()));
    // A run that offloads activations shows its wait for the copies under the compute; one that does not,
    // no such row.
    // The key of the row after the row whose key is `key`; empty when there is none.
    const auto rowAfter = [](const choreo::models::RunResult& result, const QString& key) {
        choreo::ui::ResultSummaryModel m;
        m.setResult(result);
        for (int row = 0; row + 1 < m.rowCount(); ++row)
            if (m.index(row, 0).data(choreo::ui::KeyRole) == key)
                return m.index(row + 1, 0).data(choreo::ui::KeyRole).toString();
        return QString();
    };
    QCOMPARE(rowAfter(r, u"compute_s"_s), u"exposed_communication_s"_s);
    r.compute_split.offload_wait_s = 0.25;
    QCOMPARE(rowAfter(r, u"compute_s"_s), u"offload_wait_s"_s);
    // A run with a framework profile names it after the accuracy (its id in the narrow cell), one without
    // has no such row.
    const auto frameworkCell = [](const choreo::models::RunResult& result) {
        choreo::ui::ResultSummaryModel m;
        m.setResult(result);
        for (int row = 0; row < m.rowCount(); ++row)
            if (m.index(row, 0).data(choreo::ui::KeyRole) == u"framework"_s)
                return m.index(row, choreo::ui::ResultSummaryModel::ValueColumn)
                    .data(Qt::DisplayRole)
                    .toString();
        return QString();
    };
    QCOMPARE(frameworkCell(r), QString());
    r.framework = "nemo-2024 (NeMo 1.x): Master weights: remainders";
    QCOMPARE(frameworkCell(r), u"nemo-2024"_s);
    // A run on announced figures says so right after the accuracy, the whole list in its tooltip and the
    // report; a run on shipped parts has no such row.
    QVERIFY(rowAfter(r, u"accuracy"_s) != u"announced"_s);
    r.announced = "rubin's peak_tflops.bf16 was only announced; no shipped part was measured";
    QCOMPARE(rowAfter(r, u"accuracy"_s), u"announced"_s);
    choreo::ui::ResultSummaryModel announced;
    announced.setResult(r);
    const auto rows = announced.rowsOf(choreo::ui::ResultSummaryModel::Group::Results);
    QVERIFY(std::any_of(rows.begin(), rows.end(),
                        [&](const auto& row) { return row.second == QString::fromStdString(r.announced); }));
}

void TestReport::networkRowComesFromTheFieldTable() {
    // The network row is the field table's (models/fieldtable.cpp), as the form and --set read them; the
    // training device's links that the scenario leaves to the catalog have a row of their own.
    auto in = input();
    auto& net = in.scenario.cluster.network;
    net.nic_Gbps.reset();
    net.topology.nodes_per_leaf = 2;
    // The table row whose key is `key` (from its key cell to the row's end); empty when there is none.
    const auto rowOf = [](const QString& html, const QString& key) {
        const auto at = html.indexOf(u">"_s + key + u"<"_s);
        const auto end = at < 0 ? -1 : html.indexOf(u"</tr>"_s, at);
        return end < 0 ? QString() : html.mid(at, end - at);
    };
    const QString html = choreo::ui::reportHtml(in);
    const QString network = rowOf(html, u"Network"_s);
    QVERIFY2(network.contains(u"Topology fat-tree"_s), qPrintable(html.left(200)));
    QVERIFY2(network.contains(u"Nodes per leaf 2"_s), qPrintable(network));
    QVERIFY2(!network.contains(u"NIC per device"_s), qPrintable(network));
    const QString links = rowOf(html, u"Links (catalog)"_s);
    const auto* h100 = catalog_->find("h100-sxm");
    QVERIFY(h100 != nullptr);
    QVERIFY2(links.contains(u"NIC %1 Gb/s"_s.arg(h100->nic_Gbps.value)), qPrintable(links));
    QVERIFY2(links.contains(u"scale-up fabric "_s + QString::fromStdString(h100->scale_up->fabric)),
             qPrintable(links));
    // Set in the scenario, a figure leaves the catalog's row and joins the network's.
    net.nic_Gbps = 200.0;
    const QString set = choreo::ui::reportHtml(in);
    QVERIFY2(rowOf(set, u"Network"_s).contains(u"NIC per device 200 Gb/s"_s),
             qPrintable(rowOf(set, u"Network"_s)));
    const QString setLinks = rowOf(set, u"Links (catalog)"_s);
    QVERIFY2(!setLinks.isEmpty() && !setLinks.contains(u"NIC "_s), qPrintable(setLinks));
}

QTEST_MAIN(TestReport)
// A serving result: its own section (latency percentiles, the rate search, $ and J a token), no step charts.
void TestReport::servingReportShowsTheStream() {
    auto in = input();
    choreo::models::RunResult r;
    r.kind = "serve";
    r.scenario = "serving";
    r.devices = 8;
    r.pools.push_back({"serving", "h100-sxm", 8, {"serve"}, 1.0, 0.1, 1.0});
    choreo::models::ServingResult s;
    s.output_tokens_per_s = 2002;
    s.requests_per_s = 7.43;
    s.stream.ttft_s = {0.038, 0.0366, 0.0501, 0.0646};
    s.stream.tpot_s = {0.0168, 0.0168, 0.0175, 0.0181};
    s.search.searched = true;
    s.search.max_rate_rps = 47.1;
    s.search.verdict = "meets the SLOs up to 47.1 requests/s";
    s.usd_per_million_tokens = 4.43;
    s.joules_per_token = 1.99;
    s.engine = "vllm";
    r.serving = s;
    in.base = r;
    const QString html = choreo::ui::reportHtml(in);
    QVERIFY(html.contains(u"Serving"_s));
    QVERIFY(html.contains(u"p50 36.6, p90 50.1, p99 64.6 ms"_s));
    QVERIFY(html.contains(u"meets the SLOs up to 47.1 requests/s"_s));
    QVERIFY(html.contains(u"$4.43"_s));
    QVERIFY(!html.contains(u"Step-time breakdown and scaling"_s));
    QVERIFY(!html.contains(u"MFU"_s));
}

// Train here, serve there: a training result with serving beside it reports the serving and both costs.
void TestReport::trainAndServeReportShowsBothCosts() {
    auto in = input();
    choreo::models::ServingResult s;
    s.output_tokens_per_s = 2517;
    s.stream.ttft_s = {0.024, 0.024, 0.030, 0.039};
    s.usd_per_million_tokens = 0.874;
    s.horizon_months = 12;
    s.horizon_serving_usd = 69427;
    s.horizon_serving_MWh = 15.4;
    in.base.serving = s;
    const double training = in.base.cost_usd;
    const QString html = choreo::ui::reportHtml(in);
    QVERIFY(html.contains(u"MFU"_s)); // still a training report
    const int at = static_cast<int>(html.indexOf(u"Serving beside it"_s));
    QVERIFY2(at >= 0, qPrintable(html.left(2000)));
    QVERIFY(html.contains(u"2,517 output tokens/s, p99 TTFT 39.0 ms, $0.874 per million tokens"_s));
    QVERIFY(html.contains(u"serving over 12 months"_s));
    QVERIFY(html.contains(u"Training and serving"_s));
    QVERIFY(html.contains(choreo::ui::formatUsd(training + 69427)));
}

// The scenario section lists the workload's stages on their pools; the results, the run with failures.
void TestReport::stagesAndFailuresAreReported() {
    auto in = input();
    auto& w = in.scenario.workload;
    in.scenario.cluster.pools.push_back({"cpus", "epyc-9654", 4, 2});
    w.data = choreo::models::DataStage{};
    w.data->pool = "cpus";
    w.data->stage_index = 0;
    w.train_stage_index = 1;
    choreo::models::OffloadStage optimizer;
    optimizer.target = choreo::models::OffloadTarget::Optimizer;
    optimizer.stage_index = 2;
    w.offload.push_back(optimizer);
    choreo::models::WholeRun run;
    run.ideal_s = 10 * 86400.0;
    run.p10_s = 10.5 * 86400.0;
    run.p50_s = 11 * 86400.0;
    run.p90_s = 12 * 86400.0;
    run.interruptions_expected = 80;
    run.mtbf_s = 3 * 3600.0;
    run.note = "1000 Monte Carlo runs, seed 1";
    in.base.whole_run = run;
    in.base.time_to_train_s = run.p50_s;
    const QString html = choreo::ui::reportHtml(in);
    QVERIFY2(html.contains(u"data on cpus, train on gpus, offload optimizer on the host CPUs of gpus"_s),
             qPrintable(html.left(4000)));
    QVERIFY(html.contains(u"median with failures; ideal 10.0 days"_s));
    QVERIFY(html.contains(u"10.5 to 12.0 days"_s));
    QVERIFY(html.contains(u"goodput"_s));
}

#include "tst_report.moc"
