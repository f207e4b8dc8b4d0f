#pragma once

#include <QColor>

#include <array>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace choreo::ui::chartstyle {

// Fixed colours, so that screen, PDF and a colleague's machine show the same picture.
inline const QColor kCompute{0x4c, 0x78, 0xa8};
inline const QColor kCommunication{0xf5, 0x85, 0x18};
inline const QColor kBubble{0xa0, 0xa0, 0xa0};
inline const QColor kThroughput{0x1f, 0x5f, 0xa8};
inline const QColor kEfficiency{0x2c, 0x9c, 0x4a};
inline const QColor kFailed{0xc0, 0x20, 0x20};
// Memory segments: weights, gradients, optimizer, activations, buffers (the memory bar uses the same).
inline const std::array<QColor, 5> kMemory{QColor(0x4c, 0x78, 0xa8), QColor(0x72, 0xb7, 0xb2),
                                           QColor(0xf5, 0x85, 0x18), QColor(0xe4, 0x57, 0x56),
                                           QColor(0xa0, 0xa0, 0xa0)};
// Hardware options: every option, and those on the Pareto front.
inline const QColor kOption{0x90, 0x9c, 0xb0};
inline const QColor kPareto{0x1f, 0x5f, 0xa8};

// Light theme, no animation and no drop shadow: a shadow is a bitmap effect and would not stay vector in a
// PDF.
void apply(QChart& chart);

} // namespace choreo::ui::chartstyle
