#include "ui/pipeline/pipelineview.h"

#include "ui/document.h"
#include "ui/editids.h"
#include "ui/itemmodels/catalogdevicemodel.h"
#include "ui/itemmodels/formatting.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr int kMargin = 16;
constexpr int kGap = 120; // between pools: room for an arrow's label
constexpr int kPoolWidth = 230;
constexpr int kMinPoolWidth = 160;
constexpr int kHeader = 44;
constexpr int kChip = 30;
constexpr int kChipGap = 6;
constexpr int kBar = 20;
constexpr int kTop = 24;

QColor stageColour(StageKind kind) {
    switch (kind) {
    case StageKind::Data:
        return QColor(0x2a, 0x9d, 0x8f);
    case StageKind::Experts:
        return QColor(0x7b, 0x52, 0xab);
    case StageKind::Optimizer:
        return QColor(0xe7, 0x6f, 0x16);
    case StageKind::Embeddings:
        return QColor(0xb5, 0x3f, 0x6b);
    case StageKind::Eval:
        return QColor(0x55, 0x6b, 0x2f);
    case StageKind::Train:
        break;
    }
    return QColor(0x1f, 0x5f, 0xa8);
}

int poolHeight(const PipelinePool& pool) {
    const int stages = std::max<int>(1, static_cast<int>(pool.stages.size()));
    return kHeader + stages * (kChip + kChipGap) + kBar + 2 * kChipGap;
}

std::optional<QString> draggedDevice(const QMimeData* mime, const models::Catalog& catalog) {
    if (!mime || !mime->hasFormat(QString::fromLatin1(kDeviceMimeType)))
        return std::nullopt;
    const QString id = QString::fromUtf8(mime->data(QString::fromLatin1(kDeviceMimeType)));
    if (!catalog.find(id.toStdString()))
        return std::nullopt;
    return id;
}

} // namespace

PipelineCanvas::PipelineCanvas(Document* document, QWidget* parent)
    : QWidget(parent)
    , document_(document) {
    setObjectName(u"pipelineCanvas"_s);
    setAcceptDrops(true);
}

void PipelineCanvas::setDiagram(PipelineDiagram diagram) {
    diagram_ = std::move(diagram);
    updateGeometry();
    update();
}

QSize PipelineCanvas::minimumSizeHint() const {
    const int n = std::max<int>(1, static_cast<int>(diagram_.pools.size()));
    int height = 0;
    for (const auto& pool : diagram_.pools)
        height = std::max(height, poolHeight(pool));
    return {2 * kMargin + n * kMinPoolWidth + (n - 1) * kGap, kTop + height + kMargin};
}

QSize PipelineCanvas::sizeHint() const {
    const int n = std::max<int>(1, static_cast<int>(diagram_.pools.size()));
    return {2 * kMargin + n * kPoolWidth + (n - 1) * kGap, minimumSizeHint().height()};
}

std::vector<QRect> PipelineCanvas::poolRects() const {
    std::vector<QRect> rects;
    const int n = static_cast<int>(diagram_.pools.size());
    if (n == 0)
        return rects;
    const int boxWidth = std::clamp((width() - 2 * kMargin - (n - 1) * kGap) / n, kMinPoolWidth, kPoolWidth);
    const int used = n * boxWidth + (n - 1) * kGap;
    int x = std::max(kMargin, (width() - used) / 2);
    for (const auto& pool : diagram_.pools) {
        rects.emplace_back(x, kTop, boxWidth, poolHeight(pool));
        x += boxWidth + kGap;
    }
    return rects;
}

std::vector<PipelineCanvas::StageHit> PipelineCanvas::stageHits() const {
    std::vector<StageHit> hits;
    const auto rects = poolRects();
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const auto& stages = diagram_.pools[i].stages;
        for (std::size_t k = 0; k < stages.size(); ++k) {
            const QRect chip(rects[i].left() + 10,
                             rects[i].top() + kHeader + static_cast<int>(k) * (kChip + kChipGap),
                             rects[i].width() - 20, kChip);
            hits.push_back({chip, stages[k].kind, !stages[k].where.isEmpty()});
        }
    }
    return hits;
}

void PipelineCanvas::paintPool(QPainter& p, const PipelinePool& pool, const QRect& rect) const {
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(rect, 8, 8);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::Text));
    const QRect title(rect.left() + 10, rect.top() + 6, rect.width() - 20, 18);
    p.drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(pool.name, Qt::ElideRight, title.width()));
    p.setFont(font());
    const QRect device(rect.left() + 10, rect.top() + 24, rect.width() - 20, 16);
    p.drawText(device, Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(tr("%1 × %2").arg(pool.count).arg(pool.device), Qt::ElideRight,
                                          device.width()));
    // Its busy fraction in the latest result.
    const QRect bar(rect.left() + 10, rect.bottom() - kBar - kChipGap, rect.width() - 20, kBar);
    p.setPen(Qt::NoPen);
    p.setBrush(palette().color(QPalette::AlternateBase));
    p.drawRect(bar);
    QString busy = tr("not run yet");
    if (pool.utilisation) {
        p.setBrush(QColor(0x4c, 0x8b, 0xd6));
        p.drawRect(QRect(
            bar.topLeft(),
            QSize(static_cast<int>(bar.width() * std::clamp(*pool.utilisation, 0.0, 1.0)), bar.height())));
        busy = tr("busy %1").arg(formatPercent(*pool.utilisation));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawText(bar, Qt::AlignCenter, busy);
}

void PipelineCanvas::paintArrow(QPainter& p, const PipelineArrow& arrow,
                                const std::vector<QRect>& rects) const {
    const QRect& from = rects[static_cast<std::size_t>(arrow.from)];
    const QRect& to = rects[static_cast<std::size_t>(arrow.to)];
    const bool rightward = from.center().x() < to.center().x();
    const int y = std::min(from.top(), to.top()) + kHeader + arrow.row * (kChip + kChipGap) + kChip / 2;
    const QPoint start(rightward ? from.right() : from.left(), y);
    const QPoint end(rightward ? to.left() : to.right(), y);
    p.setPen(QPen(palette().color(QPalette::Text), 2));
    p.drawLine(start, end);
    const int dir = rightward ? -1 : 1;
    QPainterPath head;
    head.moveTo(end);
    head.lineTo(end + QPoint(dir * 10, -5));
    head.lineTo(end + QPoint(dir * 10, 5));
    head.closeSubpath();
    p.fillPath(head, palette().color(QPalette::Text));
    if (!arrow.label.isEmpty()) {
        const QRect label(std::min(start.x(), end.x()), y - 40, std::abs(end.x() - start.x()), 36);
        p.drawText(label, Qt::AlignHCenter | Qt::AlignBottom | Qt::TextWordWrap, arrow.label);
    }
}

void PipelineCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Window));
    const auto rects = poolRects();
    for (std::size_t i = 0; i < rects.size(); ++i)
        paintPool(p, diagram_.pools[i], rects[i]);
    for (const auto& arrow : diagram_.arrows)
        paintArrow(p, arrow, rects);
    for (const StageHit& hit : stageHits()) {
        bool bottleneck = false;
        for (const auto& pool : diagram_.pools)
            for (const auto& stage : pool.stages)
                bottleneck = bottleneck || (stage.kind == hit.kind && stage.bottleneck);
        p.setPen(bottleneck ? QPen(QColor(0xd6, 0x28, 0x28), 3) : Qt::NoPen);
        p.setBrush(stageColour(hit.kind));
        p.drawRoundedRect(hit.rect, 5, 5);
        p.setPen(Qt::white);
        QString text = stageName(hit.kind);
        if (hit.host)
            text += tr(" (host CPUs)");
        if (bottleneck)
            text += tr(" · bottleneck");
        p.drawText(hit.rect, Qt::AlignCenter,
                   p.fontMetrics().elidedText(text, Qt::ElideRight, hit.rect.width() - 8));
    }
}

bool PipelineCanvas::dropDevice(const QString& deviceId, QPoint at, QString& error) {
    const models::Device* device = document_->catalog().find(deviceId.toStdString());
    if (!device) {
        error = tr("%1 is not in the catalog").arg(deviceId);
        return false;
    }
    for (const StageHit& hit : stageHits()) {
        if (!hit.rect.contains(at))
            continue;
        auto changed = placeStageOnNewPool(document_->scenario(), hit.kind, *device, error);
        if (!changed)
            return false;
        document_->edit(std::move(*changed), NoMerge,
                        tr("Place the %1 stage on a new pool of %2")
                            .arg(stageName(hit.kind), QString::fromStdString(device->name)));
        return true;
    }
    error = tr("drop the device on a stage");
    return false;
}

void PipelineCanvas::dragEnterEvent(QDragEnterEvent* event) {
    if (draggedDevice(event->mimeData(), document_->catalog()))
        event->acceptProposedAction();
}

void PipelineCanvas::dragMoveEvent(QDragMoveEvent* event) {
    const QPoint at = event->position().toPoint();
    const auto hits = stageHits();
    const bool onStage =
        std::any_of(hits.begin(), hits.end(), [&](const StageHit& hit) { return hit.rect.contains(at); });
    if (onStage && draggedDevice(event->mimeData(), document_->catalog()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void PipelineCanvas::dropEvent(QDropEvent* event) {
    const auto device = draggedDevice(event->mimeData(), document_->catalog());
    QString error;
    if (device && dropDevice(*device, event->position().toPoint(), error))
        event->acceptProposedAction();
    else
        emit dropRefused(error);
}

PipelineView::PipelineView(Document* document, QWidget* parent)
    : QWidget(parent)
    , document_(document)
    , canvas_(new PipelineCanvas(document))
    , summary_(new QLabel)
    , stagesButton_(new QToolButton) {
    setObjectName(u"pipelineView"_s);
    summary_->setObjectName(u"pipelineSummary"_s);
    summary_->setWordWrap(true);
    stagesButton_->setObjectName(u"pipelineStagesButton"_s);
    stagesButton_->setText(tr("Stages"));
    stagesButton_->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(stagesButton_);
    for (StageKind kind : {StageKind::Data, StageKind::Experts, StageKind::Optimizer, StageKind::Embeddings,
                           StageKind::Eval}) {
        const QString name = stageName(kind);
        menu->addAction(tr("Add %1 stage").arg(name), this, [this, kind] {
            QString error;
            if (!addStage(kind, error))
                summary_->setText(error);
        });
        menu->addAction(tr("Remove %1 stage").arg(name), this, [this, kind] {
            QString error;
            if (!removeStage(kind, error))
                summary_->setText(error);
        });
    }
    stagesButton_->setMenu(menu);
    auto* scroll = new QScrollArea;
    scroll->setWidget(canvas_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(stagesButton_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(scroll, 1);
    connect(document_, &Document::scenarioChanged, this, &PipelineView::rebuild);
    connect(canvas_, &PipelineCanvas::dropRefused, summary_, &QLabel::setText);
    rebuild();
}

void PipelineView::setResult(std::optional<models::RunResult> result,
                             std::optional<models::Scenario> scenario) {
    result_ = std::move(result);
    resultScenario_ = std::move(scenario);
    rebuild();
}

bool PipelineView::addStage(StageKind kind, QString& error) {
    auto changed = ui::addStage(document_->scenario(), kind, error);
    if (!changed)
        return false;
    document_->edit(std::move(*changed), NoMerge, tr("Add the %1 stage").arg(stageName(kind)));
    return true;
}

bool PipelineView::removeStage(StageKind kind, QString& error) {
    auto changed = ui::removeStage(document_->scenario(), kind, error);
    if (!changed)
        return false;
    document_->edit(std::move(*changed), NoMerge, tr("Remove the %1 stage").arg(stageName(kind)));
    return true;
}

void PipelineView::rebuild() {
    // The run's scenario may differ in its calibration reference only (made absolute for the worker).
    const models::Scenario& shown = document_->scenario();
    const bool current = result_ && resultScenario_ && resultScenario_->cluster == shown.cluster &&
                         resultScenario_->workload == shown.workload && resultScenario_->costs == shown.costs;
    PipelineDiagram diagram = pipelineDiagram(document_->scenario(), current ? &*result_ : nullptr);
    if (current) {
        QStringList parts;
        if (!diagram.bottleneck.isEmpty())
            parts << tr("Bottleneck: %1").arg(diagram.bottleneck);
        if (!diagram.traffic.isEmpty())
            parts << tr("traffic between pools: %1").arg(diagram.traffic);
        summary_->setText(parts.join(u" · "_s));
    } else
        summary_->setText(tr("Run the scenario for busy fractions, rates and the bottleneck. Drag a device "
                             "from the palette onto a stage to give it a pool of its own."));
    canvas_->setDiagram(std::move(diagram));
}

} // namespace choreo::ui
