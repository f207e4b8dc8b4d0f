#include "ui/runs/runqueuedock.h"

#include "models/sweep.h"
#include "ui/document.h"
#include "ui/itemmodels/roles.h"
#include "ui/itemmodels/runqueuemodel.h"
#include "ui/runs/runqueue.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QStyleOption>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Paints the progress column as a progress bar.
class ProgressDelegate final : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        const QVariant value = index.data(ValueRole);
        if (!value.isValid()) {
            QStyledItemDelegate::paint(painter, option, index);
            return;
        }
        QStyleOptionProgressBar bar;
        bar.rect = option.rect.adjusted(2, 3, -2, -3);
        bar.minimum = 0;
        bar.maximum = 1000;
        bar.progress = static_cast<int>(value.toDouble() * 1000);
        bar.text = index.data().toString();
        bar.textVisible = true;
        bar.state = option.state | QStyle::State_Horizontal;
        const QWidget* widget = option.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
    }
};

} // namespace

RunQueueDock::RunQueueDock(RunQueue* queue, Document* document, QWidget* parent)
    : QDockWidget(tr("Run queue"), parent)
    , queue_(queue)
    , document_(document)
    , model_(new RunQueueModel(queue, this))
    , table_(new QTableView)
    , fidelity_(new QComboBox)
    , summary_(new QLabel) {
    setObjectName(u"runQueueDock"_s);
    table_->setObjectName(u"runQueueTable"_s);
    table_->setModel(model_);
    table_->setItemDelegateForColumn(RunQueueModel::ProgressColumn, new ProgressDelegate(table_));
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(RunQueueModel::ResultColumn, QHeaderView::Stretch);
    table_->setColumnWidth(RunQueueModel::RunColumn, 220);
    table_->setColumnWidth(RunQueueModel::BatchColumn, 200);
    table_->setColumnWidth(RunQueueModel::ProgressColumn, 140);
    table_->setColumnWidth(RunQueueModel::CancelColumn, 70);
    table_->verticalHeader()->setDefaultSectionSize(22);
    // A click on "Cancel" cancels that run.
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (index.column() == RunQueueModel::CancelColumn)
            queue_->cancel(index.data(RunQueueModel::RunIdRole).toInt());
    });
    connect(model_, &QAbstractItemModel::rowsInserted, table_, [this] { table_->scrollToBottom(); });

    fidelity_->setObjectName(u"queueFidelityCombo"_s);
    fidelity_->addItem(tr("analytical"), u"analytical"_s);
    fidelity_->addItem(tr("flow"), u"flow"_s);
    fidelity_->addItem(tr("packet"), u"packet"_s);
    fidelity_->setCurrentIndex(0);
    fidelity_->setToolTip(tr("Fidelity of the sweeps queued from here"));

    auto* sweep = new QToolButton;
    sweep->setObjectName(u"queueSweepButton"_s);
    sweep->setText(tr("Sweep"));
    sweep->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(sweep);
    menu->addAction(tr("Device count (scaling)"), this, [this] { queueSweep(Sweep::DeviceCount); });
    menu->addAction(tr("Device type (every catalog device that fits)"), this,
                    [this] { queueSweep(Sweep::DeviceType); });
    menu->addAction(tr("Parallel layout"), this, [this] { queueSweep(Sweep::Layout); });
    sweep->setMenu(menu);
    auto* cancelAll = new QToolButton;
    cancelAll->setObjectName(u"queueCancelAllButton"_s);
    cancelAll->setText(tr("Cancel all"));
    connect(cancelAll, &QToolButton::clicked, this, [this] { queue_->cancelAll(); });
    auto* clear = new QToolButton;
    clear->setText(tr("Clear finished"));
    connect(clear, &QToolButton::clicked, this, [this] { queue_->removeFinished(); });

    auto* bar = new QHBoxLayout;
    bar->addWidget(sweep);
    bar->addWidget(fidelity_);
    bar->addWidget(cancelAll);
    bar->addWidget(clear);
    bar->addWidget(summary_, 1);
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 2, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(table_);
    setWidget(body);

    summary_->setObjectName(u"runQueueSummary"_s);
    // The counts change when a run starts or ends, not with its progress.
    connect(queue_, &RunQueue::runStarted, this, &RunQueueDock::updateSummary);
    connect(queue_, &RunQueue::runFinished, this, &RunQueueDock::updateSummary);
    connect(queue_, &RunQueue::runAdded, this, &RunQueueDock::updateSummary);
    connect(queue_, &RunQueue::runsRemoved, this, &RunQueueDock::updateSummary);
    updateSummary();
}

int RunQueueDock::queueSweep(Sweep kind) {
    // As every run the document starts: its profile reference made absolute for the workers.
    const models::Scenario base = document_->runnableScenario();
    std::vector<models::SweepPoint> points;
    QString batch;
    const QString name = QString::fromStdString(base.name);
    switch (kind) {
    case Sweep::DeviceCount:
        points = models::scalingSweep(base);
        batch = tr("Device count: %1").arg(name);
        break;
    case Sweep::DeviceType:
        points = models::deviceTypeSweep(base, document_->catalog());
        batch = tr("Device type: %1").arg(name);
        break;
    case Sweep::Layout:
        points = models::layoutSweep(base, document_->catalog());
        batch = tr("Layout: %1").arg(name);
        break;
    }
    const QString fidelity = fidelity_->currentData().toString();
    for (const auto& p : points)
        queue_->enqueue(p.scenario, QString::fromStdString(p.label), fidelity, batch);
    if (points.empty())
        summary_->setText(tr("Nothing to sweep: no variant of this scenario is valid."));
    return static_cast<int>(points.size());
}

void RunQueueDock::updateSummary() {
    int done = 0, cached = 0;
    for (int i = 0; i < queue_->count(); ++i) {
        done += queue_->at(i).isOver();
        cached += queue_->at(i).cached;
    }
    summary_->setText(tr("%1 running (at most %2 at once), %3 waiting, %4 done (%5 cached)")
                          .arg(queue_->runningCount())
                          .arg(queue_->maxParallel())
                          .arg(queue_->waitingCount())
                          .arg(done)
                          .arg(cached));
}

} // namespace choreo::ui
