#include "ui/fieldmarks.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

bool names(const QString& diagnosticPath, const QString& fieldPath, bool exactOnly) {
    if (!diagnosticPath.startsWith(fieldPath))
        return false;
    if (diagnosticPath.size() == fieldPath.size())
        return true;
    const QChar next = diagnosticPath.at(fieldPath.size());
    return !exactOnly && (next == u'.' || next == u'[');
}

} // namespace

void FieldMarks::add(const QString& path, QWidget* widget, bool exactOnly) {
    fields_.append({path, widget, exactOnly});
}

void FieldMarks::remove(QWidget* widget) {
    fields_.erase(std::remove_if(fields_.begin(), fields_.end(),
                                 [widget](const Field& f) { return f.widget == widget; }),
                  fields_.end());
}

void FieldMarks::show(const models::Diagnostics& diagnostics) {
    // Per widget, not per path: a widget that edits two paths is marked when either is named.
    QHash<QWidget*, QStringList> messages;
    for (const Field& f : fields_) {
        if (!f.widget)
            continue;
        QStringList& list = messages[f.widget];
        for (const auto& d : diagnostics) {
            const QString message = QString::fromStdString(d.text());
            if (names(QString::fromStdString(d.path), f.path, f.exactOnly) && !list.contains(message))
                list << message;
        }
    }
    for (auto it = messages.cbegin(); it != messages.cend(); ++it) {
        QWidget* widget = it.key();
        const bool mark = !it.value().isEmpty();
        const bool wasMarked = widget->property("invalid").toBool();
        // The widget's own tooltip is kept while the messages stand in for it.
        if (mark && !wasMarked)
            ownTooltips_.insert(widget, widget->toolTip());
        if (mark)
            widget->setToolTip(it.value().join(u'\n'));
        else if (wasMarked)
            widget->setToolTip(ownTooltips_.take(widget));
        if (wasMarked != mark) {
            // A property and a style sheet selector, rather than a palette, leave the style's colours alone.
            widget->setProperty("invalid", mark);
            widget->setStyleSheet(mark ? u"*[invalid=\"true\"] { background-color: #ffe1e1; }"_s : QString());
        }
    }
}

QList<QWidget*> FieldMarks::marked() const {
    QList<QWidget*> out;
    for (const Field& f : fields_)
        if (f.widget && f.widget->property("invalid").toBool() && !out.contains(f.widget.data()))
            out << f.widget.data();
    return out;
}

} // namespace choreo::ui
