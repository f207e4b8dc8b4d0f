#pragma once

#include "models/scenario.h"

#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QLabel;
class QTimer;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;
class TopologyView;

// The network page: the topology view with zoom buttons and a summary line, following the document.
// Edits are collected for a moment (debounced) and the drawing is rebuilt only when the cluster or the
// training pool changed.
class TopologyPanel final : public QWidget {
    Q_OBJECT

public:
    explicit TopologyPanel(Document* document, QWidget* parent = nullptr);

    [[nodiscard]] TopologyView* view() const { return view_; }
    // Rebuilds now from the document when its network changed (tests; the timer does it otherwise).
    void updateNow();

private:
    Document* document_;
    TopologyView* view_;
    QLabel* summary_;
    QTimer* debounce_;
    std::optional<models::Cluster> shown_;
    std::optional<std::string> shownPool_;
};

} // namespace choreo::ui
