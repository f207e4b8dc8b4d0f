#pragma once

#include "ui/reports/reportsections.h"

#include <QDialog>

#include <map>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QDialogButtonBox;
class QRadioButton;
class QSettings;
QT_END_NAMESPACE

namespace choreo::ui {

struct ReportInput;

// Asks what an exported report should hold before the file is chosen: one check box per section (those
// with nothing to show for this result disabled, with the reason), PDF or HTML, and whether to write the
// sweep CSV beside it. Starts from the choices last accepted (QSettings); accepting stores them. OK is
// disabled while no section is selected.
class ReportOptionsDialog : public QDialog {
    Q_OBJECT

public:
    enum class Format { Pdf, Html };

    ReportOptionsDialog(const ReportInput& input, QSettings& settings, QWidget* parent = nullptr);

    // The selected sections that apply to this result.
    [[nodiscard]] ReportSections sections() const;
    [[nodiscard]] Format format() const;
    [[nodiscard]] bool writeSweepCsv() const;
    // The check box of `section` (object name "section-KEY").
    [[nodiscard]] QCheckBox* sectionBox(ReportSection section) const;

    void accept() override;

private:
    void updateOk();

    QSettings& settings_;
    std::map<ReportSection, QCheckBox*> boxes_;
    QRadioButton* pdf_ = nullptr;
    QRadioButton* html_ = nullptr;
    QCheckBox* csv_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
};

} // namespace choreo::ui
