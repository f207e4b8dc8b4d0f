// Autosave: nothing is written for a clean document; unsaved changes are written atomically and read
// back as they were, with the file they came from; saving (or undoing back to the saved state) removes
// the copy; a damaged copy is reported, not loaded.
#include "models/scenarioio.h"
#include "ui/autosave.h"
#include "ui/document.h"
#include "ui/editids.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "tests/fulldisk.h"
#include "tests/ui/testsupport.h"

using namespace Qt::StringLiterals;
using choreo::ui::Autosave;

class TestAutosave : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void writesOnlyUnsavedChanges();
    void savingRemovesTheCopy();
    void timerWrites();
    void editsBeforeEnablingAreWritten();
    void damagedCopyIsReported();
    void fullDiskKeepsTheLastCopyAndTheEdits();

private:
    std::optional<choreo::models::Catalog> catalog_;
    choreo::models::Scenario original_;
};

void TestAutosave::initTestCase() {
    catalog_ = choreo::test::loadCatalog();
    QVERIFY(catalog_.has_value());
    original_ = *choreo::test::loadDefaultScenario();
}

void TestAutosave::writesOnlyUnsavedChanges() {
    QTemporaryDir dir;
    choreo::ui::Document document(*catalog_, original_);
    document.reset(original_, u"/somewhere/plan.json"_s);
    Autosave autosave(&document, dir.path(), 3600 * 1000);
    QString error;
    QVERIFY(autosave.writeNow(error));
    QVERIFY(!QFile::exists(autosave.scenarioPath()));
    QVERIFY(!Autosave::pending(dir.path(), error).has_value());

    auto edited = original_;
    edited.workload.model.layers = 40;
    document.edit(edited, choreo::ui::NoMerge, u"edit"_s);
    QVERIFY2(autosave.writeNow(error), qPrintable(error));
    QVERIFY(QFile::exists(autosave.scenarioPath()));
    const auto recovery = Autosave::pending(dir.path(), error);
    QVERIFY2(recovery.has_value(), qPrintable(error));
    QVERIFY(recovery->scenario == edited);
    QCOMPARE(recovery->originalPath, u"/somewhere/plan.json"_s);

    // Back to the saved state: nothing left to recover.
    document.undoStack()->undo();
    QVERIFY(!QFile::exists(autosave.scenarioPath()));
}

void TestAutosave::savingRemovesTheCopy() {
    QTemporaryDir dir;
    choreo::ui::Document document(*catalog_, original_);
    Autosave autosave(&document, dir.filePath(u"app"_s), 3600 * 1000); // the folder is created on demand
    auto edited = original_;
    edited.name = "renamed";
    document.edit(edited, choreo::ui::NoMerge, u"edit"_s);
    QString error;
    QVERIFY2(autosave.writeNow(error), qPrintable(error));
    QVERIFY(QFile::exists(autosave.scenarioPath()));
    QVERIFY2(document.save(dir.filePath(u"saved.json"_s), error), qPrintable(error));
    QVERIFY(!QFile::exists(autosave.scenarioPath()));
}

void TestAutosave::timerWrites() {
    QTemporaryDir dir;
    choreo::ui::Document document(*catalog_, original_);
    Autosave autosave(&document, dir.path(), 50);
    auto edited = original_;
    edited.workload.global_batch = 256;
    document.edit(edited, choreo::ui::NoMerge, u"edit"_s);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.scenarioPath()), 5000);
    autosave.discard();
    QVERIFY(!QFile::exists(autosave.scenarioPath()));
}

void TestAutosave::editsBeforeEnablingAreWritten() {
    QTemporaryDir dir;
    choreo::ui::Document document(*catalog_, original_);
    auto edited = original_;
    edited.workload.micro_batch = 2;
    document.edit(edited, choreo::ui::NoMerge, u"edit"_s);
    Autosave autosave(&document, dir.path(), 3600 * 1000);
    QString error;
    QVERIFY2(autosave.writeNow(error), qPrintable(error));
    const auto recovery = Autosave::pending(dir.path(), error);
    QVERIFY(recovery.has_value());
    QVERIFY(recovery->scenario == edited);
}

void TestAutosave::damagedCopyIsReported() {
    QTemporaryDir dir;
    QFile file(dir.filePath(u"autosave.json"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "choreo-scenario/1", "name": 3})");
    file.close();
    QString error;
    QVERIFY(!Autosave::pending(dir.path(), error).has_value());
    QVERIFY2(error.contains(u"name"_s), qPrintable(error));
}

void TestAutosave::fullDiskKeepsTheLastCopyAndTheEdits() {
    // The disk fills mid-session: the next autosave and the user's save both fail with the file named, the
    // last good copy stays recoverable, the scenario file keeps what was saved, and the document keeps its
    // unsaved edits (still marked modified, so closing still asks).
    QTemporaryDir dir;
    const QString saved = dir.filePath(u"plan.json"_s);
    choreo::ui::Document document(*catalog_, original_);
    QString error;
    QVERIFY2(document.save(saved, error), qPrintable(error));
    Autosave autosave(&document, dir.filePath(u"autosave"_s), 3600 * 1000);
    auto first = original_;
    first.workload.model.layers = 40;
    document.edit(first, choreo::ui::NoMerge, u"edit"_s);
    QVERIFY2(autosave.writeNow(error), qPrintable(error));
    auto second = first;
    second.workload.model.layers = 48;
    document.edit(second, choreo::ui::NoMerge, u"edit"_s);
    bool autosaved = true;
    bool savedAgain = true;
    QString saveError;
    {
        choreo::testing::FullDisk full(64);
        if (!full.active())
            QSKIP("cannot limit the file size here");
        autosaved = autosave.writeNow(error);
        savedAgain = document.save(saved, saveError);
    }
    QVERIFY(!autosaved);
    QVERIFY2(error.contains(u"autosave"_s), qPrintable(error));
    QVERIFY(!savedAgain);
    QVERIFY2(saveError.contains(saved), qPrintable(saveError));
    QVERIFY(document.isModified());
    QVERIFY(document.scenario() == second);
    const auto recovery = Autosave::pending(dir.filePath(u"autosave"_s), error);
    QVERIFY2(recovery.has_value(), qPrintable(error));
    QVERIFY(recovery->scenario == first);
    choreo::models::Diagnostics errors;
    const auto onDisk = choreo::models::loadScenarioFile(saved.toStdString(), errors);
    QVERIFY(onDisk && *onDisk == original_);
    // With room again, the next autosave writes the latest edits.
    QVERIFY2(autosave.writeNow(error), qPrintable(error));
    QVERIFY(Autosave::pending(dir.filePath(u"autosave"_s), error)->scenario == second);
}

QTEST_MAIN(TestAutosave)
#include "tst_autosave.moc"
