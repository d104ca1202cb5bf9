#include "gateway/sweep_panel.h"

#include <QCheckBox>

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gateway/gateway_charts.h"
#include "plots/sweep_chart.h"

namespace taillab::ui {
namespace {

// One label per point, in delay order. Points that land on the same spot (the hedge budget caps
// the extra load of short delays alike) share one label, "150, 250 ms", on the first of them.
std::vector<QString> delayLabels(std::vector<SweepPoint> points) {
    std::sort(points.begin(), points.end(),
              [](const auto& a, const auto& b) { return a.delay_ms < b.delay_ms; });
    std::vector<QString> out(points.size());
    std::vector<bool> taken(points.size(), false);
    auto same = [](const SweepPoint& a, const SweepPoint& b) {
        return std::abs(a.extra_load - b.extra_load) < 0.002 &&
               std::abs(a.p99_ms - b.p99_ms) <= 0.005 * std::max(1.0, a.p99_ms);
    };
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (taken[i]) continue;
        QStringList delays;
        for (std::size_t j = i; j < points.size(); ++j)
            if (!taken[j] && same(points[i], points[j])) {
                taken[j] = true;
                delays << QString::number(points[j].delay_ms, 'g', 6);
            }
        out[i] = delays.join(", ") + " ms";
    }
    return out;
}

// "1 simulated day", "3 simulated days".
QString simulatedDays(int days) {
    return days == 1 ? SweepPanel::tr("1 simulated day")
                     : SweepPanel::tr("%1 simulated days").arg(days);
}

}  // namespace

SweepPanel::SweepPanel(std::function<std::pair<Params, std::uint64_t>()> currentParams,
                       QWidget* parent)
    : QWidget(parent), currentParams_(std::move(currentParams)), runner_(new HedgeSweepRunner(this)) {
    setObjectName("gatewaySweepPanel");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    auto* controls = new QGridLayout;
    controls->setHorizontalSpacing(8);
    auto* delaysLabel = new QLabel(tr("Fixed hedge delays (ms)"), this);
    delays_ = new QLineEdit("150, 250, 350, 420, 500, 600", this);
    delays_->setObjectName("gatewaySweepDelays");
    // Every default delay in view, the first ones too: a field narrower than its text shows its
    // end (the cursor's), and "350, 420, 500, 600" hid two of the six points the chart draws.
    delays_->setCursorPosition(0);
    delays_->setMinimumWidth(delays_->fontMetrics().horizontalAdvance(delays_->text() + "  ") +
                             delays_->sizeHint().height());
    delays_->setToolTip(tr("One full run per delay, hedge mode 'fixed'; comma-separated, in ms"));
    delaysLabel->setBuddy(delays_);
    auto* daysLabel = new QLabel(tr("Simulated days per point"), this);
    days_ = new QSpinBox(this);
    days_->setObjectName("gatewaySweepDays");
    days_->setRange(1, 7);
    days_->setValue(1);
    days_->setSuffix(tr(" d"));
    days_->setToolTip(tr("Days of seed 000's week each point simulates, from the knobs' first day"));
    daysLabel->setBuddy(days_);
    shadow_ = new QCheckBox(tr("As seed 000's shadow test"), this);
    shadow_->setObjectName("gatewaySweepShadow");
    shadow_->setChecked(true);
    shadow_->setToolTip(tr("Mirrored upstream traffic, as the published sweep was measured: no "
                           "cache in front, no deadline, a hedge budget that never binds. "
                           "Unchecked: the current knobs with a fixed delay."));
    run_ = new QPushButton(tr("Run sweep"), this);
    run_->setObjectName("gatewaySweepRun");
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setFormat(tr("%v of %m points"));
    progress_->setRange(0, 1);
    progress_->setValue(0);
    status_ = new QLabel(this);
    status_->setObjectName("gatewaySweepStatus");
    status_->setWordWrap(true);
    controls->addWidget(delaysLabel, 0, 0);
    controls->addWidget(delays_, 0, 1);
    controls->addWidget(daysLabel, 0, 2);
    controls->addWidget(days_, 0, 3);
    controls->addWidget(shadow_, 0, 4);
    controls->addWidget(run_, 0, 5);
    controls->addWidget(cancel_, 0, 6);
    controls->setColumnStretch(1, 1);
    layout->addLayout(controls);
    // The progress sits beside the status line, leaving the controls' row the room to show every
    // delay at 1280 px.
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(status_, 1);
    statusRow->addWidget(progress_);
    layout->addLayout(statusRow);

    chart_ = new SweepChart(this);
    chart_->setObjectName("gatewaySweepChart");
    layout->addWidget(chart_, 1);

    connect(run_, &QPushButton::clicked, this, [this] { run(); });
    connect(cancel_, &QPushButton::clicked, this, &SweepPanel::cancel);
    connect(runner_, &HedgeSweepRunner::pointDone, this, [this](int, SweepPoint p) {
        simulated_.push_back(p);
        progress_->setValue(static_cast<int>(simulated_.size()));
        redraw();
    });
    connect(runner_, &HedgeSweepRunner::failed, this,
            [this](const QString& m) { status_->setText(tr("The sweep failed: %1").arg(m)); });
    connect(runner_, &HedgeSweepRunner::finished, this, [this](bool cancelled) {
        run_->setEnabled(true);
        cancel_->setEnabled(false);
        if (cancelled && !status_->text().startsWith(tr("The sweep failed")))
            status_->setText(tr("Cancelled after %1 of %2 points.")
                                 .arg(simulated_.size())
                                 .arg(running_.size()));
        else if (!cancelled)
            status_->setText(tr("Done: %1 points, each a full run of %2 with %3 and hedge "
                                "mode 'fixed'.")
                                 .arg(simulated_.size())
                                 .arg(simulatedDays(days_->value()))
                                 .arg(shadow_->isChecked() ? tr("the shadow test's settings")
                                                           : tr("the current knobs")));
        emit finished(cancelled);
    });
    redraw();
}

std::vector<double> SweepPanel::parseDelays(const QString& text) {
    std::vector<double> out;
    for (const QString& part :
         text.split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts)) {
        bool ok = false;
        const double v = QString(part).remove("ms").toDouble(&ok);
        if (!ok || v < 0 || v > 5000) return {};
        out.push_back(v);
    }
    return out;
}

void SweepPanel::setPublished(std::vector<SweepPoint> points, const QString& source) {
    published_ = std::move(points);
    if (!published_.empty())
        chart_->setToolTip(tr("Published points: %1").arg(source));
    redraw();
}

SweepPanel::Settings SweepPanel::plannedSettings() const {
    Settings s;
    auto [params, seed] = currentParams_();
    if (shadow_->isChecked()) {
        params.set("cache_tiers", 0);
        params.set("coalescing", 0);
        params.set("stale_while_revalidate", 0);
        params.set("deadline_ms", 60000);
        params.set("hedge_budget", 1);
    }
    // As every point runs (runHedgeSweepPoint): a fixed delay, for `days` days.
    params.set("hedge_mode", 1);
    params.set("days", days_->value());
    s.params = std::move(params);
    s.seed = seed;
    s.delays_ms = parseDelays(delays_->text());
    std::sort(s.delays_ms.begin(), s.delays_ms.end());
    s.days = days_->value();
    s.shadow = shadow_->isChecked();
    return s;
}

SweepPanel::Settings SweepPanel::settings() const { return ran_ ? *ran_ : plannedSettings(); }

PointColumn SweepPanel::delayColumn() const {
    // In the chart's order: each series by delay (gateway_charts::sweep).
    auto delays = [](std::vector<SweepPoint> points) {
        std::sort(points.begin(), points.end(),
                  [](const auto& a, const auto& b) { return a.delay_ms < b.delay_ms; });
        std::vector<nlohmann::ordered_json> out;
        for (const SweepPoint& p : points) out.push_back(jsonNumber(p.delay_ms));
        return out;
    };
    PointColumn c{"hedge_delay_ms", {delays(simulated_)}};
    if (!published_.empty()) c.values.push_back(delays(published_));
    return c;
}

bool SweepPanel::run() {
    const std::vector<double> delays = parseDelays(delays_->text());
    if (delays.empty()) {
        status_->setText(tr("Delays must be numbers of milliseconds between 0 and 5000, "
                            "separated by commas."));
        return false;
    }
    Settings planned = plannedSettings();
    planned.ran = true;
    const Params params = planned.params;
    const std::uint64_t seed = planned.seed;
    ran_ = std::move(planned);
    running_ = delays;
    simulated_.clear();
    progress_->setRange(0, static_cast<int>(delays.size()));
    progress_->setValue(0);
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    runner_->start(params, seed, delays, days_->value());
    status_->setText(tr("Running %1 points on %2 threads, each a full run of %3…")
                         .arg(delays.size())
                         .arg(runner_->threadCount())
                         .arg(simulatedDays(days_->value())));
    redraw();
    return true;
}

void SweepPanel::cancel() { runner_->cancel(); }

void SweepPanel::redraw() {
    chartData_ = gateway_charts::sweep(simulated_, published_);
    std::vector<std::vector<QString>> labels{delayLabels(simulated_)};
    if (!published_.empty()) labels.push_back(delayLabels(published_));
    chart_->setPointLabels(std::move(labels));
    chart_->setChart(chartData_);
}

}  // namespace taillab::ui
