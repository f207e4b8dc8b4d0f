#include "ui/reports/calibrationsection.h"

#include "ui/itemmodels/profilecomparisonmodel.h"
#include "ui/reports/reportpainter.h"

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString introduction(const ReportInput& in, const models::Device* spec) {
    const auto& p = *in.profile;
    const auto name = p.identity.find("name");
    const QString measured = name != p.identity.end() ? q(name->second) : QObject::tr("an unnamed device");
    return QObject::tr(
               "This run used calibration profile %1 (%2, %3 mode, %4, measured on %5) instead of the "
               "catalog's spec sheet for %6. Fractions are of the device's spec-sheet peak; the last "
               "column is measured divided by spec.")
        .arg(q(p.name), p.kind == "gpu" ? QObject::tr("GPU") : QObject::tr("CPU only"), q(p.mode), q(p.date),
             measured,
             spec ? QObject::tr("%1 (%2)").arg(q(spec->name), q(spec->id)) : QObject::tr("no device"));
}

// The spec device the profile is compared with: the scenario's calibration.device, else the profile's.
const models::Device* calibrationSpecDevice(const ReportInput& in) {
    if (!in.profile || !in.catalog)
        return nullptr;
    const std::string id = in.scenario.calibration && in.scenario.calibration->device
                               ? *in.scenario.calibration->device
                               : in.profile->device;
    return id.empty() ? nullptr : in.catalog->find(id);
}

} // namespace

void writeCalibrationPage(ReportPainter& page, const ReportInput& in) {
    if (!in.profile)
        return;
    const models::Device* spec = calibrationSpecDevice(in);
    ProfileComparisonModel model;
    model.setProfile(*in.profile, spec);
    page.heading(QObject::tr("Spec sheet vs measured"));
    page.paragraph(introduction(in, spec), 8.5, QColor(0x40, 0x40, 0x40));
    ReportTable t;
    for (int c = 0; c < ProfileComparisonModel::ColumnCount; ++c)
        t.headers << model.headerData(c, Qt::Horizontal).toString();
    t.widths = {0.38, 0.12, 0.15, 0.12, 0.1, 0.13};
    t.alignRight = {false, true, false, true, false, true};
    t.fontPt = 8;
    for (int row = 0; row < model.rowCount(); ++row) {
        QStringList cells;
        for (int c = 0; c < ProfileComparisonModel::ColumnCount; ++c)
            cells << model.index(row, c).data().toString();
        t.rows.push_back(cells);
    }
    if (t.rows.empty())
        page.paragraph(QObject::tr("The profile holds no figure the catalog has."));
    else
        page.table(t);
    if (!in.profile->notes.empty()) {
        QStringList notes;
        for (const auto& n : in.profile->notes)
            notes << q(n);
        page.paragraph(QObject::tr("Notes of the calibration: %1").arg(notes.join(u"; "_s)), 8.5,
                       QColor(0x40, 0x40, 0x40));
    }
}

QString calibrationSectionHtml(const ReportInput& in) {
    if (!in.profile)
        return {};
    const models::Device* spec = calibrationSpecDevice(in);
    ProfileComparisonModel model;
    model.setProfile(*in.profile, spec);
    QString h = u"<h3 id=\"spec-vs-measured\">%1</h3>\n<p class=\"note\">%2</p>\n<table><tr>"_s.arg(
        QObject::tr("Spec sheet vs measured").toHtmlEscaped(), introduction(in, spec).toHtmlEscaped());
    for (int c = 0; c < ProfileComparisonModel::ColumnCount; ++c)
        h += u"<th>%1</th>"_s.arg(model.headerData(c, Qt::Horizontal).toString().toHtmlEscaped());
    h += u"</tr>\n"_s;
    for (int row = 0; row < model.rowCount(); ++row) {
        h += u"<tr>"_s;
        for (int c = 0; c < ProfileComparisonModel::ColumnCount; ++c) {
            const bool number = c == ProfileComparisonModel::SpecColumn ||
                                c == ProfileComparisonModel::MeasuredColumn ||
                                c == ProfileComparisonModel::RatioColumn;
            h += (number ? u"<td class=\"num\">%1</td>"_s : u"<td>%1</td>"_s)
                     .arg(model.index(row, c).data().toString().toHtmlEscaped());
        }
        h += u"</tr>\n"_s;
    }
    h += u"</table>\n"_s;
    for (const auto& n : in.profile->notes)
        h += u"<p class=\"note\">%1</p>\n"_s.arg(q(n).toHtmlEscaped());
    return h;
}

} // namespace choreo::ui
