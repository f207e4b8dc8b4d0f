#include "ui/autosave.h"

#include "models/scenarioio.h"
#include "ui/document.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace choreo::ui {

namespace {

const QString kScenarioFile = u"autosave.json"_s;
const QString kMetaFile = u"autosave-meta.json"_s; // {"original": path}: the scenario format has no room

// Temporary file and rename (models::writeTextFileAtomically): a crash mid-write leaves the previous copy.
// Not QSaveFile: Qt 6.4's commit() reports success when its final flush wrote only part of the file (a full
// disk), leaving a truncated copy (tst_autosave fullDiskKeepsTheLastCopyAndTheEdits).
bool writeAtomically(const QString& path, const QByteArray& bytes, QString& error) {
    std::string message;
    if (models::writeTextFileAtomically(path.toStdString(), bytes.toStdString(), message))
        return true;
    error = QString::fromStdString(message);
    return false;
}

} // namespace

Autosave::Autosave(Document* document, QString directory, int intervalMs, QObject* parent)
    : QObject(parent)
    , document_(document)
    , directory_(std::move(directory))
    , timer_(new QTimer(this))
    , dirtySinceWrite_(document->isModified()) { // a document edited before autosave was enabled
    timer_->setInterval(intervalMs);
    connect(timer_, &QTimer::timeout, this, &Autosave::onTimer);
    timer_->start();
    connect(document_, &Document::scenarioChanged, this, [this] { dirtySinceWrite_ = true; });
    connect(document_, &Document::modifiedChanged, this, [this](bool modified) {
        if (!modified)
            discard(); // saved, or back to the saved state: nothing to recover
    });
}

QString Autosave::scenarioPath() const {
    return QDir(directory_).filePath(kScenarioFile);
}

void Autosave::onTimer() {
    QString error;
    if (!writeNow(error) && !reported_) {
        reported_ = true;
        emit failed(error);
    }
}

bool Autosave::writeNow(QString& error) {
    if (!document_->isModified() || !dirtySinceWrite_)
        return true;
    if (!QDir().mkpath(directory_)) {
        error = tr("%1 cannot be created").arg(directory_);
        return false;
    }
    const QByteArray meta =
        QJsonDocument(QJsonObject{{u"original"_s, document_->filePath()}}).toJson(QJsonDocument::Compact);
    if (!writeAtomically(QDir(directory_).filePath(kMetaFile), meta, error))
        return false;
    const QByteArray scenario = QByteArray::fromStdString(models::serializeScenario(document_->scenario()));
    if (!writeAtomically(scenarioPath(), scenario, error))
        return false;
    dirtySinceWrite_ = false;
    reported_ = false;
    return true;
}

void Autosave::discard() {
    QFile::remove(scenarioPath());
    QFile::remove(QDir(directory_).filePath(kMetaFile));
    dirtySinceWrite_ = document_->isModified();
}

std::optional<Autosave::Recovery> Autosave::pending(const QString& directory, QString& error) {
    const QString path = QDir(directory).filePath(kScenarioFile);
    if (!QFile::exists(path))
        return std::nullopt;
    models::Diagnostics errors;
    auto scenario = models::loadScenarioFile(path.toStdString(), errors);
    if (!scenario) {
        error = tr("The autosaved scenario %1 cannot be read:\n%2")
                    .arg(path, QString::fromStdString(models::joinDiagnostics(errors)));
        return std::nullopt;
    }
    Recovery r{std::move(*scenario), {}};
    QFile meta(QDir(directory).filePath(kMetaFile));
    if (meta.open(QIODevice::ReadOnly))
        r.originalPath = QJsonDocument::fromJson(meta.readAll()).object().value(u"original"_s).toString();
    return r;
}

} // namespace choreo::ui
