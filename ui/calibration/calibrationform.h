#pragma once

#include "ui/scenarioform.h"

#include <QString>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QPushButton;
QT_END_NAMESPACE

namespace choreo::ui {

// The scenario's calibration: the catalog's spec sheet, or a profile file that refines one of its
// devices (docs/calibration.md). Each choice is one undo step.
class CalibrationForm final : public ScenarioForm {
    Q_OBJECT

public:
    CalibrationForm(Document* document, FieldMarks* marks, QWidget* parent = nullptr);

    // Uses the profile at `path` (empty: the spec sheet). Stored relative to the scenario's folder when
    // the file is inside it, else absolute.
    void useProfile(const QString& path);
    // Sets the catalog device the profile refines (empty: the one the profile names); one undo step.
    void setRefinedDevice(const QString& deviceId);
    // The reference as it would be stored for `path` (tests).
    [[nodiscard]] QString referenceFor(const QString& path) const;

signals:
    // The user asked to see the profile the scenario uses.
    void viewRequested(const QString& profilePath);

protected:
    void refresh() override;

private:
    void chooseFile();

    QComboBox* choice_;
    QComboBox* device_; // which of the scenario's devices the profile refines
    QLabel* state_;
    QPushButton* view_;
};

} // namespace choreo::ui
