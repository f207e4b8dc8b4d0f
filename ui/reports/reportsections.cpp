#include "ui/reports/reportsections.h"

#include "ui/reports/reportinput.h"

#include <QObject>

#include <array>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Each section's key (command line, settings) and title (dialog), in kReportSections order.
struct SectionName {
    ReportSection section;
    const char16_t* key;
    const char* title;
};

constexpr std::array<SectionName, kReportSections.size()> kSectionNames = {{
    {ReportSection::Summary, u"summary", QT_TRANSLATE_NOOP("QObject", "Summary: results and step time")},
    {ReportSection::Memory, u"memory", QT_TRANSLATE_NOOP("QObject", "Memory per device")},
    {ReportSection::Charts, u"charts",
     QT_TRANSLATE_NOOP("QObject", "Step-time breakdown and scaling charts")},
    {ReportSection::Timeline, u"timeline", QT_TRANSLATE_NOOP("QObject", "One step: timeline and power")},
    {ReportSection::Scenario, u"scenario", QT_TRANSLATE_NOOP("QObject", "Scenario")},
    {ReportSection::Calibration, u"calibration", QT_TRANSLATE_NOOP("QObject", "Spec sheet vs measured")},
    {ReportSection::Sources, u"sources", QT_TRANSLATE_NOOP("QObject", "Assumptions and sources")},
    {ReportSection::Sweep, u"sweep", QT_TRANSLATE_NOOP("QObject", "Scaling sweep table")},
}};

constexpr bool namesFollowSections() {
    for (std::size_t i = 0; i < kSectionNames.size(); ++i)
        if (kSectionNames[i].section != kReportSections[i] ||
            static_cast<std::size_t>(kReportSections[i]) != i)
            return false;
    return true;
}
static_assert(namesFollowSections(), "kSectionNames must list every section in enum order");

const SectionName& nameOf(ReportSection section) {
    return kSectionNames[static_cast<std::size_t>(section)];
}

} // namespace

QString reportSectionKey(ReportSection section) {
    return QString::fromUtf16(nameOf(section).key);
}

QString reportSectionTitle(ReportSection section) {
    return QObject::tr(nameOf(section).title);
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
