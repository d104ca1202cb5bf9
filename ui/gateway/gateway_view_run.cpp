// GatewayView: what the view does with the run it shows, beside drawing it: save it as a
// scenario that replays it.
#include <QFileInfo>

#include "gateway/gateway_view.h"

namespace taillab::ui {

std::optional<Scenario> GatewayView::scenarioOfRun(const std::string& name) const {
    if (!drawn_ || !drawn_->snapshot || !drawn_->timeline) return std::nullopt;
    return runAsScenario(spec_, name, drawn_->initialParams, drawn_->seed, *drawn_->timeline);
}

bool GatewayView::saveRun(const QString& path, QString* error) const {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const std::optional<Scenario> s =
        scenarioOfRun(scenarioNameFor(QFileInfo(path).fileName().toStdString()));
    if (!s) return fail(tr("There is no run to save yet."));
    try {
        saveScenarioFile(path.toStdString(), *s);
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    return true;
}

}  // namespace taillab::ui
