#include "ui/reports/reportoptionsdialog.h"

#include "ui/reports/reportinput.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

const QString kSectionsKey = u"report/sections"_s;
const QString kFormatKey = u"report/format"_s;
const QString kSweepCsvKey = u"report/sweepCsv"_s;

} // namespace

ReportOptionsDialog::ReportOptionsDialog(const ReportInput& input, QSettings& settings, QWidget* parent)
    : QDialog(parent)
    , settings_(settings) {
    setWindowTitle(tr("Export report"));
    auto* layout = new QVBoxLayout(this);

    // Never stored: the whole report, as before this dialog existed.
    const ReportSections stored = settings_.contains(kSectionsKey)
                                      ? ReportSections::fromKeys(settings_.value(kSectionsKey).toStringList())
                                      : ReportSections::all();
    auto* sectionsBox = new QGroupBox(tr("Sections"), this);
    auto* sectionsLayout = new QVBoxLayout(sectionsBox);
    for (ReportSection s : kReportSections) {
        auto* box = new QCheckBox(reportSectionTitle(s), sectionsBox);
        box->setObjectName(u"section-"_s + reportSectionKey(s));
        const QString reason = reportSectionUnavailable(input, s);
        if (reason.isEmpty()) {
            box->setChecked(stored.has(s));
        } else {
            box->setEnabled(false);
            box->setText(tr("%1 (not available: %2)").arg(reportSectionTitle(s), reason));
            box->setToolTip(reason);
        }
        connect(box, &QCheckBox::toggled, this, &ReportOptionsDialog::updateOk);
        sectionsLayout->addWidget(box);
        boxes_[s] = box;
    }
    layout->addWidget(sectionsBox);

    auto* formatBox = new QGroupBox(tr("Format"), this);
    auto* formatLayout = new QHBoxLayout(formatBox);
    pdf_ = new QRadioButton(tr("PDF"), formatBox);
    pdf_->setObjectName(u"formatPdf"_s);
    html_ = new QRadioButton(tr("HTML (one self-contained file)"), formatBox);
    html_->setObjectName(u"formatHtml"_s);
    formatLayout->addWidget(pdf_);
    formatLayout->addWidget(html_);
    formatLayout->addStretch();
    (settings_.value(kFormatKey).toString() == u"html"_s ? html_ : pdf_)->setChecked(true);
    layout->addWidget(formatBox);

    csv_ = new QCheckBox(tr("Also write the sweep table as CSV beside the report"), this);
    csv_->setObjectName(u"sweepCsv"_s);
    csv_->setChecked(settings_.value(kSweepCsvKey, true).toBool());
    layout->addWidget(csv_);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Choose file…"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &ReportOptionsDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &ReportOptionsDialog::reject);
    layout->addWidget(buttons_);
    updateOk();
}

ReportSections ReportOptionsDialog::sections() const {
    ReportSections out = ReportSections::none();
    for (const auto& [section, box] : boxes_)
        out.set(section, box->isEnabled() && box->isChecked());
    return out;
}

ReportOptionsDialog::Format ReportOptionsDialog::format() const {
    return html_->isChecked() ? Format::Html : Format::Pdf;
}

bool ReportOptionsDialog::writeSweepCsv() const {
    return csv_->isChecked();
}

QCheckBox* ReportOptionsDialog::sectionBox(ReportSection section) const {
    return boxes_.at(section);
}

void ReportOptionsDialog::accept() {
    if (sections().isEmpty())
        return;
    // A section that does not apply to this result keeps the choice stored for it, for the next result.
    ReportSections stored = settings_.contains(kSectionsKey)
                                ? ReportSections::fromKeys(settings_.value(kSectionsKey).toStringList())
                                : ReportSections::all();
    for (const auto& [section, box] : boxes_)
        if (box->isEnabled())
            stored.set(section, box->isChecked());
    settings_.setValue(kSectionsKey, stored.keys());
    settings_.setValue(kFormatKey, format() == Format::Html ? u"html"_s : u"pdf"_s);
    settings_.setValue(kSweepCsvKey, csv_->isChecked());
    QDialog::accept();
}

void ReportOptionsDialog::updateOk() {
    const bool any = !sections().isEmpty();
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(any);
    buttons_->button(QDialogButtonBox::Ok)->setToolTip(any ? QString() : tr("Select at least one section."));
}

} // namespace choreo::ui
