#include "ui/calibration/profileview.h"

#include "models/diagnostic.h"
#include "ui/charts/modelchartview.h"
#include "ui/charts/profilechart.h"
#include "ui/itemmodels/profilecomparisonmodel.h"
#include "ui/itemmodels/profilefiguremodel.h"
#include "ui/itemmodels/profilegemmmodel.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QTableView* table(QAbstractItemModel* model, const QString& name) {
    auto* view = new QTableView;
    view->setObjectName(name);
    view->setModel(model);
    view->verticalHeader()->hide();
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setWordWrap(false);
    view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < model->columnCount(); ++c)
        view->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    return view;
}

QWidget* titled(const QString& title, QWidget* content) {
    auto* box = new QGroupBox(title);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(content);
    return box;
}

} // namespace

ProfileView::ProfileView(const models::Catalog& catalog, QWidget* parent)
    : QWidget(parent)
    , catalog_(catalog)
    , gemm_(new ProfileGemmModel(this))
    , comparison_(new ProfileComparisonModel(this))
    , cpu_(new ProfileFigureModel(u"cpu."_s, this))
    , header_(new QLabel)
    , notes_(new QLabel) {
    setObjectName(u"profileView"_s);
    header_->setObjectName(u"profileHeader"_s);
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->setObjectName(u"profileNotes"_s);
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    gemmChart_ = new ModelChartView(gemm_, [](const QAbstractItemModel& m) {
        return createGemmEfficiencyChart(static_cast<const ProfileGemmModel&>(m),
                                         tr("Matrix multiply: efficiency against size"));
    });
    gemmChart_->setObjectName(u"gemmChart"_s);
    bandwidthChart_ = new ModelChartView(comparison_, [](const QAbstractItemModel& m) {
        return createSpecMeasuredChart(static_cast<const ProfileComparisonModel&>(m), u"TB/s"_s,
                                       tr("Memory bandwidth"));
    });
    bandwidthChart_->setObjectName(u"bandwidthChart"_s);
    powerChart_ = new ModelChartView(comparison_, [](const QAbstractItemModel& m) {
        return createSpecMeasuredChart(static_cast<const ProfileComparisonModel&>(m), u"W"_s,
                                       tr("Power per phase (spec sheet: idle and TDP)"));
    });
    powerChart_->setObjectName(u"powerChart"_s);
    comparisonTable_ = table(comparison_, u"comparisonTable"_s);
    cpuTable_ = table(cpu_, u"cpuTable"_s);

    auto* charts = new QWidget;
    auto* grid = new QGridLayout(charts);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(gemmChart_, 0, 0, 2, 1);
    grid->addWidget(bandwidthChart_, 0, 1);
    grid->addWidget(powerChart_, 1, 1);
    grid->setColumnStretch(0, 4);
    grid->setColumnStretch(1, 3);
    auto* tables = new QSplitter(Qt::Horizontal);
    tables->addWidget(titled(tr("Spec sheet against measured"), comparisonTable_));
    tables->addWidget(titled(tr("Host CPU"), cpuTable_));
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(charts);
    split->addWidget(tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header_);
    layout->addWidget(split, 1);
    layout->addWidget(notes_);
    header_->setText(tr("No profile open."));
}

bool ProfileView::openFile(const QString& path, QString& error) {
    models::Diagnostics errors;
    auto profile = models::loadProfileFile(path.toStdString(), errors);
    if (!profile) {
        error = tr("%1 is not a calibration profile:\n%2").arg(path, q(models::joinDiagnostics(errors)));
        return false;
    }
    setProfile(*profile);
    setWindowFilePath(path);
    return true;
}

void ProfileView::setProfile(const models::Profile& profile) {
    profile_ = profile;
    const models::Device* spec = profile.device.empty() ? nullptr : catalog_.find(profile.device);
    gemm_->setProfile(profile, spec);
    comparison_->setProfile(profile, spec);
    cpu_->setProfile(profile);

    const auto name = profile.identity.find("name");
    const QString measured = name != profile.identity.end() ? q(name->second) : tr("(unnamed device)");
    const QString kind = profile.kind == "gpu" ? tr("GPU") : tr("CPU only: no GPU was measured");
    const QString refines = spec ? tr("refines %1 (%2)").arg(q(spec->name), q(spec->id))
                                 : tr("refines no catalog device (set one with --device)");
    header_->setText(tr("<b>%1</b> · %2 · %3<br>%4, %5 mode, %6 · %7")
                         .arg(q(profile.name).toHtmlEscaped(), measured.toHtmlEscaped(), kind,
                              q(profile.date).toHtmlEscaped(), q(profile.mode).toHtmlEscaped(),
                              q(profile.tool).toHtmlEscaped(), refines.toHtmlEscaped()));
    QStringList notes;
    for (const auto& n : profile.notes)
        notes << q(n);
    notes_->setText(notes.isEmpty() ? QString() : tr("Notes: %1").arg(notes.join(u"; "_s)));
    notes_->setVisible(!notes.isEmpty());
    setWindowTitle(tr("Calibration profile %1").arg(q(profile.name)));
}

} // namespace choreo::ui
