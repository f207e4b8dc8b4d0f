#pragma once

#include "models/diagnostic.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

namespace choreo::ui {

// Ties form widgets to the JSON paths of the scenario they edit, and marks the widgets that a
// diagnostic names (tinted, with the messages as tooltip). A widget may edit several paths.
class FieldMarks {
public:
    // `widget` edits `path` ("workload.parallel.tp"): diagnostics at that path mark it, and, unless
    // `exactOnly`, diagnostics below it ("cluster.pools[1].device" below "cluster.pools").
    void add(const QString& path, QWidget* widget, bool exactOnly = false);
    // Forgets every path `widget` edits (before it is tied to others: a stage that moved in the array).
    void remove(QWidget* widget);
    // Clears every mark, then marks the widgets the diagnostics name.
    void show(const models::Diagnostics& diagnostics);
    // The widgets marked now (tests).
    [[nodiscard]] QList<QWidget*> marked() const;

private:
    struct Field {
        QString path;
        QPointer<QWidget> widget;
        bool exactOnly = false;
    };
    QList<Field> fields_;
    QHash<QWidget*, QString> ownTooltips_; // restored when a mark goes
};

} // namespace choreo::ui
