#include "ui/recentfiles.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

const QString kKey = u"recentFiles"_s;

} // namespace

RecentFiles::RecentFiles(QSettings& settings)
    : settings_(settings) {}

QStringList RecentFiles::files() const {
    return settings_.value(kKey).toStringList();
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaximum)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path) {
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::store(const QStringList& list) {
    settings_.setValue(kKey, list);
}

} // namespace choreo::ui
