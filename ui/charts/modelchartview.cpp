#include "ui/charts/modelchartview.h"

#include <QAbstractItemModel>
#include <QChart>
#include <QChartView>
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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    connect(model_, &QAbstractItemModel::modelReset, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::dataChanged, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::rowsInserted, this, &ModelChartView::scheduleRebuild);
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &ModelChartView::scheduleRebuild);
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

} // namespace choreo::ui
