#include "ui/cluster/topologypanel.h"

#include "ui/cluster/topologyview.h"
#include "ui/document.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {
constexpr int kDebounceMs = 250;
}

TopologyPanel::TopologyPanel(Document* document, QWidget* parent)
    : QWidget(parent)
    , document_(document)
    , view_(new TopologyView(document->catalog()))
    , summary_(new QLabel)
    , debounce_(new QTimer(this)) {
    setObjectName(u"topologyPanel"_s);
    summary_->setObjectName(u"topologySummary"_s);
    summary_->setWordWrap(true);
    auto button = [this](const QString& text, const QString& tip, auto slot) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        connect(b, &QToolButton::clicked, view_, slot);
        return b;
    };
    auto* bar = new QHBoxLayout;
    bar->addWidget(
        button(u"+"_s, tr("Zoom in: groups open once their contents are readable"), &TopologyView::zoomIn));
    bar->addWidget(button(u"−"_s, tr("Zoom out"), &TopologyView::zoomOut));
    bar->addWidget(button(tr("Fit"), tr("Show the whole network"), &TopologyView::fit));
    bar->addWidget(summary_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);
    connect(view_, &TopologyView::summaryChanged, summary_, &QLabel::setText);

    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &TopologyPanel::updateNow);
    connect(document_, &Document::scenarioChanged, debounce_, qOverload<>(&QTimer::start));
    updateNow();
}

void TopologyPanel::updateNow() {
    debounce_->stop();
    const auto& s = document_->scenario();
    // Workload edits other than the training pool leave the network as it is.
    if (shown_ && *shown_ == s.cluster && shownPool_ == s.workload.pool)
        return;
    shown_ = s.cluster;
    shownPool_ = s.workload.pool;
    view_->setScenario(s);
}

} // namespace choreo::ui
