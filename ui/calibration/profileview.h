#pragma once

#include "models/catalog.h"
#include "models/profile.h"

#include <QString>
#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QLabel;
class QTableView;
QT_END_NAMESPACE

namespace choreo::ui {

class ModelChartView;
class ProfileComparisonModel;
class ProfileFigureModel;
class ProfileGemmModel;

// One calibration profile: who was measured, GEMM efficiency against size per precision, memory
// bandwidth and power per phase against the spec sheet, the host CPU's figures, and every row of spec
// sheet against measured.
class ProfileView : public QWidget {
    Q_OBJECT

public:
    // `catalog` gives the spec sheet of the device a profile refines; it must outlive the view.
    explicit ProfileView(const models::Catalog& catalog, QWidget* parent = nullptr);

    // Loads and shows a profile file; false with `error` (every problem, with its JSON path) otherwise,
    // leaving the view as it was.
    bool openFile(const QString& path, QString& error);
    void setProfile(const models::Profile& profile);

    [[nodiscard]] const std::optional<models::Profile>& profile() const { return profile_; }
    [[nodiscard]] ProfileGemmModel* gemmModel() const { return gemm_; }
    [[nodiscard]] ProfileComparisonModel* comparisonModel() const { return comparison_; }
    [[nodiscard]] ProfileFigureModel* cpuModel() const { return cpu_; }
    [[nodiscard]] ModelChartView* gemmChart() const { return gemmChart_; }
    [[nodiscard]] ModelChartView* bandwidthChart() const { return bandwidthChart_; }
    [[nodiscard]] ModelChartView* powerChart() const { return powerChart_; }

private:
    const models::Catalog& catalog_;
    std::optional<models::Profile> profile_;
    ProfileGemmModel* gemm_;
    ProfileComparisonModel* comparison_;
    ProfileFigureModel* cpu_;
    QLabel* header_;
    QLabel* notes_;
    ModelChartView* gemmChart_;
    ModelChartView* bandwidthChart_;
    ModelChartView* powerChart_;
    QTableView* comparisonTable_;
    QTableView* cpuTable_;
};

} // namespace choreo::ui
