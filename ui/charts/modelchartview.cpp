#include "ui/charts/modelchartview.h"

#include "ui/charts/chartexport.h"

#include <QAbstractItemModel>
#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTimer>
#include <QVBoxLayout>

namespace choreo::ui {

ModelChartView::ModelChartView(const QAbstractItemModel* model, Builder build, QWidget* parent)
    : QWidget(parent)
    , model_(model)
    , build_(std::move(build))
    , view_(new QChartView(this))
    , rebuildTimer_(new QTimer(this)) {
    // A sweep updates several rows at once; build the chart once for all of them.
    rebuildTimer_->setSingleShot(true);
    rebuildTimer_->setInterval(0);
    connect(rebuildTimer_, &QTimer::timeout, this, &ModelChartView::rebuild);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setFrameShape(QFrame::NoFrame);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view_, &QWidget::customContextMenuRequested, this, &ModelChartView::showMenu);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    connect(model_, &QAbstractItemModel::modelReset, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::dataChanged, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::rowsInserted, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::columnsInserted, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::columnsRemoved, this, &ModelChartView::scheduleRebuild);
    rebuild();
}

QChart* ModelChartView::chart() const {
    return view_->chart();
}

void ModelChartView::scheduleRebuild() {
    rebuildTimer_->start();
}

void ModelChartView::rebuild() {
    QChart* old = view_->chart();
    view_->setChart(build_(*model_));
    delete old;
}

bool ModelChartView::exportPng(const QString& path, QString& error) const {
    return exportChartPng(*view_->chart(), path, error);
}

bool ModelChartView::exportSvg(const QString& path, QString& error) const {
    return exportChartSvg(*view_->chart(), path, error);
}

void ModelChartView::showMenu(const QPoint& position) {
    QMenu menu(this);
    menu.addAction(tr("Export as PNG…"), this, [this] { exportWithDialog(QStringLiteral("png")); });
    menu.addAction(tr("Export as SVG…"), this, [this] { exportWithDialog(QStringLiteral("svg")); });
    menu.exec(view_->mapToGlobal(position));
}

void ModelChartView::exportWithDialog(const QString& format) {
    const QString filter =
        format == QStringLiteral("svg") ? tr("SVG drawing (*.svg)") : tr("PNG image (*.png)");
    QString name = view_->chart()->title().isEmpty() ? tr("chart") : view_->chart()->title();
    // The title suggests the file name; drop what some file systems refuse (":" in "Scaling: ...").
    name.replace(QRegularExpression(QStringLiteral("[\\\\/:*?\"<>|]+")), QStringLiteral(" -"));
    QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), name + u'.' + format, filter);
    if (path.isEmpty())
        return;
    if (!path.endsWith(u'.' + format, Qt::CaseInsensitive))
        path += u'.' + format;
    QString error;
    const bool ok = format == QStringLiteral("svg") ? exportSvg(path, error) : exportPng(path, error);
    if (!ok)
        QMessageBox::warning(this, tr("Cannot export the chart"), error);
}

} // namespace choreo::ui
