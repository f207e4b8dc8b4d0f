#include "ui/reports/calibrationsection.h"

#include "ui/itemmodels/profilecomparisonmodel.h"

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

report::Section calibrationReportSection(const ReportInput& in) {
    const QString title = QObject::tr("Spec sheet vs measured");
    const QString id = u"spec-vs-measured"_s;
    if (!in.profile)
        return {title, {}, false, id};
    const models::Device* spec = calibrationSpecDevice(in);
    ProfileComparisonModel model;
    model.setProfile(*in.profile, spec);
    report::Table table;
    constexpr double widths[] = {0.38, 0.12, 0.15, 0.12, 0.1, 0.13};
    for (int c = 0; c < ProfileComparisonModel::ColumnCount; ++c) {
        const bool number = c == ProfileComparisonModel::SpecColumn ||
                            c == ProfileComparisonModel::MeasuredColumn ||
                            c == ProfileComparisonModel::RatioColumn;
        table.columns.push_back({model.headerData(c, Qt::Horizontal).toString(), {}, widths[c], number});
    }
    for (int row = 0; row < model.rowCount(); ++row) {
        report::Row cells;
        for (int c = 0; c < ProfileComparisonModel::ColumnCount; ++c)
            cells.cells.emplace_back(model.index(row, c).data().toString());
        table.rows.push_back(std::move(cells));
    }
    table.whenEmpty = QObject::tr("The profile holds no figure the catalog has.");
    table.printFontPt = 8;
    QStringList notes;
    for (const auto& n : in.profile->notes)
        notes << q(n);
    const report::Note introNote{introduction(in, spec)};
    if (notes.isEmpty())
        return {title, {introNote, table}, false, id};
    const report::Note notesNote{QObject::tr("Notes of the calibration: %1").arg(notes.join(u"; "_s))};
    return {title, {introNote, table, notesNote}, false, id};
}

} // namespace choreo::ui
