#pragma once

#include <QColor>

#include <array>

QT_BEGIN_NAMESPACE
class QChart;
class QLogValueAxis;
class QValueAxis;
QT_END_NAMESPACE

namespace choreo::ui::chartstyle {

// Fixed colours, so that screen, PDF and a colleague's machine show the same picture.
inline const QColor kCompute{0x4c, 0x78, 0xa8};
inline const QColor kCommunication{0xf5, 0x85, 0x18};
inline const QColor kBubble{0xa0, 0xa0, 0xa0};
// The step's other parts in a hybrid run: waiting for the data stage, and the evaluation pauses.
inline const QColor kDataWait{0x8e, 0x44, 0xad};
inline const QColor kEval{0x54, 0xa2, 0x4b};
inline const QColor kThroughput{0x1f, 0x5f, 0xa8};
inline const QColor kEfficiency{0x2c, 0x9c, 0x4a};
inline const QColor kFailed{0xc0, 0x20, 0x20};
// Memory segments: weights, gradients, optimizer, activations, buffers (the memory bar uses the same).
inline const std::array<QColor, 5> kMemory{QColor(0x4c, 0x78, 0xa8), QColor(0x72, 0xb7, 0xb2),
                                           QColor(0xf5, 0x85, 0x18), QColor(0xe4, 0x57, 0x56),
                                           QColor(0xa0, 0xa0, 0xa0)};
// Step timeline activities, in models::ActivityKind order: forward, backward, recompute, optimizer, tensor
// comm, pipeline send/recv, data-parallel comm, bubble.
inline const std::array<QColor, 8> kActivity{
    QColor(0x4c, 0x78, 0xa8), QColor(0x72, 0xb7, 0xb2), QColor(0xb2, 0x79, 0xa2), QColor(0x54, 0xa2, 0x4b),
    QColor(0xf5, 0x85, 0x18), QColor(0xee, 0xca, 0x3b), QColor(0xe4, 0x57, 0x56), QColor(0xd8, 0xd8, 0xd8)};
// Power series: accelerators, CPUs, network, cooling.
inline const std::array<QColor, 4> kPower{QColor(0x4c, 0x78, 0xa8), QColor(0x54, 0xa2, 0x4b),
                                          QColor(0xf5, 0x85, 0x18), QColor(0x9e, 0xc9, 0xe8)};
// Hardware options: every option, and those on the Pareto front.
inline const QColor kOption{0x90, 0x9c, 0xb0};
inline const QColor kPareto{0x1f, 0x5f, 0xa8};
// Compared scenarios, by column: the same colour for a scenario in every compare chart.
inline const std::array<QColor, 4> kScenario{QColor(0x1f, 0x5f, 0xa8), QColor(0xd9, 0x5f, 0x02),
                                             QColor(0x2c, 0x9c, 0x4a), QColor(0x8e, 0x44, 0xad)};

// Light theme, no animation and no drop shadow: a shadow is a bitmap effect and would not stay vector in a
// PDF.
void apply(QChart& chart);
// Ticks every 1, 2 or 5 x 10^k units from 0, about ten over [0, end] (a time axis that ends at the step).
void niceTicks(QValueAxis& axis, double end);
// Adds the bottom axis "Time in the step (ms)" over [0, end_ms] with niceTicks, and returns it.
QValueAxis* addStepTimeAxis(QChart& chart, double end_ms);
// Adds the left axis "p99 latency (ms)", log scale, over the powers of ten around [min_ms, max_ms] (both
// positive), and returns it.
QLogValueAxis* addLatencyAxis(QChart& chart, double min_ms, double max_ms);

} // namespace choreo::ui::chartstyle
