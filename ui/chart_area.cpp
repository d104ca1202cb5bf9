#include "chart_area.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "chart_pane.h"
#include "plots/chart_view.h"

namespace taillab::ui {

ChartArea::ChartArea(QWidget* parent) : QWidget(parent) {
    setObjectName("chartArea");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    splitter_ = new QSplitter(Qt::Horizontal, this);
    splitter_->setChildrenCollapsible(false);
    layout->addWidget(splitter_);
    for (int i = 0; i < kPanes; ++i) {
        panes_[i] = new ChartPane(i, splitter_);
        splitter_->addWidget(panes_[i]);
        connect(panes_[i], &ChartPane::activated, this, [this, i] { setCurrentPane(i); });
    }
    setCurrentPane(0);
}

void ChartArea::setCurrentPane(int index) {
    if (index < 0 || index >= kPanes || !panes_[index]->isVisibleTo(this)) index = 0;
    const bool changed = index != current_;
    current_ = index;
    for (int i = 0; i < kPanes; ++i)
        panes_[i]->setActive(i == current_ && panes_[1]->isVisibleTo(this));
    if (changed) emit currentChanged();
}

void ChartArea::setResult(const LabResultPtr& result, bool rebuild) {
    const int charts = result ? static_cast<int>(result->charts.size()) : 0;
    panes_[0]->setResult(result, rebuild);
    panes_[1]->setVisible(charts > 1);
    if (charts > 1) panes_[1]->setResult(result, rebuild);
    setCurrentPane(current_);
}

void ChartArea::setBaseline(const LabResultPtr& baseline) {
    for (ChartPane* p : panes_) p->setBaseline(baseline);
}

void ChartArea::setOverlays(const std::vector<Series>& overlays) {
    for (ChartPane* p : panes_) p->setOverlays(overlays);
}

void ChartArea::setPlaceholder(const QString& text) {
    panes_[0]->setPlaceholder(text);
    panes_[1]->setVisible(false);
    setCurrentPane(0);
}

ChartView* ChartArea::currentView() const {
    ChartPane* p = panes_[current_];
    return p->chart() ? p->view() : nullptr;
}

const Chart* ChartArea::currentChart() const { return panes_[current_]->chart(); }

void ChartArea::resetView() {
    if (ChartView* v = currentView()) v->resetView();
}

}  // namespace taillab::ui
