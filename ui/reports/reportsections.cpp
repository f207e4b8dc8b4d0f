#include "ui/reports/reportsections.h"

#include "ui/reports/reportinput.h"

#include <QObject>

using namespace Qt::StringLiterals;

namespace choreo::ui {

QString reportSectionKey(ReportSection section) {
    switch (section) {
    case ReportSection::Summary:
        return u"summary"_s;
    case ReportSection::Memory:
        return u"memory"_s;
    case ReportSection::Charts:
        return u"charts"_s;
    case ReportSection::Timeline:
        return u"timeline"_s;
    case ReportSection::Scenario:
        return u"scenario"_s;
    case ReportSection::Calibration:
        return u"calibration"_s;
    case ReportSection::Sources:
        return u"sources"_s;
    case ReportSection::Sweep:
        return u"sweep"_s;
    }
    return {};
}

QString reportSectionTitle(ReportSection section) {
    switch (section) {
    case ReportSection::Summary:
        return QObject::tr("Summary: results and step time");
    case ReportSection::Memory:
        return QObject::tr("Memory per device");
    case ReportSection::Charts:
        return QObject::tr("Step-time breakdown and scaling charts");
    case ReportSection::Timeline:
        return QObject::tr("One step: timeline and power");
    case ReportSection::Scenario:
        return QObject::tr("Scenario");
    case ReportSection::Calibration:
        return QObject::tr("Spec sheet vs measured");
    case ReportSection::Sources:
        return QObject::tr("Assumptions and sources");
    case ReportSection::Sweep:
        return QObject::tr("Scaling sweep table");
    }
    return {};
}

std::optional<ReportSection> reportSectionFromKey(const QString& key) {
    for (ReportSection s : kReportSections)
        if (reportSectionKey(s) == key)
            return s;
    return std::nullopt;
}

QString reportSectionUnavailable(const ReportInput& input, ReportSection section) {
    switch (section) {
    case ReportSection::Timeline:
        if (input.base.timeline.intervalCount() == 0)
            return QObject::tr("this result has no step timeline (it was written by an older version)");
        break;
    case ReportSection::Calibration:
        if (!input.profile)
            return QObject::tr("the run used no calibration profile");
        break;
    case ReportSection::Charts:
    case ReportSection::Sweep:
        if (input.sweep.empty())
            return QObject::tr("the scaling sweep has no points");
        break;
    default:
        break;
    }
    return {};
}

ReportSections ReportSections::all() {
    return {};
}

ReportSections ReportSections::none() {
    ReportSections s;
    s.bits_ = 0;
    return s;
}

void ReportSections::set(ReportSection section, bool on) {
    bits_ = on ? (bits_ | bit(section)) : (bits_ & ~bit(section));
}

QStringList ReportSections::keys() const {
    QStringList out;
    for (ReportSection s : kReportSections)
        if (has(s))
            out << reportSectionKey(s);
    return out;
}

ReportSections ReportSections::fromKeys(const QStringList& keys) {
    ReportSections out = none();
    for (const QString& key : keys)
        if (const auto s = reportSectionFromKey(key))
            out.set(*s, true);
    return out;
}

std::optional<ReportSections> ReportSections::parse(const std::string& list, std::string& error) {
    const auto known = all().keys().join(u", "_s).toStdString();
    ReportSections out = none();
    for (const QString& part : QString::fromStdString(list).split(u',')) {
        const QString key = part.trimmed();
        if (key.isEmpty())
            continue;
        const auto s = reportSectionFromKey(key);
        if (!s) {
            error = "unknown section \"" + key.toStdString() + "\" (known: " + known + ")";
            return std::nullopt;
        }
        out.set(*s, true);
    }
    if (out.isEmpty()) {
        error = "no section given (known: " + known + ")";
        return std::nullopt;
    }
    return out;
}

} // namespace choreo::ui
