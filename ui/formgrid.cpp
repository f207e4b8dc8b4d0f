#include "ui/formgrid.h"

#include <QGridLayout>
#include <QLabel>

namespace choreo::ui {

FormGrid::FormGrid(QGridLayout* grid)
    : grid_(grid) {
    grid_->setColumnStretch(1, 1);
    grid_->setColumnStretch(3, 1);
    grid_->setHorizontalSpacing(8);
}

void FormGrid::add(const QString& label, QWidget* field) {
    const int row = cell_ / 2;
    const int column = (cell_ % 2) * 2;
    auto* l = new QLabel(label);
    l->setBuddy(field);
    grid_->addWidget(l, row, column);
    grid_->addWidget(field, row, column + 1);
    ++cell_;
}

void FormGrid::addWide(const QString& label, QWidget* field) {
    if (cell_ % 2 != 0)
        ++cell_;
    auto* l = new QLabel(label);
    l->setBuddy(field);
    grid_->addWidget(l, cell_ / 2, 0);
    grid_->addWidget(field, cell_ / 2, 1, 1, 3);
    cell_ += 2;
}

} // namespace choreo::ui
