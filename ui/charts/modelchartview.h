#pragma once

#include <QWidget>

#include <functional>

QT_BEGIN_NAMESPACE
class QTimer;
class QAbstractItemModel;
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace choreo::ui {

// Shows a chart built from an item model and rebuilds it whenever the model changes, so that
// nothing outside ui/charts needs to know Qt Charts.
class ModelChartView : public QWidget {
    Q_OBJECT

public:
    using Builder = std::function<QChart*(const QAbstractItemModel&)>;

    // `model` must outlive the view; `build` returns a new chart for the model's current contents.
    ModelChartView(const QAbstractItemModel* model, Builder build, QWidget* parent = nullptr);

    // The chart on screen now (for tests and exports).
    [[nodiscard]] QChart* chart() const;
    // Writes the chart on screen to a file; false with `error` otherwise. The context menu offers both.
    bool exportPng(const QString& path, QString& error) const;
    bool exportSvg(const QString& path, QString& error) const;
    // Asks for a file name and exports as `format` ("png" or "svg"), reporting failures in a message box.
    void exportWithDialog(const QString& format);

private:
    void scheduleRebuild();
    void rebuild();
    void showMenu(const QPoint& position);

    const QAbstractItemModel* model_;
    Builder build_;
    QChartView* view_;
    QTimer* rebuildTimer_; // coalesces the model's bursts of change signals into one rebuild
};

} // namespace choreo::ui
