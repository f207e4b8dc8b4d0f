#pragma once

#include "models/catalog.h"
#include "models/scenario.h"
#include "models/topology.h"
#include "models/topologyoutline.h"

#include <QGraphicsView>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

QT_BEGIN_NAMESPACE
class QTimer;
QT_END_NAMESPACE

namespace choreo::ui {

class BoxItem; // a box of the view: a group, a device or a switch

// The training pool's network as models::buildTopologyGraph builds it, drawn with level of detail: at
// cluster scale pods, units (racks of nodes under their leaves), dragonfly groups, torus planes and
// switch tiers are boxes with counts, joined by one line per pair carrying the summed bandwidth; zooming
// in (wheel, zoomIn(), fit()) opens a group once its contents are readable, down to single devices,
// switches and links. Only what is visible is drawn, so the item count stays bounded at any size.
class TopologyView : public QGraphicsView {
    Q_OBJECT

public:
    explicit TopologyView(const models::Catalog& catalog, QWidget* parent = nullptr);
    ~TopologyView() override;

    // Plans, builds and lays out the scenario's training-pool network and fits it into the view. A
    // network that cannot be planned shows the planner's errors instead.
    void setScenario(const models::Scenario& scenario);

    void zoomIn();
    void zoomOut();
    // Shows the whole network.
    void fit();
    // Scales the view by `factor` around the centre (tests and the zoom buttons).
    void zoomBy(double factor);

    // What is drawn, for tests and benches.
    [[nodiscard]] bool hasNetwork() const { return static_cast<bool>(net_); }
    [[nodiscard]] QString errorText() const { return error_; }
    [[nodiscard]] int itemCount() const;
    [[nodiscard]] int openGroupCount() const;
    [[nodiscard]] int shownVertexCount() const { return shownVertices_; }
    [[nodiscard]] int linkItemCount() const { return linkItems_; }
    [[nodiscard]] std::int64_t deviceCount() const;
    [[nodiscard]] const models::TopologyOutline* outline() const;
    // The scene rectangle of a group (its box when closed).
    [[nodiscard]] QRectF groupRect(std::int64_t group) const;
    [[nodiscard]] bool isGroupOpen(std::int64_t group) const;
    // Milliseconds the last setScenario spent planning, building and laying out, and the last redraw.
    [[nodiscard]] double buildTime_ms() const { return buildTime_ms_; }
    [[nodiscard]] double drawTime_ms() const { return drawTime_ms_; }
    // Redraws now instead of after the short delay that follows a zoom or scroll.
    void redrawNow();

signals:
    // The items on screen changed (after a redraw): a summary for a status line.
    void summaryChanged(const QString& summary);

protected:
    void wheelEvent(QWheelEvent* event) override;
    // +/= zoom in, - zoom out, 0 or F fit.
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    struct Network;
    // Scales the view by `factor`, kept within the zoom limits, around the transformation anchor.
    void scaleWithin(double factor);
    void layOut();
    void placeAbsolutely(const std::vector<QPointF>& relative); // layOut's last step
    void scheduleRedraw();
    void redraw();
    // The steps of redraw(): which groups open (open_), and the links between what is shown.
    using ClosedBoxes = std::unordered_map<std::int64_t, BoxItem*>; // closed groups' boxes, by group
    void openReadableGroups(const QRectF& visible, double scale);
    void drawLinks(const std::vector<char>& drawn, const QRectF& visible, double scale,
                   const ClosedBoxes& closedBoxes);

    const models::Catalog& catalog_;
    std::unique_ptr<Network> net_;
    QString error_;
    QTimer* redrawTimer_;
    std::vector<char> open_;
    bool autoFit_ = true; // the whole network is shown and follows the view's size until a zoom
    int shownVertices_ = 0;
    int linkItems_ = 0;
    double buildTime_ms_ = 0;
    double drawTime_ms_ = 0;
};

} // namespace choreo::ui
