#pragma once

#include <QSettings>
#include <QString>
#include <QStringList>

namespace choreo::ui {

// The most recently opened or saved scenario files, newest first, kept in the settings it is given.
class RecentFiles {
public:
    static constexpr int kMaximum = 8;

    explicit RecentFiles(QSettings& settings);

    [[nodiscard]] QStringList files() const;
    // Moves `path` to the front (adding it when new) and drops the oldest beyond kMaximum.
    void add(const QString& path);
    void remove(const QString& path);

private:
    void store(const QStringList& files);

    QSettings& settings_;
};

} // namespace choreo::ui
