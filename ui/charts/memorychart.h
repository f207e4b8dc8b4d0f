#pragma once

#include <QList>
#include <QString>

QT_BEGIN_NAMESPACE
class QAbstractItemModel;
class QChart;
QT_END_NAMESPACE

namespace choreo::ui {

// Which columns of an item model make a memory-per-device chart.
struct MemoryColumns {
    int category = 0;    // DisplayRole labels the bar (a pipeline stage)
    QList<int> segments; // ValueRole gives GB; the header names the segment ("Weights (GB)")
};

// One stacked bar per row (weights, gradients, optimizer, activations, buffers) with the device's
// capacity as a line across; a bar over the line does not fit. `capacity_GB` <= 0 draws no line.
// The caller owns the chart.
QChart* createMemoryChart(const QAbstractItemModel& model, const MemoryColumns& columns, double capacity_GB,
                          const QString& title);

} // namespace choreo::ui
