#pragma once

#include "models/catalog.h"
#include "models/jsonreader.h"
#include "models/scenario.h"
#include "ui/plan/planrunner.h"

#include <QDialog>

#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDateEdit;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;
QT_END_NAMESPACE

namespace choreo::ui {

class Document;

// Tools > Plan a cluster: the planner's limits (deadline, budget, site power), rent or buy, the devices
// allowed, then `choreo-sim plan` on the document's scenario (docs/plan.md). Lists the options of the Pareto
// front with what binds each and why fewer or more devices lost, or why there is none; an option opens as a
// new, unsaved scenario. Never blocks the GUI thread.
class PlanDialog : public QDialog {
    Q_OBJECT

public:
    // `command` starts `choreo-sim plan` (PlanRunner adds the scenario and the options).
    PlanDialog(const models::Catalog& catalog, Document* document, WorkerCommand command,
               QWidget* parent = nullptr);

    [[nodiscard]] PlanRunner* runner() const { return runner_; }
    [[nodiscard]] PlanSettings settings() const;
    void setSettings(const PlanSettings& settings);
    // The options of the last plan, in its order; their count.
    [[nodiscard]] int optionCount() const { return static_cast<int>(options_.size()); }
    // What the dialog says now (the line under the options).
    [[nodiscard]] QString message() const;
    // The explanation shown for option `row`: what binds it, fewer and more devices.
    [[nodiscard]] QString explanation(int row) const;
    // "h200-sxm=16, mi300x=20" as weeks by device; nullopt with `error` naming the entry that is wrong.
    static std::optional<QMap<QString, double>> parseLeadTimes(const QString& text, QString& error);

public slots:
    void start();
    void cancel();
    // Emits openRequested with option `row`'s scenario; false when there is no such option.
    bool openOption(int row);

signals:
    void openRequested(const choreo::models::Scenario& scenario);
    void planFinished(); // a plan ended with options or the reason there are none

protected:
    void reject() override; // closing cancels a plan under way

private:
    QWidget* createLimits();
    QWidget* createDevices();
    void showPlan(const models::Json& plan);
    void showDetail();
    void setRunning(bool running);
    void showMessage(const QString& text, bool problem);

    const models::Catalog& catalog_;
    Document* document_;
    PlanRunner* runner_;
    std::vector<models::Json> options_;
    QStringList notes_;
    QDateEdit* start_;
    QCheckBox* hasDeadline_;
    QDateEdit* deadline_;
    QCheckBox* hasBudget_;
    QDoubleSpinBox* budget_;
    QCheckBox* hasPower_;
    QDoubleSpinBox* power_;
    QComboBox* mode_;
    QSpinBox* maxDevices_;
    QSpinBox* confirm_;
    QLineEdit* leadTimes_;
    QLineEdit* powerLimits_;
    QLineEdit* providers_;
    QListWidget* devices_;
    QTableWidget* table_;
    QLabel* detail_;
    QLabel* message_;
    QPushButton* plan_;
    QPushButton* cancel_;
    QPushButton* open_;
};

} // namespace choreo::ui
