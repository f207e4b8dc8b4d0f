#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QGridLayout;
class QWidget;
QT_END_NAMESPACE

namespace choreo::ui {

// Two label/field pairs per row, so that the scenario's forms fit a 800-pixel-high screen.
class FormGrid {
public:
    explicit FormGrid(QGridLayout* grid);
    // Adds `label: field` in the next free cell, left then right.
    void add(const QString& label, QWidget* field);
    // Adds a field spanning both halves of a new row.
    void addWide(const QString& label, QWidget* field);

private:
    QGridLayout* grid_;
    int cell_ = 0;
};

} // namespace choreo::ui
