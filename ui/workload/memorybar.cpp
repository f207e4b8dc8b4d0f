#include "ui/workload/memorybar.h"

#include "models/weightstreaming.h"
#include "ui/charts/chartstyle.h"
#include "ui/document.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

constexpr int kBarHeight = 16;
constexpr int kLegendHeight = 16;

struct Segment {
    QString name;
    QColor color;
    double models::MemoryBreakdown::*field;
};

const std::array<Segment, 5>& segments() {
    static const std::array<Segment, 5> s{{
        {QObject::tr("weights"), chartstyle::kMemory[0], &models::MemoryBreakdown::weights_GB},
        {QObject::tr("gradients"), chartstyle::kMemory[1], &models::MemoryBreakdown::gradients_GB},
        {QObject::tr("optimizer"), chartstyle::kMemory[2], &models::MemoryBreakdown::optimizer_GB},
        {QObject::tr("activations"), chartstyle::kMemory[3], &models::MemoryBreakdown::activations_GB},
        {QObject::tr("buffers"), chartstyle::kMemory[4], &models::MemoryBreakdown::buffers_GB},
    }};
    return s;
}

// peakMemory() divides by these; the form never lets them reach zero, but a file may.
bool computable(const models::Workload& w) {
    const auto& m = w.model;
    const auto& p = w.parallel;
    return m.layers > 0 && m.hidden > 0 && m.heads > 0 && m.kv_heads > 0 && m.ffn_hidden > 0 && m.vocab > 0 &&
           m.seq_len > 0 && w.micro_batch > 0 && w.global_batch > 0 && p.tp > 0 && p.pp > 0 && p.dp > 0 &&
           p.cp > 0 && p.vp > 0;
}

QString gb(double value) {
    return QString::number(value, 'f', value < 10 ? 1 : 0);
}

} // namespace

MemoryBar::MemoryBar(Document* document, QWidget* parent)
    : QWidget(parent)
    , document_(document) {
    setObjectName(u"memoryBar"_s);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    connect(document_, &Document::scenarioChanged, this, &MemoryBar::recompute);
    recompute();
}

QSize MemoryBar::sizeHint() const {
    return {360, kBarHeight + 2 * kLegendHeight + 8};
}

QSize MemoryBar::minimumSizeHint() const {
    return {200, kBarHeight + 2 * kLegendHeight + 8};
}

void MemoryBar::recompute() {
    const auto& s = document_->scenario();
    breakdown_.reset();
    capacity_GB_ = 0;
    const models::Pool* pool = s.trainingPool();
    const models::Device* device = pool ? document_->catalog().find(pool->device) : nullptr;
    if (!computable(s.workload)) {
        summary_ = tr("Memory per device: needs positive model and layout sizes");
    } else {
        breakdown_ = models::trainingMemory(s.workload, device);
        if (device)
            capacity_GB_ = device->memory_GB.value;
        const double total = breakdown_->total();
        QString line = device ? tr("Memory per device: %1 of %2 GB (stage %3)")
                                    .arg(gb(total), gb(capacity_GB_))
                                    .arg(breakdown_->stage)
                              : tr("Memory per device: %1 GB (stage %2); no device to compare with")
                                    .arg(gb(total))
                                    .arg(breakdown_->stage);
        if (device && total > capacity_GB_)
            line += tr(": does not fit");
        summary_ = line;
    }
    QStringList tip;
    if (breakdown_)
        for (const auto& seg : segments())
            tip << tr("%1: %2 GB").arg(seg.name, QString::number((*breakdown_).*seg.field, 'f', 2));
    setToolTip(tip.join(u'\n'));
    QWidget::update();
}

void MemoryBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF bar(0.5, 0.5, width() - 1.0, kBarHeight);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRect(bar);
    if (breakdown_) {
        const double total = breakdown_->total();
        // The scale holds both the capacity and the need, so an overflow shows past the capacity line.
        const double scale = std::max({total, capacity_GB_, 1e-9});
        double x = bar.left();
        for (const auto& seg : segments()) {
            const double w = bar.width() * ((*breakdown_).*seg.field) / scale;
            p.fillRect(QRectF(x, bar.top(), w, bar.height()), seg.color);
            x += w;
        }
        if (capacity_GB_ > 0) {
            const double cx = bar.left() + bar.width() * capacity_GB_ / scale;
            p.setPen(
                QPen(total > capacity_GB_ ? QColor(0xc0, 0x20, 0x20) : palette().color(QPalette::Text), 2));
            p.drawLine(QPointF(cx, bar.top() - 0.5), QPointF(cx, bar.bottom() + 0.5));
        }
    }
    // Legend, then the summary line.
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(font());
    double x = 0;
    const double y = kBarHeight + 4;
    for (const auto& seg : segments()) {
        p.fillRect(QRectF(x, y + 3, 9, 9), seg.color);
        x += 12;
        p.drawText(QPointF(x, y + fm.ascent()), seg.name);
        x += fm.horizontalAdvance(seg.name) + 10;
    }
    const bool over = breakdown_ && capacity_GB_ > 0 && breakdown_->total() > capacity_GB_;
    p.setPen(over ? QColor(0xa0, 0x18, 0x18) : palette().color(QPalette::Text));
    p.drawText(QPointF(0, y + kLegendHeight + fm.ascent()), summary_);
}

} // namespace choreo::ui
