#include "ui/cluster/topologyview.h"

#include "models/resolved.h"

#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

// Scene units of one device and one switch box, and the gaps between boxes.
constexpr double kDeviceW = 20, kDeviceH = 14, kSwitchW = 30, kSwitchH = 14;
constexpr double kGap = 6, kPad = 8, kHeader = 20;
// A group opens when its sub-groups would be at least this wide on screen, and its devices and switches
// at least kMinVertexPx: readable, and few enough to draw.
constexpr double kMinBoxPx = 48, kMinVertexPx = 10;
constexpr double kMinScale = 0.002, kMaxScale = 8.0;
// Most group boxes, devices and switches drawn at once (links come on top, a few per vertex).
constexpr std::size_t kMaxShown = 600;
// Bundles are labelled with their bandwidth while there are at most this many on screen.
constexpr int kMaxLabelledLinks = 48;
// ... and only where the line between the two boxes is at least this long on screen.
constexpr double kMinLabelledLinkPx = 90;
constexpr double kFontPx = 11;

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString rate(double Bps) {
    const double GBps = Bps / 1e9;
    if (GBps >= 1000)
        return u"%1 TB/s"_s.arg(GBps / 1000, 0, 'g', 4);
    return u"%1 GB/s"_s.arg(GBps, 0, 'g', 4);
}

bool isSwitch(models::VertexKind kind) {
    return kind != models::VertexKind::Device;
}

// The edges between the same two things on screen (vertices, or closed groups): drawn as one line.
struct Bundle {
    std::int64_t links = 0;
    double total_Bps = 0, min_Bps = 0, max_Bps = 0, latency_s = 0;
    bool scaleUp = false;
    bool stream = false; // to a model store (models::addModelStores)
};

// Model stores and the links to them.
const QColor kStoreColour(0x6e, 0x4a, 0x8e);

// Green for scale-up, purple for streaming, blue for scale-out; thicker for more bandwidth, unless there
// are so many lines (`crowded`) that thickness would hide them.
QPen bundlePen(const Bundle& bundle, bool crowded) {
    QColor colour = bundle.stream    ? kStoreColour
                    : bundle.scaleUp ? QColor(0x3f, 0x7d, 0x3a)
                                     : QColor(0x4a, 0x6f, 0xa5);
    colour.setAlpha(170);
    QPen pen(colour);
    pen.setCosmetic(true);
    pen.setWidthF(
        crowded ? 0.6 : std::clamp(1.0 + std::log10(std::max(bundle.total_Bps / 1e9, 1.0)) * 0.8, 1.0, 5.0));
    return pen;
}

// "leaf 0 – spine 1\n1 scale-out link, 50 GB/s each way, 1 µs" and the like.
QString bundleTip(const Bundle& bundle, const QString& ends) {
    if (bundle.links == 1) {
        const QString kind = bundle.stream    ? TopologyView::tr("streaming")
                             : bundle.scaleUp ? TopologyView::tr("scale-up")
                                              : TopologyView::tr("scale-out");
        return TopologyView::tr("%1\n%2 link, %3 each way, %4 µs")
            .arg(ends, kind, rate(bundle.total_Bps))
            .arg(bundle.latency_s * 1e6, 0, 'g', 3);
    }
    if (bundle.min_Bps == bundle.max_Bps)
        return TopologyView::tr("%1\n%2 links × %3 = %4 each way")
            .arg(ends)
            .arg(bundle.links)
            .arg(rate(bundle.min_Bps), rate(bundle.total_Bps));
    return TopologyView::tr("%1\n%2 links, %3 to %4, %5 each way in all")
        .arg(ends)
        .arg(bundle.links)
        .arg(rate(bundle.min_Bps), rate(bundle.max_Bps), rate(bundle.total_Bps));
}

// A bundle's label on its line.
QString bundleLabel(const Bundle& bundle) {
    if (bundle.links == 1)
        return rate(bundle.total_Bps);
    if (bundle.min_Bps == bundle.max_Bps)
        return TopologyView::tr("%1 × %2").arg(bundle.links).arg(rate(bundle.min_Bps));
    return TopologyView::tr("%1 links, %2").arg(bundle.links).arg(rate(bundle.total_Bps));
}

// A model store's box text (models::addModelStores): MemoryX, a SwarmX node, a node's streaming memory.
QString storeShortName(models::VertexKind kind) {
    switch (kind) {
    case models::VertexKind::MemoryX:
        return u"MemX"_s;
    case models::VertexKind::SwarmX:
        return u"SwX"_s;
    default:
        return u"SM"_s;
    }
}

QString storeTip(models::VertexKind kind, const QString& name, std::int64_t links) {
    switch (kind) {
    case models::VertexKind::MemoryX:
        return QObject::tr("%1: holds the weights and optimizer state, streams the weights out and "
                           "updates them with the gradients that come back")
            .arg(name);
    case models::VertexKind::SwarmX:
        return QObject::tr("%1: broadcasts the weights down the tree and sums the gradients coming up "
                           "(%2 links)")
            .arg(name)
            .arg(links);
    default:
        return QObject::tr("%1: holds the optimizer state of its %2 devices, read and written at each "
                           "optimizer step")
            .arg(name)
            .arg(links);
    }
}

} // namespace

// A box with a few lines of text, drawn at a constant on-screen font size whatever the zoom.
class BoxItem final : public QGraphicsItem {
public:
    BoxItem(const QRectF& rect, QColor fill, QColor border, QStringList lines, bool frame)
        : rect_(rect)
        , fill_(std::move(fill))
        , border_(std::move(border))
        , lines_(std::move(lines))
        , frame_(frame) {}

    QRectF boundingRect() const override {
        // A narrow box's text may spill to the sides (switch tiers beside wide pods).
        return overflow_ ? rect_.adjusted(-rect_.width() * 2, -1, rect_.width() * 2, 1)
                         : rect_.adjusted(-1, -1, 1, 1);
    }
    void appendLine(const QString& line) { lines_ << line; }
    // Lets the text spill out sideways instead of eliding it.
    void setOverflow(bool overflow) {
        prepareGeometryChange();
        overflow_ = overflow;
    }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
        QPen pen(border_, 1.0);
        pen.setCosmetic(true);
        if (frame_)
            pen.setStyle(Qt::DashLine);
        painter->setPen(pen);
        painter->setBrush(fill_);
        painter->drawRect(rect_);
        if (lines_.isEmpty() || lod <= 0)
            return;
        QFont font = painter->font();
        font.setPixelSize(std::max(1, static_cast<int>(std::lround(kFontPx))));
        const QFontMetricsF metrics(font);
        const double width_px = rect_.width() * lod - 6, height_px = rect_.height() * lod;
        if ((!overflow_ && width_px < 14) || height_px < metrics.height())
            return;
        // Draw in screen pixels so that text keeps its size at every zoom.
        painter->save();
        painter->translate(rect_.topLeft());
        painter->scale(1 / lod, 1 / lod);
        painter->setFont(font);
        painter->setPen(QColor(0x22, 0x2a, 0x35));
        double y = 2;
        for (const QString& line : lines_) {
            if (y + metrics.height() > height_px + 0.5)
                break;
            const QString text = overflow_ ? line : metrics.elidedText(line, Qt::ElideRight, width_px);
            const double x = frame_ ? 4 : (rect_.width() * lod - metrics.horizontalAdvance(text)) / 2;
            painter->drawText(QPointF(x, y + metrics.ascent()), text);
            y += metrics.height();
        }
        painter->restore();
    }

private:
    QRectF rect_;
    QColor fill_, border_;
    QStringList lines_;
    bool frame_;
    bool overflow_ = false;
};

namespace {

// A bandwidth label at a link's middle, constant on-screen size.
class LabelItem final : public QGraphicsItem {
public:
    LabelItem(const QPointF& at, QString text)
        : at_(at)
        , text_(std::move(text)) {}
    QRectF boundingRect() const override { return {at_.x() - 200, at_.y() - 40, 400, 80}; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
        const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
        if (lod <= 0)
            return;
        QFont font = painter->font();
        font.setPixelSize(10);
        const QFontMetricsF metrics(font);
        painter->save();
        painter->translate(at_);
        painter->scale(1 / lod, 1 / lod);
        painter->setFont(font);
        const QRectF box(-metrics.horizontalAdvance(text_) / 2 - 3, -metrics.height() / 2,
                         metrics.horizontalAdvance(text_) + 6, metrics.height());
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, 220));
        painter->drawRect(box);
        painter->setPen(QColor(0x33, 0x44, 0x66));
        painter->drawText(box, Qt::AlignCenter, text_);
        painter->restore();
    }

private:
    QPointF at_;
    QString text_;
};

} // namespace

struct TopologyView::Network {
    models::NetworkPlan plan;
    models::TopologyGraph graph;
    models::TopologyOutline outline;
    std::string device;
    std::vector<QRectF> groupRect;  // scene rectangles, per group
    std::vector<QPointF> vertexPos; // top-left of each vertex's box
    std::vector<double> openScale;  // the view scale from which a group opens
    QRectF bounds;
    std::int64_t switches = 0; // switch vertices of the graph, for the summary

    [[nodiscard]] QSizeF vertexSize(std::size_t v) const {
        return isSwitch(graph[v].kind) ? QSizeF(kSwitchW, kSwitchH) : QSizeF(kDeviceW, kDeviceH);
    }
    [[nodiscard]] QRectF vertexRect(std::size_t v) const { return {vertexPos[v], vertexSize(v)}; }
};

TopologyView::TopologyView(const models::Catalog& catalog, QWidget* parent)
    : QGraphicsView(parent)
    , catalog_(catalog)
    , redrawTimer_(new QTimer(this)) {
    setObjectName(u"topologyView"_s);
    setScene(new QGraphicsScene(this));
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setBackgroundBrush(QColor(0xfb, 0xfb, 0xfc));
    redrawTimer_->setSingleShot(true);
    redrawTimer_->setInterval(40);
    connect(redrawTimer_, &QTimer::timeout, this, &TopologyView::redraw);
}

TopologyView::~TopologyView() = default;

void TopologyView::setScenario(const models::Scenario& scenario) {
    QElapsedTimer clock;
    clock.start();
    models::Diagnostics errors;
    net_.reset();
    error_.clear();
    if (auto plan = models::planTrainingPoolNetwork(scenario, catalog_, errors)) {
        auto net = std::make_unique<Network>();
        net->plan = *plan;
        net->graph = models::buildTopologyGraph(net->plan);
        const auto* pool = scenario.trainingPool();
        if (const models::Device* device = pool ? catalog_.find(pool->device) : nullptr)
            models::addModelStores(net->graph, net->plan, *device);
        net->outline = models::outlineTopology(net->plan, net->graph);
        for (std::size_t v = 0; v < boost::num_vertices(net->graph); ++v)
            net->switches += models::countsAsSwitch(net->graph[v].kind);
        if (pool)
            net->device = pool->device;
        net_ = std::move(net);
        layOut();
    } else {
        error_ = tr("The network cannot be drawn:\n%1").arg(q(models::joinDiagnostics(errors)));
    }
    buildTime_ms_ = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    fit();
}

void TopologyView::layOut() {
    auto& n = *net_;
    const auto& outline = n.outline;
    const std::size_t groups = outline.groups.size();
    n.groupRect.assign(groups, {});
    n.vertexPos.assign(boost::num_vertices(n.graph), {});
    n.openScale.assign(groups, 0);
    std::vector<QPointF> rel(groups); // group origin relative to its parent's (or the scene's)

    // Arranges members and sub-groups (already measured) in rows inside a box; returns its size.
    auto arrange = [&](const std::vector<std::size_t>& members, const std::vector<std::int64_t>& children,
                       double top, double pad) {
        struct Row {
            std::vector<std::pair<QSizeF, std::function<void(QPointF)>>> cells;
            int columns = 1;
        };
        std::vector<Row> rows;
        std::vector<std::size_t> switches, devices;
        for (auto v : members)
            (isSwitch(n.graph[v].kind) ? switches : devices).push_back(v);
        std::vector<std::int64_t> tiers, boxes;
        for (auto c : children)
            (outline.groups[static_cast<std::size_t>(c)].kind == "tier" ? tiers : boxes).push_back(c);
        auto vertexCell = [&](std::size_t v) {
            return std::pair<QSizeF, std::function<void(QPointF)>>(
                n.vertexSize(v), [&n, v](QPointF p) { n.vertexPos[v] = p; });
        };
        auto groupCell = [&](std::int64_t g) {
            const auto i = static_cast<std::size_t>(g);
            return std::pair<QSizeF, std::function<void(QPointF)>>(n.groupRect[i].size(),
                                                                   [&rel, i](QPointF p) { rel[i] = p; });
        };
        auto grid = [](std::size_t count, double cellW, double cellH, double aspect) {
            const double c = std::ceil(std::sqrt(static_cast<double>(count) * aspect * cellH / cellW));
            return std::clamp(static_cast<int>(c), 1, static_cast<int>(std::max<std::size_t>(count, 1)));
        };
        if (!tiers.empty() || !switches.empty()) {
            Row row;
            for (auto t : tiers)
                row.cells.push_back(groupCell(t));
            for (auto v : switches)
                row.cells.push_back(vertexCell(v));
            row.columns = std::min<int>(static_cast<int>(row.cells.size()), 16);
            rows.push_back(std::move(row));
        }
        if (!boxes.empty()) {
            Row row;
            double w = 0, h = 0;
            for (auto g : boxes) {
                row.cells.push_back(groupCell(g));
                w = std::max(w, n.groupRect[static_cast<std::size_t>(g)].width());
                h = std::max(h, n.groupRect[static_cast<std::size_t>(g)].height());
            }
            row.columns = grid(boxes.size(), w, h, 1.6);
            rows.push_back(std::move(row));
        }
        if (!devices.empty()) {
            Row row;
            for (auto v : devices)
                row.cells.push_back(vertexCell(v));
            row.columns = grid(devices.size(), kDeviceW, kDeviceH, 1.5);
            rows.push_back(std::move(row));
        }
        // Each block is a grid of equal cells; blocks are centred under one another.
        std::vector<QSizeF> cell(rows.size()), block(rows.size());
        double width = 0;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            for (const auto& c : rows[r].cells)
                cell[r] = cell[r].expandedTo(c.first);
            const auto cols = static_cast<std::size_t>(rows[r].columns);
            const std::size_t lines = (rows[r].cells.size() + cols - 1) / cols;
            block[r] = {static_cast<double>(cols) * (cell[r].width() + kGap) - kGap,
                        static_cast<double>(lines) * (cell[r].height() + kGap) - kGap};
            width = std::max(width, block[r].width());
        }
        double y = top + pad;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const double x0 = pad + (width - block[r].width()) / 2;
            const auto cols = static_cast<std::size_t>(rows[r].columns);
            for (std::size_t i = 0; i < rows[r].cells.size(); ++i) {
                const auto& [size, place] = rows[r].cells[i];
                const double cx = x0 + static_cast<double>(i % cols) * (cell[r].width() + kGap);
                const double cy = y + static_cast<double>(i / cols) * (cell[r].height() + kGap);
                place(QPointF(cx + (cell[r].width() - size.width()) / 2, cy));
            }
            y += block[r].height() + 2 * kGap;
        }
        return QSizeF(std::max(width + 2 * pad, 90.0), y - 2 * kGap + pad);
    };

    // Children have larger indices than their parents: measure from the last group back.
    for (std::size_t g = groups; g-- > 0;) {
        const auto& group = outline.groups[g];
        const QSizeF size = arrange(group.members, group.children, kHeader, kPad);
        n.groupRect[g] = QRectF(QPointF(0, 0), size);
        double scale = 0;
        double narrowest = 0;
        for (auto c : group.children) {
            const double w = n.groupRect[static_cast<std::size_t>(c)].width();
            narrowest = narrowest == 0 ? w : std::min(narrowest, w);
        }
        if (narrowest > 0)
            scale = kMinBoxPx / narrowest;
        for (auto v : group.members)
            scale = std::max(scale, kMinVertexPx / n.vertexSize(v).width());
        n.openScale[g] = scale;
    }
    const QSizeF all = arrange(outline.ungrouped, outline.roots, 0, 0);
    placeAbsolutely(rel);
    n.bounds = QRectF(QPointF(0, 0), all).adjusted(-20, -20, 20, 20);
}

// Absolute positions from positions relative to the parent group (`relative`, per group), parents first;
// vertex positions were relative to their group's box.
void TopologyView::placeAbsolutely(const std::vector<QPointF>& relative) {
    auto& n = *net_;
    const auto& outline = n.outline;
    for (std::size_t g = 0; g < outline.groups.size(); ++g) {
        const auto parent = outline.groups[g].parent;
        const QPointF origin =
            parent >= 0 ? n.groupRect[static_cast<std::size_t>(parent)].topLeft() : QPointF();
        n.groupRect[g].moveTopLeft(origin + relative[g]);
    }
    for (std::size_t v = 0; v < n.vertexPos.size(); ++v) {
        const auto g = outline.groupOfVertex[v];
        if (g >= 0)
            n.vertexPos[v] += n.groupRect[static_cast<std::size_t>(g)].topLeft();
    }
}

void TopologyView::scaleWithin(double factor) {
    const double current = transform().m11();
    const double f = std::clamp(current * factor, kMinScale, kMaxScale) / current;
    autoFit_ = false;
    scale(f, f);
    scheduleRedraw();
}

void TopologyView::zoomBy(double factor) {
    const auto anchor = transformationAnchor();
    setTransformationAnchor(QGraphicsView::AnchorViewCenter);
    scaleWithin(factor);
    setTransformationAnchor(anchor);
}

void TopologyView::zoomIn() {
    zoomBy(1.5);
}

void TopologyView::zoomOut() {
    zoomBy(1 / 1.5);
}

void TopologyView::fit() {
    scene()->clear();
    if (!net_) {
        auto* text = scene()->addText(error_.isEmpty() ? tr("No network") : error_);
        text->setDefaultTextColor(QColor(0xa0, 0x18, 0x18));
        scene()->setSceneRect(text->boundingRect());
        resetTransform();
        open_.clear();
        emit summaryChanged(error_.section(u'\n', 1));
        return;
    }
    scene()->setSceneRect(net_->bounds);
    fitInView(net_->bounds, Qt::KeepAspectRatio);
    autoFit_ = true;
    redrawNow();
}

void TopologyView::wheelEvent(QWheelEvent* event) {
    scaleWithin(std::pow(1.0015, event->angleDelta().y())); // around the mouse (AnchorUnderMouse)
    event->accept();
}

void TopologyView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
    case Qt::Key_F:
        fit();
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

void TopologyView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (net_ && autoFit_)
        fitInView(net_->bounds, Qt::KeepAspectRatio);
    scheduleRedraw();
}

void TopologyView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    scheduleRedraw();
}

void TopologyView::scheduleRedraw() {
    if (net_)
        redrawTimer_->start();
}

void TopologyView::redrawNow() {
    redrawTimer_->stop();
    redraw();
}

int TopologyView::itemCount() const {
    return static_cast<int>(scene()->items().size());
}

int TopologyView::openGroupCount() const {
    return static_cast<int>(std::count(open_.begin(), open_.end(), 1));
}

std::int64_t TopologyView::deviceCount() const {
    return net_ ? net_->plan.devices : 0;
}

const models::TopologyOutline* TopologyView::outline() const {
    return net_ ? &net_->outline : nullptr;
}

QRectF TopologyView::groupRect(std::int64_t group) const {
    if (!net_ || group < 0 || static_cast<std::size_t>(group) >= net_->groupRect.size())
        return {};
    return net_->groupRect[static_cast<std::size_t>(group)];
}

bool TopologyView::isGroupOpen(std::int64_t group) const {
    return group >= 0 && static_cast<std::size_t>(group) < open_.size() &&
           open_[static_cast<std::size_t>(group)];
}

// Which groups open: visible ones whose contents are readable, outer levels first and, within a level,
// nearest the centre of the view first, while the boxes and vertices to draw stay within budget. That
// bounds the items whatever the size of the network and the zoom.
void TopologyView::openReadableGroups(const QRectF& visible, double scale) {
    const auto& n = *net_;
    const auto& outline = n.outline;
    std::size_t shown = outline.roots.size() + outline.ungrouped.size();
    const QPointF focus = visible.center();
    std::vector<std::int64_t> level(outline.roots.begin(), outline.roots.end());
    while (!level.empty()) {
        std::vector<std::pair<double, std::int64_t>> candidates;
        for (auto gi : level) {
            const QRectF r = n.groupRect[static_cast<std::size_t>(gi)];
            if (r.intersects(visible) && scale >= n.openScale[static_cast<std::size_t>(gi)])
                candidates.emplace_back(QLineF(r.center(), focus).length(), gi);
        }
        std::sort(candidates.begin(), candidates.end());
        std::vector<std::int64_t> next;
        for (const auto& [distance, gi] : candidates) {
            const auto& g = outline.groups[static_cast<std::size_t>(gi)];
            const std::size_t adds = g.children.size() + g.members.size();
            if (shown + adds > kMaxShown)
                continue;
            shown += adds - 1;
            open_[static_cast<std::size_t>(gi)] = 1;
            next.insert(next.end(), g.children.begin(), g.children.end());
        }
        level = std::move(next);
    }
}

// Links: each edge goes between what shows its ends (a vertex, or the closed group around it); edges between
// the same two shown things are one bundle, labelled when there are few; each closed box says what leaves it.
void TopologyView::drawLinks(const std::vector<char>& drawn, const QRectF& visible, double scale,
                             const ClosedBoxes& closedBoxes) {
    const auto& n = *net_;
    const auto& outline = n.outline;
    auto* s = scene();
    struct PairHash {
        std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& p) const {
            return std::hash<std::int64_t>()(p.first * 1000003 ^ p.second);
        }
    };
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, Bundle, PairHash> bundles;
    const auto isOpen = [this](std::int64_t g) { return open_[static_cast<std::size_t>(g)] != 0; };
    auto keyOf = [&](std::size_t v) -> std::int64_t {
        const auto g = outline.shownGroup(v, isOpen);
        return g >= 0 ? -(g + 1) : static_cast<std::int64_t>(v);
    };
    auto visibleKey = [&](std::int64_t k) { return k < 0 || drawn[static_cast<std::size_t>(k)]; };
    for (auto [e, end] = boost::edges(n.graph); e != end; ++e) {
        auto a = keyOf(boost::source(*e, n.graph)), b = keyOf(boost::target(*e, n.graph));
        if (a == b || (!visibleKey(a) && !visibleKey(b)))
            continue;
        if (a > b)
            std::swap(a, b);
        const auto& edge = n.graph[*e];
        auto& bundle = bundles[{a, b}];
        bundle.min_Bps =
            bundle.links == 0 ? edge.bandwidth_Bps : std::min(bundle.min_Bps, edge.bandwidth_Bps);
        bundle.max_Bps = std::max(bundle.max_Bps, edge.bandwidth_Bps);
        bundle.total_Bps += edge.bandwidth_Bps;
        bundle.latency_s = edge.latency_s;
        bundle.scaleUp = bundle.scaleUp || edge.scale_up;
        bundle.stream = bundle.stream || edge.stream;
        ++bundle.links;
    }
    auto centre = [&](std::int64_t k) {
        return k < 0 ? n.groupRect[static_cast<std::size_t>(-k - 1)].center()
                     : n.vertexRect(static_cast<std::size_t>(k)).center();
    };
    auto nameOf = [&](std::int64_t k) {
        return k < 0 ? q(outline.groups[static_cast<std::size_t>(-k - 1)].label)
                     : q(models::vertexLabel(n.graph[static_cast<std::size_t>(k)]));
    };
    auto rectOf = [&](std::int64_t k) {
        return k < 0 ? n.groupRect[static_cast<std::size_t>(-k - 1)]
                     : n.vertexRect(static_cast<std::size_t>(k));
    };
    // The part of the line between two boxes' centres that lies outside both boxes (null when none).
    auto between = [&](std::int64_t a, std::int64_t b) {
        const QRectF ra = rectOf(a), rb = rectOf(b);
        const QPointF d = rb.center() - ra.center();
        auto exit = [&d](const QRectF& r) {
            double t = 1e9;
            if (std::abs(d.x()) > 1e-9)
                t = std::min(t, r.width() / 2 / std::abs(d.x()));
            if (std::abs(d.y()) > 1e-9)
                t = std::min(t, r.height() / 2 / std::abs(d.y()));
            return t;
        };
        const double ta = exit(ra), tb = 1 - exit(rb);
        return ta < tb ? QLineF(ra.center() + d * ta, ra.center() + d * tb) : QLineF();
    };
    // What leaves each closed group, written on its box.
    std::unordered_map<std::int64_t, std::pair<std::int64_t, double>> external;
    for (const auto& [ends, bundle] : bundles)
        for (auto k : {ends.first, ends.second})
            if (k < 0) {
                external[-k - 1].first += bundle.links;
                external[-k - 1].second += bundle.total_Bps;
            }
    for (const auto& [g, box] : closedBoxes)
        if (auto it = external.find(g); it != external.end())
            box->appendLine(tr("%n link(s) out, %1", nullptr, static_cast<int>(it->second.first))
                                .arg(rate(it->second.second)));
    const bool labels = bundles.size() <= static_cast<std::size_t>(kMaxLabelledLinks);
    const bool crowded = bundles.size() > 400;
    for (const auto& [ends, bundle] : bundles) {
        const QLineF line(centre(ends.first), centre(ends.second));
        if (!QRectF(line.p1(), line.p2()).normalized().adjusted(-1, -1, 1, 1).intersects(visible))
            continue;
        auto* item = s->addLine(line, bundlePen(bundle, crowded));
        item->setZValue(0);
        const QString tip = bundleTip(bundle, tr("%1 – %2").arg(nameOf(ends.first), nameOf(ends.second)));
        item->setToolTip(tip);
        ++linkItems_;
        const QLineF open = between(ends.first, ends.second);
        // A label inside another box would read as that box's.
        const auto hidden = [&](const QPointF& at) {
            return std::any_of(closedBoxes.begin(), closedBoxes.end(), [&](const auto& entry) {
                return n.groupRect[static_cast<std::size_t>(entry.first)].contains(at);
            });
        };
        if (labels && open.length() * scale >= kMinLabelledLinkPx && !hidden(open.pointAt(0.5))) {
            auto* label = new LabelItem(open.pointAt(0.5), bundleLabel(bundle));
            label->setZValue(3);
            label->setToolTip(tip);
            s->addItem(label);
        }
    }
}

void TopologyView::redraw() {
    if (!net_)
        return;
    QElapsedTimer clock;
    clock.start();
    const auto& n = *net_;
    const auto& outline = n.outline;
    auto* s = scene();
    s->clear();
    const double scale = transform().m11();
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    open_.assign(outline.groups.size(), 0);
    std::vector<char> drawn(n.vertexPos.size(), 0);
    shownVertices_ = 0;
    linkItems_ = 0;

    const QColor deviceFill(0xd9, 0xe7, 0xf5), deviceLine(0x4a, 0x6f, 0xa5);
    const QColor scaleUpFill(0xd7, 0xec, 0xd2), scaleUpLine(0x3f, 0x7d, 0x3a);
    const QColor switchFill(0xf6, 0xe4, 0xc6), switchLine(0xa5, 0x76, 0x2a);
    const QColor storeFill(0xe9, 0xdc, 0xf2), storeLine(kStoreColour);
    const std::int64_t radix = n.plan.radix;

    auto degreeOf = [&](std::size_t v) { return static_cast<std::int64_t>(boost::degree(v, n.graph)); };
    auto drawVertex = [&](std::size_t v) {
        const QRectF r = n.vertexRect(v);
        if (!r.intersects(visible))
            return;
        const auto& vx = n.graph[v];
        const QString name = q(models::vertexLabel(vx));
        QString tip;
        BoxItem* item = nullptr;
        if (vx.kind == models::VertexKind::Device) {
            item = new BoxItem(r, deviceFill, deviceLine, {}, false);
            tip = tr("%1 (%2), node %3").arg(name, q(n.device)).arg(vx.index / n.plan.devices_per_node);
        } else if (models::isModelStore(vx.kind)) {
            item = new BoxItem(r, storeFill, storeLine, {storeShortName(vx.kind)}, false);
            tip = storeTip(vx.kind, name, degreeOf(v));
        } else {
            const bool scaleUp = vx.kind == models::VertexKind::ScaleUpSwitch;
            const QString shortName = scaleUp ? tr("SU") : name.left(1).toUpper() + QString::number(vx.index);
            item = new BoxItem(r, scaleUp ? scaleUpFill : switchFill, scaleUp ? scaleUpLine : switchLine,
                               {shortName}, false);
            tip = scaleUp ? tr("%1\n%2 links to its devices").arg(name).arg(degreeOf(v))
                          : tr("%1\n%2 of %3 ports used").arg(name).arg(degreeOf(v)).arg(radix);
        }
        item->setToolTip(tip);
        item->setZValue(2);
        s->addItem(item);
        drawn[v] = 1;
        ++shownVertices_;
    };
    auto groupLines = [&](const models::OutlineGroup& g) {
        QStringList lines{q(g.label)};
        if (g.devices > 0)
            lines << tr("%n device(s)", nullptr, static_cast<int>(g.devices));
        if (g.switches > 0)
            lines << tr("%n switch(es)", nullptr, static_cast<int>(g.switches));
        return lines;
    };
    openReadableGroups(visible, scale);
    ClosedBoxes closedBoxes;
    // Draws open groups as frames around their contents, closed ones as boxes.
    std::function<void(std::int64_t)> visit = [&](std::int64_t gi) {
        const auto& g = outline.groups[static_cast<std::size_t>(gi)];
        const QRectF r = n.groupRect[static_cast<std::size_t>(gi)];
        const bool isOpen = open_[static_cast<std::size_t>(gi)] != 0;
        auto* item =
            new BoxItem(r, isOpen ? QColor(0xf2, 0xf4, 0xf8, 120) : QColor(0xe8, 0xec, 0xf3),
                        QColor(0x6b, 0x7a, 0x90), isOpen ? QStringList{q(g.label)} : groupLines(g), isOpen);
        item->setZValue(isOpen ? -1 : 2);
        item->setToolTip(groupLines(g).join(u", "_s));
        s->addItem(item);
        if (!isOpen) {
            closedBoxes[gi] = item;
            item->setOverflow(g.kind == "tier");
            return;
        }
        for (auto c : g.children)
            visit(c);
        for (auto v : g.members)
            drawVertex(v);
    };
    for (auto root : outline.roots)
        visit(root);
    for (auto v : outline.ungrouped)
        drawVertex(v);

    drawLinks(drawn, visible, scale, closedBoxes);
    drawTime_ms_ = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    emit summaryChanged(tr("%1 devices, %2 switches, %3 links (%4) · %5 groups open, %6 items drawn")
                            .arg(n.plan.devices)
                            .arg(n.switches)
                            .arg(boost::num_edges(n.graph))
                            .arg(q(models::toString(n.plan.kind)))
                            .arg(openGroupCount())
                            .arg(itemCount()));
}

} // namespace choreo::ui
