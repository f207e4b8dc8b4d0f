#pragma once

#include <QString>
#include <QStringList>

#include <array>
#include <optional>
#include <string>

namespace choreo::ui {

struct ReportInput;

// The parts of a report a user can leave out, in the order the report shows them. The title block
// (report name, scenario, date) is always written.
enum class ReportSection {
    Summary,     // results and step time tables
    Memory,      // memory per device table
    Charts,      // step-time breakdown and scaling charts
    Timeline,    // one step: Gantt chart per pipeline stage and stacked power
    Scenario,    // the scenario as run
    Calibration, // spec sheet vs measured, when the run used a calibration profile
    Sources,     // assumptions and sources: catalog figures with their sources
    Sweep,       // the scaling sweep table
};

inline constexpr std::array kReportSections = {
    ReportSection::Summary,  ReportSection::Memory,      ReportSection::Charts,  ReportSection::Timeline,
    ReportSection::Scenario, ReportSection::Calibration, ReportSection::Sources, ReportSection::Sweep};

// The section's name on the command line and in settings ("summary", "sweep", ...).
QString reportSectionKey(ReportSection section);
// The section's name for people ("Step-time breakdown and scaling charts").
QString reportSectionTitle(ReportSection section);
// The section named `key`, if any.
std::optional<ReportSection> reportSectionFromKey(const QString& key);
// Why `section` has nothing to show for `input`; empty when it has.
QString reportSectionUnavailable(const ReportInput& input, ReportSection section);

// A set of sections; the default is every section (the whole report).
class ReportSections {
public:
    static ReportSections all();
    static ReportSections none();
    // The sections of a comma-separated list of keys ("summary,charts"); nullopt with `error` naming the
    // unknown key and listing the known ones, or saying that the list is empty.
    static std::optional<ReportSections> parse(const std::string& list, std::string& error);
    // The sections named in `keys`; unknown keys are skipped (settings written by another version).
    static ReportSections fromKeys(const QStringList& keys);

    [[nodiscard]] bool has(ReportSection section) const { return (bits_ & bit(section)) != 0; }
    void set(ReportSection section, bool on);
    [[nodiscard]] bool isEmpty() const { return bits_ == 0; }
    // Keys of the sections held, in report order.
    [[nodiscard]] QStringList keys() const;
    bool operator==(const ReportSections&) const = default;

private:
    static unsigned bit(ReportSection section) { return 1u << static_cast<unsigned>(section); }
    unsigned bits_ = (1u << kReportSections.size()) - 1;
};

} // namespace choreo::ui
