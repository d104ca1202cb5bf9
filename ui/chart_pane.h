// One chart slot of the chart area: a selector naming every chart of the result (tabs when their
// titles fit, a drop-down list when they do not) and the view of the chosen chart (a ChartView of
// the chart's kind, recreated only when the kind changes).
#pragma once

#include <QFrame>
#include <vector>

#include "lab_result_ptr.h"

class QTabBar;
class QComboBox;
class QLabel;
class QVBoxLayout;

namespace taillab::ui {

class ChartView;

class ChartPane : public QFrame {
    Q_OBJECT
  public:
    ChartPane(int preferredIndex, QWidget* parent = nullptr);

    // New result: rebuild=true when the set of charts changed (new tabs, maybe new views).
    void setResult(const LabResultPtr& result, bool rebuild);
    void setActive(bool active);
    // A pinned result: the shown chart draws the chart of the same id from it as ghosts.
    void setBaseline(const LabResultPtr& baseline);
    // Measured distributions (in ms) drawn on the shown chart when it is a percentile (nines)
    // chart whose y axis is in ms.
    void setOverlays(std::vector<Series> overlays);
    void setPlaceholder(const QString& text);
    ChartView* view() const { return view_; }
    const Chart* chart() const;
    int chartIndex() const;
    void showChart(int index);

  signals:
    void activated();

  protected:
    void resizeEvent(QResizeEvent* event) override;
    // The border, drawn from the palette: a style sheet here would stop the application's
    // palette from reaching the chart inside, which then kept the old theme after a switch.
    void paintEvent(QPaintEvent* event) override;

  private:
    void choose(int index);
    void showCurrent();
    void updateSelectorMode();

    int preferredIndex_;
    std::string chosenId_;  // the user's choice, kept across results
    LabResultPtr result_;
    LabResultPtr baseline_;
    std::vector<Series> overlays_;
    QTabBar* tabs_ = nullptr;
    QComboBox* combo_ = nullptr;
    QLabel* placeholder_ = nullptr;
    ChartView* view_ = nullptr;
    QVBoxLayout* layout_ = nullptr;
    bool active_ = false;
};

}  // namespace taillab::ui
