#include "gateway/gateway_chart_grid.h"

#include <QGridLayout>

#include "gateway/gateway_charts.h"
#include "plots/breaker_strip_chart.h"
#include "plots/gateway_time_chart.h"
#include "plots/percentile_chart.h"

namespace taillab::ui {

GatewayChartGrid::GatewayChartGrid(QWidget* parent) : QWidget(parent) {
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    percentiles_ = new GatewayTimeChart(this);
    nines_ = new PercentileChart(this);
    queue_ = new GatewayTimeChart(this);
    hedging_ = new GatewayTimeChart(this);
    breakers_ = new BreakerStripChart(this);
    cache_ = new GatewayTimeChart(this);
    // The whole run's distribution beside the percentiles per window: the two views of the same
    // latency read together.
    charts_ = {{gateway_charts::kPercentiles, percentiles_}, {gateway_charts::kLatencyNines, nines_},
               {gateway_charts::kQueue, queue_},             {gateway_charts::kHedging, hedging_},
               {gateway_charts::kBreakers, breakers_},       {gateway_charts::kCache, cache_}};
    for (std::size_t i = 0; i < charts_.size(); ++i)
        grid->addWidget(charts_[i].second, static_cast<int>(i / 3), static_cast<int>(i % 3));
    for (int c = 0; c < 3; ++c) grid->setColumnStretch(c, 1);
    for (int r = 0; r < 2; ++r) grid->setRowStretch(r, 1);
}

void GatewayChartGrid::setElapsedTime(bool elapsed) {
    elapsed_ = elapsed;
    for (GatewayTimeChart* c : {percentiles_, queue_, hedging_, cache_}) c->setElapsedTime(elapsed);
    breakers_->setElapsedTime(elapsed);
}

void GatewayChartGrid::setEmptyNote(const QString& note) {
    emptyNote_ = note;
    for (GatewayTimeChart* c : {percentiles_, queue_, hedging_, cache_}) c->setEmptyText(note);
}

void GatewayChartGrid::draw(const gateway::GatewaySnapshot& s, double offset_s,
                            std::optional<double> deadline_ms,
                            const gateway::GatewaySnapshot* baseline) {
    auto timeAxis = [this](Chart c) {
        if (elapsed_) c.x_label = kElapsedLabel;
        return c;
    };
    const std::vector<Annotation> annotations = gateway_charts::annotations(s, offset_s);
    // The run so far on every time chart's axis: a simulated run starts at time 0 (its first
    // day's midnight on the week's axis), a live one at 0 s since its start.
    const GatewayTimeChart::Span run{elapsed_ ? 0.0 : offset_s, s.now_s + offset_s};
    breakers_->setAnnotations(annotations);
    using Build = Chart (*)(const gateway::GatewaySnapshot&, double);
    const std::pair<GatewayTimeChart*, Build> series[] = {
        {percentiles_, &gateway_charts::percentiles},
        {queue_, &gateway_charts::queue},
        {hedging_, &gateway_charts::hedging},
        {cache_, &gateway_charts::cache}};
    cache_->setEmptyText(cacheOff_ ? tr("The cache is off in this run (Cache tiers: off): nothing is "
                                        "looked up, so there is no hit rate")
                                   : emptyNote_);
    for (const auto& [chart, build] : series) {
        chart->setAnnotations(annotations);
        // From the run's start to now, as the breaker strips' do.
        chart->setRunSpan(run);
        // The pinned run lines up with this one by time since its start.
        chart->setBaseline(baseline ? build(*baseline, offset_s).series : std::vector<Series>{});
        chart->setChart(timeAxis(build(s, offset_s)));
    }
    // Percentiles of six histograms: cheap enough for every frame; the series keep their names,
    // so the graphs stay and only their data is replaced.
    // The pinned run's whole-run curve (all requests) as a ghost: the class curves would bury it.
    std::vector<Series> ninesGhost;
    if (baseline)
        for (Series& series : gateway_charts::latencyNines(*baseline, std::nullopt).series)
            if (series.name == gateway_charts::kAllRequests) ninesGhost.push_back(std::move(series));
    nines_->setBaseline(ninesGhost);
    nines_->setChart(gateway_charts::latencyNines(s, deadline_ms));
    QStringList lanes;
    const int engines = static_cast<int>(s.engines.size());
    for (int lane = 0; lane < gateway::kRegions * engines; ++lane) {
        QString name = QString::fromStdString(gateway_charts::laneName(s, lane));
        if (static_cast<std::size_t>(lane) < s.breaker_state.size() &&
            s.breaker_state[static_cast<std::size_t>(lane)] != gateway::BreakerState::Closed)
            name += s.breaker_state[static_cast<std::size_t>(lane)] == gateway::BreakerState::Open
                        ? tr(" (open)")
                        : tr(" (half-open)");
        lanes << name;
    }
    breakers_->setLanes(lanes);
    breakers_->setRunSpan(run);
    breakers_->showStrips(timeAxis(gateway_charts::breakers(s, offset_s)));
}

}  // namespace taillab::ui
