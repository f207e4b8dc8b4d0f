#pragma once

#include <QColor>

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

// Light theme, no animation and no drop shadow: a shadow is a bitmap effect and would not stay vector in a
// PDF.
void apply(QChart& chart);

} // namespace choreo::ui::chartstyle
