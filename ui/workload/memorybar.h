#pragma once

#include "models/memory.h"

#include <QWidget>

#include <optional>

namespace choreo::ui {

class Document;

// Memory one device of the training pool needs (worst pipeline stage), as a stacked bar of weights,
// gradients, optimizer states, activations and buffers against the device's capacity. Follows the
// document live; shows why when it cannot compute (an unknown device, a zero size).
class MemoryBar : public QWidget {
    Q_OBJECT

public:
    explicit MemoryBar(Document* document, QWidget* parent = nullptr);

    // What is drawn now (nullopt when the scenario gives no memory figure).
    [[nodiscard]] const std::optional<models::MemoryBreakdown>& breakdown() const { return breakdown_; }
    [[nodiscard]] double capacityGB() const { return capacity_GB_; }
    // The one-line summary under the bar ("61.2 of 80 GB", or why there is none).
    [[nodiscard]] QString summary() const { return summary_; }

    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void recompute();

    Document* document_;
    std::optional<models::MemoryBreakdown> breakdown_;
    double capacity_GB_ = 0;
    QString summary_;
};

} // namespace choreo::ui
