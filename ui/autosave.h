#pragma once

#include "models/scenario.h"

#include <QObject>
#include <QString>

#include <optional>

QT_BEGIN_NAMESPACE
class QTimer;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;

// Writes the document to `directory` every interval while it has unsaved changes (a temporary file renamed
// into place, so a crash or a full disk mid-write leaves the previous copy), and removes the copy once the
// document is saved, reset or closed normally. A copy found at startup therefore means the program did not
// end normally.
class Autosave : public QObject {
    Q_OBJECT

public:
    // What a previous session left behind.
    struct Recovery {
        models::Scenario scenario;
        QString originalPath; // the file it was edited from; empty for an untitled scenario
    };

    Autosave(Document* document, QString directory, int intervalMs, QObject* parent = nullptr);

    // Writes now if there is something unsaved and not yet written; false with `error` on failure.
    bool writeNow(QString& error);
    // Removes the copy (a normal close, or the user declined recovery).
    void discard();
    // The copy a previous session left in `directory`, if any and readable; `error` says why not.
    static std::optional<Recovery> pending(const QString& directory, QString& error);

    [[nodiscard]] QString scenarioPath() const;

signals:
    // A write failed (a full disk, a read-only folder): said once, not at every tick.
    void failed(const QString& error);

private:
    void onTimer();

    Document* document_;
    QString directory_;
    QTimer* timer_;
    bool dirtySinceWrite_ = false;
    bool reported_ = false;
};

} // namespace choreo::ui
