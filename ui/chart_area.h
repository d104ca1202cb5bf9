// The charts of the current result, two at once side by side (by default the result's first two
// charts: the distribution and the key figure), each pane with tabs to show any other chart.
// The pane last clicked is the current one: export and the chart actions apply to it.
#pragma once

#include <QWidget>

#include "lab_result_ptr.h"
#include "labs/lab_result.h"

class QSplitter;

namespace taillab::ui {

class ChartPane;
class ChartView;

class ChartArea : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kPanes = 2;

    explicit ChartArea(QWidget* parent = nullptr);

    // Shows `result`. rebuild=true when the lab or scenario changed (tabs and views rebuilt and
    // zoom forgotten); otherwise only the data of the shown charts is replaced.
    void setResult(const LabResultPtr& result, bool rebuild);
    void setPlaceholder(const QString& text);
    ChartView* currentView() const;
    const Chart* currentChart() const;
    ChartPane* pane(int index) const { return panes_[index]; }
    void setCurrentPane(int index);
    void resetView();
    // Draws the pinned result's charts as ghosts under the shown ones (nullptr: none).
    void setBaseline(const LabResultPtr& baseline);
    // Measured distributions drawn on every percentile chart shown.
    void setOverlays(const std::vector<Series>& overlays);

  signals:
    void currentChanged();

  private:
    ChartPane* panes_[kPanes] = {};
    int current_ = 0;
    QSplitter* splitter_ = nullptr;
};

}  // namespace taillab::ui
