#include "ui/workload/layoutsuggestdialog.h"

#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/layoutsuggestionmodel.h"
#include "ui/itemmodels/roles.h"
#include "ui/reports/tablecsv.h"
#include "ui/runs/sweeprunner.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// The scenario without the fields a suggestion changes: what must not change between search and apply.
models::Scenario withoutLayout(models::Scenario s) {
    s.workload.parallel = {};
    s.workload.micro_batch = 0;
    return s;
}

} // namespace

LayoutSuggestDialog::LayoutSuggestDialog(Document* document, WorkerCommand worker, QWidget* parent)
    : QDialog(parent)
    , document_(document)
    , model_(new LayoutSuggestionModel(this))
    , sorted_(new QSortFilterProxyModel(this))
    , runner_(new SweepRunner(std::move(worker), 0, this))
    , view_(new QTableView)
    , status_(new QLabel)
    , apply_(new QPushButton(tr("&Apply")))
    , again_(new QPushButton(tr("Search &again"))) {
    setObjectName(u"layoutSuggestDialog"_s);
    setWindowTitle(tr("Suggest a parallel layout"));
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(RankRole);
    sorted_->setDynamicSortFilter(true);
    sorted_->sort(0, Qt::AscendingOrder);
    view_->setObjectName(u"suggestionTable"_s);
    view_->setModel(sorted_);
    view_->verticalHeader()->hide();
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    addCsvExport(view_, tr("layouts"));
    status_->setObjectName(u"suggestStatus"_s);
    status_->setWordWrap(true);
    apply_->setObjectName(u"applyLayoutButton"_s);
    again_->setObjectName(u"searchAgainButton"_s);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(again_, QDialogButtonBox::ActionRole);
    buttons->addButton(apply_, QDialogButtonBox::ApplyRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(apply_, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = view_->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            apply(sorted_->mapToSource(rows.front()).row());
    });
    connect(again_, &QPushButton::clicked, this, &LayoutSuggestDialog::start);
    connect(view_, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { apply(sorted_->mapToSource(index).row()); });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &LayoutSuggestDialog::updateButtons);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(view_, 1);
    layout->addWidget(buttons);
    resize(820, 420);

    connect(runner_, &SweepRunner::pointStarted, this, [this](int index) { model_->setRunning(index); });
    connect(runner_, &SweepRunner::pointFinished, this, [this](int index) {
        const SweepOutcome& o = runner_->outcomes()[static_cast<std::size_t>(index)];
        if (o.result)
            model_->setResult(index, *o.result);
        else
            model_->setFailed(index, o.failure ? o.failure->message : tr("no result"));
    });
    connect(runner_, &SweepRunner::finished, this, [this] {
        searching_ = false;
        const auto& rows = model_->rows();
        int ok = 0;
        for (const auto& r : rows)
            ok += r.state == LayoutSuggestionModel::State::Succeeded;
        status_->setText(tr("%1 layouts fit in memory; the %2 best by estimate were simulated at analytical "
                            "fidelity (%3 succeeded). Best first; apply one with Apply or a double-click.")
                             .arg(fitting_)
                             .arg(rows.size())
                             .arg(ok));
        if (sorted_->rowCount() > 0)
            view_->selectRow(0);
        updateButtons();
        emit searchFinished();
    });
    connect(document_, &Document::scenarioChanged, this, &LayoutSuggestDialog::onScenarioChanged);
    updateButtons();
}

LayoutSuggestDialog::~LayoutSuggestDialog() {
    // The enumeration reads the catalog; it must end before the objects it reads may go.
    if (thread_) {
        thread_->disconnect(this);
        thread_->wait();
        delete thread_;
    }
}

bool LayoutSuggestDialog::isSearching() const {
    return searching_;
}

void LayoutSuggestDialog::start() {
    runner_->cancel();
    model_->clear();
    base_ = document_->runnableScenario(); // workers get the profile by absolute path
    fitting_ = 0;
    searching_ = true;
    const int generation = ++generation_;
    status_->setText(tr("Looking for layouts that fit…"));
    auto found = std::make_shared<std::vector<LayoutCandidate>>();
    QThread* thread = QThread::create([found, base = base_, catalog = &document_->catalog()] {
        *found = enumerateLayouts(base, *catalog);
    });
    // An earlier enumeration still running finishes on its own; its result is ignored (generation).
    if (thread_) {
        thread_->disconnect(this);
        QThread* old = thread_;
        connect(old, &QThread::finished, old, &QObject::deleteLater);
        if (old->isFinished())
            old->deleteLater();
    }
    thread_ = thread;
    connect(thread, &QThread::finished, this, [this, thread, found, generation] {
        if (thread_ == thread)
            thread_ = nullptr;
        thread->deleteLater();
        if (generation == generation_)
            onEnumerated(std::move(*found));
    });
    thread->start();
    updateButtons();
}

void LayoutSuggestDialog::onEnumerated(std::vector<LayoutCandidate> candidates) {
    fitting_ = static_cast<int>(candidates.size());
    if (candidates.size() > static_cast<std::size_t>(kSimulatedCandidates))
        candidates.resize(kSimulatedCandidates);
    if (candidates.empty()) {
        searching_ = false;
        status_->setText(
            tr("No layout of the training pool fits in memory with this model, batch and recomputation. "
               "Try more devices, a device with more memory, full recomputation or a smaller micro-batch."));
        updateButtons();
        emit searchFinished();
        return;
    }
    std::vector<models::SweepPoint> points;
    for (const auto& c : candidates)
        points.push_back({c.describe().toStdString(), c.parallel.devices(), withLayout(base_, c)});
    model_->setCandidates(std::move(candidates));
    status_->setText(tr("%1 layouts fit in memory; simulating the best %2 by estimate (analytical fidelity)…")
                         .arg(fitting_)
                         .arg(points.size()));
    runner_->start(std::move(points), u"analytical"_s);
}

bool LayoutSuggestDialog::isStale() const {
    return !(withoutLayout(base_) == withoutLayout(document_->runnableScenario()));
}

void LayoutSuggestDialog::onScenarioChanged() {
    if (model_->rowCount() > 0 && isStale())
        status_->setText(tr("The scenario changed since these layouts were found: search again."));
    updateButtons();
}

bool LayoutSuggestDialog::apply(int row) {
    if (row < 0 || row >= model_->rowCount() || isStale())
        return false;
    const LayoutCandidate& c = model_->rows()[static_cast<std::size_t>(row)].candidate;
    document_->edit(withLayout(document_->scenario(), c), NoMerge, tr("Apply layout %1").arg(c.describe()));
    return true;
}

void LayoutSuggestDialog::updateButtons() {
    apply_->setEnabled(!isStale() && view_->selectionModel()->hasSelection());
    again_->setEnabled(!searching_);
}

} // namespace choreo::ui
