#include "chart_pane.h"
#include "palette_colors.h"

#include <QComboBox>
#include <QPainter>
#include <QSignalBlocker>
#include <QTabBar>
#include <QVBoxLayout>

#include "plots/chart_style.h"
#include "plots/chart_view.h"

namespace taillab::ui {
namespace {

// Whether the chart's y axis is in milliseconds, as its label says ("Latency (ms)"). A latency
// file's overlay is in ms: it belongs on those nines charts only, not on one in other units
// (power of d's time in system, in mean service times).
bool yInMilliseconds(const Chart& c) { return c.y_label.ends_with("(ms)"); }

}  // namespace

ChartPane::ChartPane(int preferredIndex, QWidget* parent)
    : QFrame(parent), preferredIndex_(preferredIndex) {
    setObjectName(QString("chartPane%1").arg(preferredIndex));
    layout_ = new QVBoxLayout(this);
    layout_->setContentsMargins(2, 2, 2, 2);
    layout_->setSpacing(2);
    tabs_ = new QTabBar(this);
    tabs_->setDocumentMode(true);
    tabs_->setExpanding(false);
    tabs_->setElideMode(Qt::ElideRight);
    tabs_->setUsesScrollButtons(true);
    layout_->addWidget(tabs_);
    combo_ = new QComboBox(this);
    combo_->setObjectName(QString("chartSelector%1").arg(preferredIndex));
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo_->setVisible(false);
    layout_->addWidget(combo_);
    placeholder_ = new QLabel(this);
    placeholder_->setAlignment(Qt::AlignCenter);
    QFont big = placeholder_->font();
    big.setPointSize(12);
    placeholder_->setFont(big);
    placeholder_->setForegroundRole(QPalette::PlaceholderText);
    placeholder_->setWordWrap(true);
    layout_->addWidget(placeholder_, 1);
    connect(tabs_, &QTabBar::currentChanged, this, &ChartPane::choose);
    connect(combo_, &QComboBox::currentIndexChanged, this, &ChartPane::choose);
    setActive(false);
}

void ChartPane::choose(int index) {
    if (!result_ || index < 0 || index >= static_cast<int>(result_->charts.size())) return;
    chosenId_ = result_->charts[static_cast<std::size_t>(index)].id;
    {
        const QSignalBlocker blockTabs(tabs_);
        const QSignalBlocker blockCombo(combo_);
        tabs_->setCurrentIndex(index);
        combo_->setCurrentIndex(index);
    }
    showCurrent();
    emit activated();
}

void ChartPane::resizeEvent(QResizeEvent* event) {
    QFrame::resizeEvent(event);
    updateSelectorMode();
}

// Tabs while every title fits in the pane's width, else the drop-down list.
void ChartPane::updateSelectorMode() {
    if (!result_ || result_->charts.empty()) {
        tabs_->setVisible(false);
        combo_->setVisible(false);
        return;
    }
    const QFontMetrics metrics(tabs_->font());
    int needed = 0;
    for (const Chart& c : result_->charts)
        needed += metrics.horizontalAdvance(QString::fromStdString(c.title)) + 28;
    const bool useTabs = needed <= width() - 8;
    tabs_->setVisible(useTabs);
    combo_->setVisible(!useTabs);
}

void ChartPane::setActive(bool active) {
    if (active == active_) return;
    active_ = active;
    update();
}

void ChartPane::paintEvent(QPaintEvent* event) {
    QFrame::paintEvent(event);
    const QColor border = active_ ? palette().color(QPalette::Highlight)
                                  : blend(palette().color(QPalette::Window),
                                          palette().color(QPalette::WindowText), 0.2);
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(border, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
}

void ChartPane::setPlaceholder(const QString& text) {
    result_.reset();
    placeholder_->setText(text);
    placeholder_->setVisible(true);
    tabs_->setVisible(false);
    combo_->setVisible(false);
    if (view_) view_->setVisible(false);
}

const Chart* ChartPane::chart() const {
    const int i = chartIndex();
    return i >= 0 ? &result_->charts[static_cast<std::size_t>(i)] : nullptr;
}

int ChartPane::chartIndex() const {
    if (!result_ || result_->charts.empty()) return -1;
    for (std::size_t i = 0; i < result_->charts.size(); ++i)
        if (result_->charts[i].id == chosenId_) return static_cast<int>(i);
    return std::min(preferredIndex_, static_cast<int>(result_->charts.size()) - 1);
}

void ChartPane::setBaseline(const LabResultPtr& baseline) {
    baseline_ = baseline;
    if (result_ && view_ && view_->isVisible()) showCurrent();
}

void ChartPane::setOverlays(std::vector<Series> overlays) {
    overlays_ = std::move(overlays);
    if (result_ && view_ && view_->isVisible()) showCurrent();
}

void ChartPane::showChart(int index) {
    if (index >= 0 && index < tabs_->count()) choose(index);
}

void ChartPane::setResult(const LabResultPtr& result, bool rebuild) {
    result_ = result;
    if (!result_ || result_->charts.empty()) {
        setPlaceholder(tr("This run produced no charts."));
        return;
    }
    const QSignalBlocker blockTabs(tabs_);
    const QSignalBlocker blockCombo(combo_);
    if (rebuild || tabs_->count() != static_cast<int>(result_->charts.size())) {
        while (tabs_->count() > 0) tabs_->removeTab(0);
        combo_->clear();
        for (const Chart& c : result_->charts) {
            const QString title = QString::fromStdString(c.title);
            const int i = tabs_->addTab(title);
            tabs_->setTabToolTip(i, title);
            combo_->addItem(title);
        }
    } else {
        // Same charts, but a title may say something new of this run (an overloaded run's
        // per-window chart says where its p99 sits): the selector reads as the chart does.
        for (int i = 0; i < tabs_->count(); ++i) {
            const QString title = QString::fromStdString(result_->charts[static_cast<std::size_t>(i)].title);
            if (tabs_->tabText(i) == title) continue;
            tabs_->setTabText(i, title);
            tabs_->setTabToolTip(i, title);
            combo_->setItemText(i, title);
        }
    }
    tabs_->setCurrentIndex(chartIndex());
    combo_->setCurrentIndex(chartIndex());
    updateSelectorMode();
    showCurrent();
}

void ChartPane::showCurrent() {
    const Chart* c = chart();
    if (!c) return;
    if (view_ && view_->kind() != c->kind) {
        delete view_;
        view_ = nullptr;
    }
    if (!view_) {
        view_ = ChartView::create(c->kind, this);
        layout_->addWidget(view_, 1);
        connect(view_, &ChartView::activated, this, &ChartPane::activated);
    }
    placeholder_->setVisible(false);
    view_->setVisible(true);
    // The run's timeline belongs on every time chart (in their x units).
    view_->setAnnotations(c->kind == ChartKind::Time ? result_->annotations
                                                     : std::vector<Annotation>{});
    // One colour for a series name in every chart of the lab, as the panes show two side by side.
    view_->setColourPlan(chart_style::colourPlan(result_->charts));
    std::vector<Series> ghosts;
    if (baseline_)
        for (const Chart& b : baseline_->charts)
            if (b.id == c->id && b.kind == c->kind) ghosts = b.series;
    if (ghosts.size() != view_->baseline().size() ||
        !std::equal(ghosts.begin(), ghosts.end(), view_->baseline().begin(),
                    [](const Series& a, const Series& b) { return a.name == b.name && a.x == b.x && a.y == b.y; }))
        view_->setBaseline(std::move(ghosts));
    if (c->kind == ChartKind::Percentile && yInMilliseconds(*c) && !overlays_.empty()) {
        Chart withOverlays = *c;
        withOverlays.series.insert(withOverlays.series.end(), overlays_.begin(), overlays_.end());
        view_->setChart(withOverlays);
        return;
    }
    view_->setChart(*c);
}

}  // namespace taillab::ui
