#include "live/live_stack.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "base/format.h"
#include "gateway_sim/sim_config.h"
#include "live/fleet_admin.h"
#include "live/fleet_server.h"
#include "live/gateway_server.h"
#include "live/loop.h"
#include "live/serve_setup.h"
#include "live/workload_plan.h"

namespace taillab::live {
namespace {

std::optional<double> ms(const HdrHistogram& h, double p) {
    if (h.empty()) return std::nullopt;
    return static_cast<double>(h.valueAtPercentile(p)) / 1000.0;
}

}  // namespace

struct LiveStack::Impl {
    Impl(const Scenario& s, LiveStackOptions o) : scenario(s), options(std::move(o)) {}

    Scenario scenario;
    LiveStackOptions options;
    Loop fleetLoop, gatewayLoop;  // destroyed after the servers on them
    std::unique_ptr<FleetServer> fleet;
    std::unique_ptr<GatewayServer> gateway;
    std::unique_ptr<LoadGenerator> generator;
    std::thread loadThread;

    mutable std::mutex mutex;  // guards what follows
    std::condition_variable loadDone;
    bool started = false, stopped = false, finished = false;
    std::optional<Time> startedAt;  // gatewayLoop's clock at start(), once started
    LoadResult result;
    LoadProgress progress;
    HdrHistogram uncorrectedTotal{loadHistogramConfig()};
    std::vector<TimelineEvent> recorded;  // the run's own changes
    std::uint64_t nextFault = 1;
    std::vector<std::string> notes;
    std::optional<LoadScaling> scaling;  // how the rate became a load_multiplier (the scenario's own arrivals)
    std::mutex changeMutex;  // one change at a time reaches both servers

    void onInterval(const LoadInterval& i) {
        {
            std::lock_guard lock(mutex);
            progress.counts = i.counts;
            progress.elapsed_s = i.start_s + i.length_s;
            if (i.uncorrected) uncorrectedTotal.merge(*i.uncorrected);
            if (i.corrected_total) {
                progress.corrected_p50_ms = ms(*i.corrected_total, 50);
                progress.corrected_p99_ms = ms(*i.corrected_total, 99);
            }
            progress.uncorrected_p50_ms = ms(uncorrectedTotal, 50);
            progress.uncorrected_p99_ms = ms(uncorrectedTotal, 99);
            if (i.lag_total) progress.lag_p99_ms = ms(*i.lag_total, 99);
        }
        if (options.on_interval) options.on_interval(i);
    }

    double runSeconds() const {
        std::optional<Time> since;
        {
            std::lock_guard lock(mutex);
            since = startedAt;
        }
        return since ? toSeconds(gatewayLoop.now() - *since) : 0.0;
    }
    // The scenario's clock: what a saved run's timeline is written in.
    double scenarioSeconds() const { return toSeconds(options.start_at) + runSeconds(); }
};

LiveStack::LiveStack(const Scenario& scenario, LiveStackOptions options)
    : impl_(std::make_unique<Impl>(scenario, std::move(options))) {
    Impl& m = *impl_;
    if (scenario.lab != "gateway")
        throw std::invalid_argument("a live run needs a gateway scenario, not a '" + scenario.lab + "' lab");
    if (!m.options.load && !(m.options.rate_per_s > 0))
        throw std::invalid_argument("the rate must be above 0 requests per second");
    // The scenario's own arrivals, scaled so that the first hour's mean rate is the one asked for
    // (the servers run the scaled scenario, so a saved run replays the same arrivals).
    std::shared_ptr<WorkloadPlan> arrivals;
    if (!m.options.load) {
        arrivals = std::make_shared<WorkloadPlan>(scenario, m.options.rate_per_s, m.options.start_at,
                                                  m.options.duration);
        m.scenario = arrivals->scenario();
        m.scaling = arrivals->scaling();
        m.notes = arrivals->notes();
        const double window = toSeconds(m.scaling->window);
        char line[320];
        std::snprintf(line, sizeof line,
                      "the load sends the scenario's own arrivals (its customers' keys and pins, queries, agent "
                      "bursts and surges) from %s on, scaled by load_multiplier %.3g to about %.4g requests a "
                      "second over %s",
                      formatRunTime(toSeconds(m.options.start_at),
                                    static_cast<int>(m.scenario.params.choiceIndex("start_day")))
                          .c_str(),
                      arrivals->loadMultiplier(), m.scaling->offered_rate_per_s,
                      window >= 3600 ? "the first hour" : formatNumbers("its %.4g s", window).c_str());
        m.notes.push_back(line);
    }
    GatewaySetup setup = gatewaySetup(m.scenario);
    setup.start_at = m.options.start_at;
    FleetServerOptions fleetOptions;
    fleetOptions.start_at = m.options.start_at;
    m.fleet = std::make_unique<FleetServer>(m.fleetLoop, m.scenario, fleetOptions);
    std::vector<std::string> upstreamArgs;
    for (const auto& [name, url] : m.fleet->engineUrls()) upstreamArgs.push_back(name + "=" + url);
    m.gateway = std::make_unique<GatewayServer>(m.gatewayLoop, HostPort{"127.0.0.1", 0}, setup,
                                                upstreamUrls(setup.config, upstreamArgs), m.scenario.seed);
    LoadConfig c;
    if (m.options.load) {
        c = *m.options.load;
    } else {
        c.duration = std::min<Duration>(m.options.duration, arrivals->remaining());
        c.connections = m.options.connections;
        // The rate offered: what the summary's header reports, and what sizes the connection pool.
        c.schedule = RateSchedule::constant(m.scaling->offered_rate_per_s);
        c.plan_source = WorkloadPlan::source(arrivals);
        // The plan applies the surges the fleet leaves out: their notes would say otherwise.
        for (const std::string& n : m.fleet->notes())
            if (n.find(kSurgeNotTheFleets) == std::string::npos) m.notes.push_back(n);
    }
    c.url = Url{m.gateway->bound(), "/search/lite"};
    m.generator = std::make_unique<LoadGenerator>(c);
}

LiveStack::~LiveStack() { stop(); }

void LiveStack::start() {
    Impl& m = *impl_;
    {
        std::lock_guard lock(m.mutex);
        if (m.started) throw std::logic_error("a live stack starts once");
        m.started = true;
    }
    m.fleetLoop.start();
    m.gatewayLoop.start();
    m.fleet->start();
    m.gateway->start();
    const Time startedAt = fromSeconds(m.gateway->startedAt());
    {
        std::lock_guard lock(m.mutex);
        m.startedAt = startedAt;
    }
    m.loadThread = std::thread([&m] {
        LoadResult r;
        std::string error;
        try {
            r = m.generator->run([&m](const LoadInterval& i) { m.onInterval(i); });
        } catch (const std::exception& e) {  // a bad window from the plan: the run ends, saying why
            error = e.what();
        }
        std::lock_guard lock(m.mutex);
        m.progress.error = std::move(error);
        m.result = std::move(r);
        m.progress.counts = m.result.counts;
        m.progress.elapsed_s = m.result.elapsed_s;
        m.progress.corrected_p50_ms = ms(m.result.corrected, 50);
        m.progress.corrected_p99_ms = ms(m.result.corrected, 99);
        m.progress.uncorrected_p50_ms = ms(m.result.uncorrected, 50);
        m.progress.uncorrected_p99_ms = ms(m.result.uncorrected, 99);
        m.progress.lag_p99_ms = ms(m.result.lag, 99);
        m.progress.finished = true;
        m.finished = true;
        m.loadDone.notify_all();
    });
}

void LiveStack::waitForLoad() {
    Impl& m = *impl_;
    std::unique_lock lock(m.mutex);
    if (!m.started) return;
    m.loadDone.wait(lock, [&] { return m.finished; });
}

bool LiveStack::waitForLoad(Duration timeout) {
    Impl& m = *impl_;
    std::unique_lock lock(m.mutex);
    if (!m.started) return false;
    return m.loadDone.wait_for(lock, timeout, [&] { return m.finished; });
}

void LiveStack::stop() {
    Impl& m = *impl_;
    {
        std::lock_guard lock(m.mutex);
        if (!m.started || m.stopped) return;
        m.stopped = true;
    }
    m.generator->stop();
    if (m.loadThread.joinable()) m.loadThread.join();
    m.gateway->stop();
    m.fleet->stop();
}

bool LiveStack::running() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->started && !impl_->stopped && !impl_->finished;
}

gateway::GatewaySnapshot LiveStack::snapshot() { return impl_->gateway->snapshot(); }

LoadProgress LiveStack::load() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->progress;
}

const LoadResult& LiveStack::loadResult() const {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->finished) throw std::logic_error("the load has not finished");
    return impl_->result;
}

const LoadConfig& LiveStack::loadConfig() const { return impl_->generator->config(); }

void LiveStack::applyParams(const Params& params) {
    // As the knobs that differ from those in force now, so that the change is one code path.
    std::vector<KnobSetting> changes;
    for (const std::string& k : gateway::changedKnobs(impl_->gateway->params(), params))
        changes.push_back(KnobSetting{k, params.real(k)});
    if (!changes.empty()) applyChanges(changes);
}

void LiveStack::applyChanges(const std::vector<KnobSetting>& changes) {
    Impl& m = *impl_;
    std::lock_guard change(m.changeMutex);
    {
        // Both check before either changes: the fleet's share first (it cannot fail once built).
        Params check = m.gateway->params();
        for (const KnobSetting& c : changes) check.set(c.key, c.value);
        (void)gateway::fleetConfigFromParams(check);
    }
    const auto [from, to] = m.gateway->applyChanges(changes);
    const std::vector<std::string> keys = gateway::changedKnobs(from, to);
    if (keys.empty()) return;
    m.fleet->applyParams(to);
    TimelineEvent e;
    e.at_s = m.scenarioSeconds();
    std::vector<std::string> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& k : sorted) e.set.push_back(KnobSetting{k, to.real(k)});
    e.label = defaultLabel(e, to.specs());
    std::lock_guard lock(m.mutex);
    m.recorded.push_back(std::move(e));
}

Params LiveStack::params() { return impl_->gateway->params(); }

std::string LiveStack::injectFault(const Fault& fault, std::optional<double> duration_s, std::string label) {
    Impl& m = *impl_;
    std::lock_guard change(m.changeMutex);
    if (duration_s && !(*duration_s > 0)) throw std::invalid_argument("a fault's duration must be above 0 s");
    TimelineEvent e;
    e.fault = fault;
    if (label.empty()) label = defaultLabel(e, m.scenario.params.specs());
    std::string id;
    {
        std::lock_guard lock(m.mutex);
        id = "live-" + std::to_string(m.nextFault++);
    }
    m.fleet->addFault(id, fault, label, duration_s ? std::optional(fromSeconds(*duration_s)) : std::nullopt);
    e.at_s = m.scenarioSeconds();
    if (duration_s) e.until_s = e.at_s + *duration_s;
    e.label = label;
    const double now = m.gateway->nowSeconds();
    m.gateway->addMark(gateway::TimelineMark{now, duration_s ? std::optional(now + *duration_s) : std::nullopt,
                                             gateway::MarkKind::Fault, label, {}, {}});
    e.path = id;  // which recorded event removeFault ends
    std::lock_guard lock(m.mutex);
    m.recorded.push_back(std::move(e));
    return id;
}

bool LiveStack::removeFault(const std::string& id) {
    Impl& m = *impl_;
    std::lock_guard change(m.changeMutex);
    if (!m.fleet->removeFault(id)) return false;
    const double at = m.scenarioSeconds();
    std::lock_guard lock(m.mutex);
    for (TimelineEvent& e : m.recorded)
        if (e.path == id && (!e.until_s || *e.until_s > at)) e.until_s = at;
    return true;
}

double LiveStack::runSeconds() const { return impl_->runSeconds(); }
double LiveStack::nowSeconds() { return impl_->gateway->nowSeconds(); }
double LiveStack::startedAt() { return impl_->gateway->startedAt(); }

Scenario LiveStack::scenarioOfRun(const std::string& name) const {
    const Impl& m = *impl_;
    Scenario s = m.scenario;
    s.name = name;
    std::lock_guard lock(m.mutex);
    for (TimelineEvent e : m.recorded) {
        e.path.clear();
        if (e.fault && e.until_s && *e.until_s <= e.at_s) continue;  // removed at once: nothing to replay
        s.timeline.events.push_back(std::move(e));
    }
    std::stable_sort(s.timeline.events.begin(), s.timeline.events.end(),
                     [](const TimelineEvent& a, const TimelineEvent& b) { return a.at_s < b.at_s; });
    return s;
}

std::string LiveStack::gatewayUrl() const {
    return "http://" + toString(impl_->gateway->bound());
}

const Scenario& LiveStack::scenario() const { return impl_->scenario; }

const std::vector<std::string>& LiveStack::notes() const { return impl_->notes; }

const std::optional<LoadScaling>& LiveStack::scaling() const { return impl_->scaling; }

}  // namespace taillab::live
