// GatewayView: what the view does with the run it shows, beside drawing it: pin it as the
// baseline the time charts draw under later runs, and save it as a scenario that replays it.
#include <QAction>
#include <QFileInfo>

#include "gateway/gateway_view.h"
#include "gateway/week_time.h"

namespace taillab::ui {

void GatewayView::pinBaseline() {
    if (!drawn_ || !drawn_->snapshot) return;
    baseline_ = drawn_->snapshot;
    chartsSnapshot_.reset();  // redraw with the ghosts
    updateBaselineActions();
    if (!pending_) pending_ = drawn_;
    scheduler_->request(DirtyLevel::Data);
}

void GatewayView::clearBaseline() {
    baseline_.reset();
    chartsSnapshot_.reset();
    updateBaselineActions();
    if (!pending_) pending_ = drawn_;
    scheduler_->request(DirtyLevel::Data);
}

void GatewayView::updateBaselineActions() {
    pinAction_->setEnabled(drawn_ && drawn_->snapshot && drawn_->snapshot != baseline_);
    clearBaselineAction_->setEnabled(baseline_ != nullptr);
    if (baseline_) {
        clearBaselineAction_->setToolTip(
            tr("Stop drawing the pinned run (pinned at %1 of its run)")
                .arg(week_time::duration(baseline_->now_s)));
    }
}

std::optional<Scenario> GatewayView::scenarioOfRun(const std::string& name) const {
    if (!drawn_ || !drawn_->snapshot || !drawn_->timeline) return std::nullopt;
    return runAsScenario(spec_, name, drawn_->initialParams, drawn_->seed, *drawn_->timeline);
}

bool GatewayView::saveRun(const QString& path, QString* error) const {
    std::string why;
    const bool saved = saveRunAsScenario(
        path.toStdString(), [this](const std::string& name) { return scenarioOfRun(name); }, &why);
    if (!saved && error) *error = QString::fromStdString(why);
    return saved;
}

}  // namespace taillab::ui
