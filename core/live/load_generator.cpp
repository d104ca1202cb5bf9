#include "live/load_generator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <future>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "gateway/gateway_types.h"
#include "workload/workload.h"

namespace taillab::live {
namespace {

using std::chrono::nanoseconds;
using TimePoint = SteadyClock::time_point;

// Work per turn of the loop before answers, timers and progress get theirs: a generator that has
// fallen behind catches up in slices instead of starving the completions it must also time. Sends
// (a request written) cost far more than the rest (a send time taken, a timeout counted).
constexpr int kSendBatch = 256;
constexpr int kCheapBatch = 8192;

// How often the loop looks at stop() (a signal handler can only set a flag), and how long the
// requests in flight then have to answer before they are abandoned: a stop takes effect within
// a few tenths of a second, whatever the timeout.
constexpr Duration kStopPoll = std::chrono::milliseconds(50);
constexpr Duration kStopGrace = std::chrono::milliseconds(300);

std::int64_t micros(SteadyClock::duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

std::string millis(std::int64_t micros) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(micros) / 1000.0);
    return buf;
}

double seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

bool validHeaderToken(const std::string& s) {
    if (s.empty()) return false;
    for (const char c : s)
        if (c <= ' ' || c == 0x7f || c == ',') return false;
    return true;
}

// Planned requests, all in [from, to) and in time order, each sendable. Throws
// std::invalid_argument naming the first that is not (its index within `plan`).
void checkWindow(const std::vector<PlannedRequest>& plan, nanoseconds from, nanoseconds to) {
    const auto fieldOk = [](const std::string& v) {
        for (const char ch : v) {
            const auto b = static_cast<unsigned char>(ch);
            if ((b < 0x20 && b != '\t') || b == 0x7f) return false;
        }
        return true;
    };
    for (std::size_t i = 0; i < plan.size(); ++i) {
        const PlannedRequest& r = plan[i];
        const auto fail = [i](const char* what) {
            throw std::invalid_argument("planned request " + std::to_string(i) + ": " + what);
        };
        if (r.at < from || r.at >= to) fail("its time lies outside the run's duration");
        if (i > 0 && r.at < plan[i - 1].at) fail("earlier than the one before");
        if (r.target.empty() || r.target[0] != '/' || !validHeaderToken(r.target))
            fail("the target must be a path starting with '/'");
        if (!r.key.empty() && !validHeaderToken(r.key)) fail("unsendable API key");
        if (!fieldOk(r.region) || !fieldOk(r.request_id)) fail("a header value holds a control character");
    }
}

// A source's window: long enough that producing it is rare, short enough to hold little.
constexpr nanoseconds kPlanWindow = std::chrono::seconds(2);

// One window of a source's plan, produced and checked.
struct PlanWindow {
    nanoseconds to{};
    std::vector<PlannedRequest> requests;
};

PlanWindow produceWindow(const PlanSource& source, nanoseconds from, nanoseconds to) {
    PlanWindow w;
    w.to = to;
    source(from, to, w.requests);
    checkWindow(w.requests, from, to);
    return w;
}

// One run's state; lives on run()'s stack and is touched only by its loop's thread (run()'s).
//
// Every request is "reached" once its intended time has come: its lag is recorded and it joins
// the backlog, a FIFO of requests waiting for a connection. The backlog's front is sent as soon as
// fewer than `connections` requests are in flight, and fails as a timeout once its intended time
// is `timeout` ago, so every request ends by intended + timeout and the run by duration + timeout.
// The backlog holds no request bytes: runs of requests reached at one moment, their intended
// times taken again from a second walk of the schedule (or the plan) as they leave it, so a
// backlog of millions costs a few bytes each, and a request is written only when it can be sent.
class Run {
  public:
    Run(const LoadConfig& config, const std::vector<std::string>& bodies, std::atomic<bool>& stop,
        const LoadGenerator::IntervalCallback& onInterval)
        : config_(config),
          bodies_(bodies),
          stop_(stop),
          onInterval_(onInterval),
          client_(loop_, HttpClientOptions{config.connections}),
          sendTimer_(loop_, [this] { onSend(); }),
          tickTimer_(loop_, [this] { onTick(); }),
          expiryTimer_(loop_, [this] { drain(); }),
          stopTimer_(loop_, [this] { onStopTimer(); }),
          times_(config.schedule, config.duration),
          frontTimes_(times_) {
        result_.connections = config.connections;
        result_.schedule_s = seconds(config.duration);
    }

    LoadResult run() {
        // A source's first window is produced before the clock starts (producing one can take a
        // while: a workload plan draws a whole hour of arrivals at once), and each next one
        // while the one before is sent, so that no send waits for one.
        if (config_.plan_source)
            installWindow(produceWindow(config_.plan_source, nanoseconds::zero(),
                                        std::min(kPlanWindow, config_.duration)));
        t0_ = SteadyClock::now();
        lastAnswer_ = t0_;
        result_.start_epoch_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
        if (!config_.plan_source) result_.intended = intendedBefore(config_.duration);
        next_ = nextIntended();
        scheduleTick();
        stopTimer_.setAfter(kStopPoll);
        onSend();
        loop_.run();
        if (config_.plan_source)
            result_.intended = windows_.empty() ? 0 : windows_.back().base + windows_.back().requests.size();
        // A stopped run lasted until it ended, whenever its last answer came.
        result_.elapsed_s = seconds((result_.stopped_early ? std::max(lastAnswer_, endedAt_) : lastAnswer_) - t0_);
        if (result_.stopped_early) result_.stopped_at_s = seconds(stoppedAt_ - t0_);
        result_.peak_connections = client_.poolStats(config_.url.at).peak_open;
        return std::move(result_);
    }

  private:
    // Reaches the requests that are due (a slice at a time), then sends what it can.
    void onSend() {
        if (stop_.load()) return beginStop();
        const TimePoint now = SteadyClock::now();
        for (int n = 0; next_ && n < kCheapBatch; ++n) {
            const TimePoint intended = t0_ + *next_;
            if (intended > now) break;
            if (!windowDue_) reach(intended, now);
            next_ = nextIntended();
        }
        drain();
        if (!next_) return endSending(false);
        const TimePoint intended = t0_ + *next_;
        if (intended <= SteadyClock::now()) {
            loop_.post([this] { onSend(); });
            return;
        }
        sendTimer_.setAfter(std::chrono::duration_cast<Duration>(intended - SteadyClock::now()));
    }

    // A request's turn has come at `now`: its lag is what the generator added, and one reached a
    // whole timeout late was lost to the generator alone (it fails as a timeout, never sent).
    void reach(TimePoint intended, TimePoint now) {
        const std::int64_t lag = micros(now - intended);
        result_.lag.record(lag);
        iLag_.record(lag);
        if (now - intended >= config_.timeout) ++result_.counts.too_late;
        else ++result_.counts.sent;
        if (!backlog_.empty() && backlog_.back().reached == now) ++backlog_.back().count;
        else backlog_.push_back(Reached{now, 1});
        if (backlogSize_++ == 0) frontAt_ = takeFrontTime();
    }

    // Sends the backlog's front while connections are free, and fails as timeouts the requests
    // whose intended time is a whole timeout ago; a slice at a time, the rest in a later turn.
    void drain() {
        const TimePoint now = SteadyClock::now();
        int sends = 0, cheap = 0;
        while (backlogSize_ > 0) {
            const TimePoint intended = t0_ + frontAt_;
            if (now - intended >= config_.timeout) {
                if (++cheap > kCheapBatch) return drainLater();
                expire(intended, now);
            } else if (inFlight_.size() < config_.connections && !stopping_) {
                if (++sends > kSendBatch) return drainLater();
                send(frontSeq_, intended, backlog_.front().reached);
            } else {
                break;
            }
            popFront();
        }
        if (backlogSize_ > 0) {
            const auto due = t0_ + frontAt_ + config_.timeout - SteadyClock::now();
            expiryTimer_.setAfter(std::max(Duration::zero(), std::chrono::duration_cast<Duration>(due)));
        } else {
            expiryTimer_.clear();
        }
        maybeFinish();
    }

    void drainLater() {
        if (drainPosted_) return;
        drainPosted_ = true;
        loop_.post([this] {
            drainPosted_ = false;
            drain();
        });
    }

    void popFront() {
        ++frontSeq_;
        if (--backlog_.front().count == 0) backlog_.pop_front();
        if (--backlogSize_ > 0) frontAt_ = takeFrontTime();
        // A source's windows behind the backlog's front are needed no more.
        while (windows_.size() > 1 && windows_.front().base + windows_.front().requests.size() <= frontSeq_)
            windows_.pop_front();
    }

    // The intended offset of request frontSeq_, the backlog's new front: the schedule's second
    // walk, one step for each request that reaches the front (every request does, in order).
    nanoseconds takeFrontTime() {
        const std::uint64_t seq = frontSeq_;
        if (planned()) return planEntry(seq).at;
        return *frontTimes_.next();
    }

    bool planned() const { return !config_.plan.empty() || config_.plan_source; }
    // Planned request `seq`: from the plan, or from the source's window that holds it (windows
    // are kept from the backlog's front to the newest).
    const PlannedRequest& planEntry(std::uint64_t seq) const {
        if (!config_.plan_source) return config_.plan[seq];
        for (const Window& w : windows_)
            if (seq - w.base < w.requests.size()) return w.requests[seq - w.base];
        throw std::logic_error("planned request " + std::to_string(seq) + " is in no window");
    }
    // The planned requests the sends have reached: the whole plan, or the source's newest window
    // (the requests from sequence number planBase() on).
    const std::vector<PlannedRequest>& plan() const {
        return config_.plan_source ? windows_.back().requests : config_.plan;
    }
    std::uint64_t planBase() const { return config_.plan_source ? windows_.back().base : 0; }

    // The schedule's or the plan's next send time, and how many fall before `t` (for a source,
    // as far as it has planned). When a source's next window is still being produced as the one
    // at hand runs out, the next time is that window's start (none of its requests comes
    // earlier), with windowDue_ set: the sends wait for the window only once it is due.
    std::optional<nanoseconds> nextIntended() {
        if (!planned()) return times_.next();
        // A source's next window, once the last one's requests have all been reached. It is
        // usually ready: it was begun when the one before was installed. A window that failed
        // its checks throws here, in its turn.
        while (config_.plan_source && planNext_ - planBase() == plan().size() && nextWindow_.valid()) {
            if (!windowDue_ && nextWindow_.wait_for(nanoseconds::zero()) != std::future_status::ready) {
                windowDue_ = true;
                return planned_;
            }
            windowDue_ = false;
            installWindow(nextWindow_.get());
        }
        if (planNext_ - planBase() == plan().size()) return std::nullopt;
        return plan()[planNext_++ - planBase()].at;
    }
    // Makes `w` the newest window and begins producing the one after it on a thread of its own
    // (the source is called by one thread at a time, in time order: each call begins after the
    // one before has returned).
    void installWindow(PlanWindow w) {
        const std::uint64_t base = windows_.empty() ? 0 : windows_.back().base + windows_.back().requests.size();
        windows_.push_back(Window{base, std::move(w.requests)});
        const nanoseconds from = planned_ = w.to;
        if (from >= config_.duration) return;
        nextWindow_ = std::async(std::launch::async, produceWindow, std::cref(config_.plan_source), from,
                                 std::min(from + kPlanWindow, config_.duration));
    }
    std::uint64_t intendedBefore(nanoseconds t) const {
        if (!planned()) return times_.intendedBefore(t);
        const auto& p = plan();
        return planBase() + static_cast<std::uint64_t>(
            std::lower_bound(p.begin(), p.end(), t, [](const PlannedRequest& r, nanoseconds at) { return r.at < at; }) -
            p.begin());
    }

    void endSending(bool stopped) {
        if (sendingDone_) return;
        sendingDone_ = true;
        result_.stopped_early = stopped;
        sendTimer_.clear();
        maybeFinish();
    }

    // Polls stop() until it is called, then ends the run when its grace is over.
    void onStopTimer() {
        if (stopping_) return abandonInFlight();
        if (stop_.load()) return beginStop();
        stopTimer_.setAfter(kStopPoll);
    }

    // stop(): no more sends. The backlog's timeouts that are due are counted; the rest of it is
    // abandoned now, and what is still in flight after kStopGrace is abandoned then, each
    // recorded at its age when abandoned: a lower bound on its latency, but no request the stop
    // caught unanswered is left out of the corrected latencies.
    void beginStop() {
        if (stopping_ || finished_) return;
        stopping_ = true;
        endSending(true);
        result_.stopped_early = true;  // also when only answers were still awaited
        const TimePoint now = SteadyClock::now();
        stoppedAt_ = now;
        while (backlogSize_ > 0) {
            const TimePoint intended = t0_ + frontAt_;
            if (now - intended >= config_.timeout) expire(intended, now);
            else abandon(intended, now);
            popFront();
        }
        expiryTimer_.clear();
        stopTimer_.setAfter(kStopGrace);
        maybeFinish();
    }

    void abandonInFlight() {
        const TimePoint now = SteadyClock::now();
        for (const auto& entry : inFlight_) abandon(entry.second, now);
        inFlight_.clear();  // their callbacks die with the client
        maybeFinish();
    }

    // A request the stop gave up on at `now`: at its age then, in the corrected latencies.
    void abandon(TimePoint intended, TimePoint now) {
        const std::int64_t age = micros(now - intended);
        result_.corrected.record(age);
        iCorrected_.record(age);
        result_.abandoned.record(age);
        ++result_.counts.abandoned;
    }

    void send(std::uint64_t seq, TimePoint intended, TimePoint reached) {
        HttpRequest request;
        request.method = "POST";
        request.headers.emplace_back("Content-Type", "application/json");
        if (planned()) {
            const PlannedRequest& p = planEntry(seq);
            request.target = p.target;
            if (!p.key.empty()) request.headers.emplace_back("Authorization", "Bearer " + p.key);
            if (!p.region.empty()) request.headers.emplace_back("X-Region", p.region);
            request.headers.emplace_back("X-Request-Id", p.request_id);
            request.body = p.body;
        } else {
            request.target = config_.url.target;
            if (!config_.keys.empty())
                request.headers.emplace_back("Authorization", "Bearer " + config_.keys[seq % config_.keys.size()]);
            request.headers.emplace_back("X-Request-Id", std::to_string(seq));
            request.body = bodies_[seq % bodies_.size()];
        }
        // What is left of its timeout: it ends by intended + timeout, however long it waited.
        request.timeout = std::max(nanoseconds(1), config_.timeout - (SteadyClock::now() - intended));
        inFlight_.emplace(seq, intended);
        client_.request(config_.url.at, std::move(request),
                        [this, seq, reached](HttpResponse&& r) { complete(seq, reached, r); });
    }

    // A request of the backlog whose timeout has passed: it never got a connection, so it has no
    // uncorrected or wait sample.
    void expire(TimePoint intended, TimePoint now) {
        const std::int64_t corrected = micros(now - intended);
        result_.corrected.record(corrected);
        iCorrected_.record(corrected);
        ++result_.counts.failed;
        ++result_.counts.failures[static_cast<std::size_t>(HttpFailure::Timeout)];
        ++iCompleted_;
        lastAnswer_ = std::max(lastAnswer_, now);
    }

    void complete(std::uint64_t seq, TimePoint dispatched, const HttpResponse& r) {
        const auto it = inFlight_.find(seq);
        if (it == inFlight_.end()) return;  // abandoned at a stop (the loop has not quit yet)
        const TimePoint intended = it->second;
        inFlight_.erase(it);
        const std::int64_t corrected = micros(r.finished - intended);
        result_.corrected.record(corrected);
        iCorrected_.record(corrected);
        if (r.started) {
            const std::int64_t uncorrected = micros(r.finished - *r.started);
            result_.uncorrected.record(uncorrected);
            iUncorrected_.record(uncorrected);
            result_.wait.record(micros(*r.started - dispatched));
        }
        LoadCounts& c = result_.counts;
        if (r.ok()) {
            ++c.answered;
            ++c.statuses[r.status];
        } else {
            ++c.failed;
            ++c.failures[static_cast<std::size_t>(r.failure)];
        }
        ++iCompleted_;
        lastAnswer_ = std::max(lastAnswer_, r.finished);
        drain();  // a connection came free
    }

    void maybeFinish() {
        if (finished_ || !sendingDone_ || result_.counts.in_flight() > 0) return;
        finished_ = true;
        tickTimer_.clear();
        expiryTimer_.clear();
        stopTimer_.clear();
        loop_.quit();
        const TimePoint now = SteadyClock::now();
        endedAt_ = now;
        const TimePoint from = t0_ + config_.interval * ticks_;
        if (now - from > std::chrono::milliseconds(1) || iCompleted_ > 0 || !iCorrected_.empty()) emit(from, now);
    }

    void scheduleTick() {
        const TimePoint at = t0_ + config_.interval * (ticks_ + 1);
        tickTimer_.setAfter(std::chrono::duration_cast<Duration>(at - SteadyClock::now()));
    }

    void onTick() {
        if (finished_) return;
        const TimePoint from = t0_ + config_.interval * ticks_;
        ++ticks_;
        emit(from, from + config_.interval);
        if (stop_.load()) beginStop();
        if (!finished_) scheduleTick();
    }

    void emit(TimePoint from, TimePoint to) {
        if (onInterval_) {
            LoadInterval i;
            i.start_epoch_ms = result_.start_epoch_ms;
            i.start_s = seconds(from - t0_);
            i.length_s = seconds(to - from);
            i.counts = result_.counts;
            i.completed_in_interval = iCompleted_;
            if (!sendingDone_) {
                // Sends over a millisecond late: one due this very instant is not "behind".
                const auto late = SteadyClock::now() - t0_ - std::chrono::milliseconds(1);
                const std::uint64_t due = late > nanoseconds::zero() ? intendedBefore(late) : 0;
                const std::uint64_t reached = result_.counts.sent + result_.counts.too_late;
                i.behind_schedule = due > reached ? due - reached : 0;
            }
            i.corrected = &iCorrected_;
            i.uncorrected = &iUncorrected_;
            i.lag = &iLag_;
            i.corrected_total = &result_.corrected;
            i.lag_total = &result_.lag;
            i.wait_total = &result_.wait;
            onInterval_(i);
        }
        iCorrected_.reset();
        iUncorrected_.reset();
        iLag_.reset();
        iCompleted_ = 0;
    }

    // Requests reached at one moment, in sequence order.
    struct Reached {
        TimePoint reached;
        std::uint64_t count;
    };
    // A source's window: its requests, the first of them request `base` of the run.
    struct Window {
        std::uint64_t base;
        std::vector<PlannedRequest> requests;
    };

    const LoadConfig& config_;
    const std::vector<std::string>& bodies_;
    std::atomic<bool>& stop_;
    const LoadGenerator::IntervalCallback& onInterval_;
    Loop loop_;
    HttpClient client_;
    Loop::Timer sendTimer_;
    Loop::Timer tickTimer_;
    Loop::Timer expiryTimer_;                     // the backlog's front times out
    Loop::Timer stopTimer_;                       // stop()'s poll, then its grace
    SendTimes times_;                             // the sends' walk of the schedule
    SendTimes frontTimes_;                        // the backlog's, behind it
    std::optional<nanoseconds> next_;
    std::uint64_t planNext_ = 0;                  // sequence number of the next planned request
    std::deque<Window> windows_;                  // a source's windows, from the backlog's front on
    nanoseconds planned_{0};                      // a source has planned up to here
    std::future<PlanWindow> nextWindow_;          // the window after the newest, being produced
    bool windowDue_ = false;                      // next_ is the start of nextWindow_, not a request
    std::deque<Reached> backlog_;                 // reached, not yet sent or timed out
    std::uint64_t backlogSize_ = 0;
    std::uint64_t frontSeq_ = 0;                  // sequence number of the backlog's front
    nanoseconds frontAt_{};                       // its intended offset (while backlogSize_ > 0)
    // Handed to the client, not yet answered: sequence number -> intended send time.
    std::unordered_map<std::uint64_t, TimePoint> inFlight_;
    bool drainPosted_ = false;
    TimePoint t0_{};
    TimePoint lastAnswer_{};
    TimePoint stoppedAt_{};                       // when stop() took effect
    TimePoint endedAt_{};                         // when the run ended
    LoadResult result_;
    HdrHistogram iCorrected_{loadHistogramConfig()};
    HdrHistogram iUncorrected_{loadHistogramConfig()};
    HdrHistogram iLag_{loadHistogramConfig()};
    std::uint64_t iCompleted_ = 0;
    std::int64_t ticks_ = 0;
    bool sendingDone_ = false;
    bool stopping_ = false;
    bool finished_ = false;
};

}  // namespace

std::size_t defaultConnections(const RateSchedule& schedule) {
    const double byLittlesLaw = std::clamp(std::ceil(schedule.maxRate() * 0.25), 8.0, 1e6);
    return static_cast<std::size_t>(byLittlesLaw);  // NaN-free: schedules are checked first
}

std::vector<std::string> builtinQueries() {
    std::vector<std::string> queries;
    for (std::uint64_t n = 0; n < 20; ++n)
        for (int c = 0; c < gateway::kClasses; ++c)
            queries.push_back(gateway::Workload::oneOffText(static_cast<gateway::QueryClass>(c), n));
    return queries;
}

HdrConfig loadHistogramConfig() {
    const auto longest = std::chrono::duration_cast<std::chrono::microseconds>(2 * kLongestLoad + std::chrono::hours(1));
    return HdrConfig{1, longest.count(), 3};
}

std::optional<std::string> generatorBottleneckWarning(const LoadResult& r) {
    const std::int64_t lagP99 = r.lag.valueAtPercentile(99);
    const std::int64_t correctedP99 = r.corrected.valueAtPercentile(99);
    const bool lost = r.counts.too_late > 0;
    const bool lagging = lagP99 > 1000 && lagP99 * 10 >= correctedP99;
    const bool behind = !r.stopped_early && r.counts.sent + r.counts.too_late < r.intended;
    if (!lost && !lagging && !behind) return std::nullopt;
    std::vector<std::string> why;
    if (lost)
        why.push_back(std::to_string(r.counts.too_late) + " of the " + std::to_string(r.intended) +
                      " intended requests were a whole timeout late before it got to them, and failed as "
                      "timeouts without being sent");
    if (lagging)
        why.push_back("its scheduling lag p99 is " + millis(lagP99) + " ms against a corrected p99 of " +
                      millis(correctedP99) + " ms, so its own lateness is a large part of the latencies");
    if (behind)
        why.push_back("it sent " + std::to_string(r.counts.sent) + " of the " + std::to_string(r.intended) +
                      " requests the schedule intended");
    std::string text = lost ? "the generator, not the server, was the bottleneck: "
                            : "the generator, not the server, may be the bottleneck: ";
    for (std::size_t k = 0; k < why.size(); ++k) text += (k > 0 ? "; " : "") + why[k];
    return text + " (lower the rate, or run the generator on a less busy machine)";
}

bool connectionWaitSignificant(const HdrHistogram& wait, const HdrHistogram& corrected) {
    if (wait.empty() || corrected.empty()) return false;
    const std::int64_t waitP99 = wait.valueAtPercentile(99);
    return waitP99 > 1000 && waitP99 * 10 >= corrected.valueAtPercentile(99);
}

std::optional<std::string> connectionPoolWarning(const LoadResult& r) {
    if (!connectionWaitSignificant(r.wait, r.corrected)) return std::nullopt;
    // Little's law at the latency the server gave once a request had a connection.
    const double rate = r.schedule_s > 0 ? static_cast<double>(r.intended) / r.schedule_s : 0;
    const double serverS = r.uncorrected.empty() ? 0 : static_cast<double>(r.uncorrected.valueAtPercentile(99)) / 1e6;
    const auto byLittle = static_cast<std::size_t>(std::ceil(rate * serverS));
    const std::size_t suggested = std::max(byLittle, 2 * r.connections);
    return "requests waited for a free connection of the generator's own pool of " + std::to_string(r.connections) +
           " (connection wait p50 " + millis(r.wait.valueAtPercentile(50)) + " ms, p99 " +
           millis(r.wait.valueAtPercentile(99)) + " ms against a corrected p99 of " +
           millis(r.corrected.valueAtPercentile(99)) +
           " ms), so the corrected latencies measure that queue as much as the server; raise --connections (about " +
           std::to_string(suggested) + " at this rate and the server's uncorrected p99 of " +
           millis(r.uncorrected.empty() ? 0 : r.uncorrected.valueAtPercentile(99)) + " ms)";
}

namespace {

// Connections for a planned load of `rate` requests a second: enough for four times it at 250 ms
// an answer, at least 64 (agent bursts send up to 40 copies within 20 ms).
std::size_t planConnections(double rate) {
    return std::max<std::size_t>(64, static_cast<std::size_t>(std::ceil(rate * 4 * 0.25)));
}

// A planned load's checks, and its connections.
std::size_t checkPlan(const LoadConfig& c) {
    checkWindow(c.plan, nanoseconds::zero(), c.duration);
    const double meanRate = static_cast<double>(c.plan.size()) / std::chrono::duration<double>(c.duration).count();
    return planConnections(meanRate);
}

}  // namespace

LoadGenerator::LoadGenerator(LoadConfig config) : config_(std::move(config)) {
    if (config_.duration <= nanoseconds::zero() || config_.duration > kLongestLoad)
        throw std::invalid_argument("the duration must be above 0 and at most a week");
    if (!config_.plan.empty() && config_.plan_source)
        throw std::invalid_argument("a load has a plan or a plan source, not both");
    if (!config_.plan.empty()) {
        const std::size_t connections = checkPlan(config_);
        if (config_.connections == 0) config_.connections = connections;
    }
    if (config_.plan_source && config_.connections == 0)
        config_.connections = planConnections(config_.schedule.maxRate());
    if (config_.schedule.steps.empty() || config_.schedule.maxRate() <= 0)
        throw std::invalid_argument("the rate must be above 0 requests per second");
    SendTimes(config_.schedule, config_.duration);  // throws for a schedule it cannot walk
    if (config_.timeout <= nanoseconds::zero() || config_.timeout > kLongestLoad)
        throw std::invalid_argument("the timeout must be above 0 and at most a week");
    if (config_.interval <= nanoseconds::zero()) throw std::invalid_argument("the interval must be above 0");
    if (!gateway::maxResultsInRange(config_.max_results))
        throw std::invalid_argument("max_results " + gateway::maxResultsRangeText() + ", not " +
                                    std::to_string(config_.max_results));
    for (const std::string& key : config_.keys)
        if (!validHeaderToken(key))
            throw std::invalid_argument("an API key must be non-empty printable text without spaces or commas: '" +
                                        key + "'");
    if (config_.connections == 0) config_.connections = defaultConnections(config_.schedule);
    if (config_.queries.empty()) config_.queries = builtinQueries();
    for (const std::string& q : config_.queries) {
        const nlohmann::json body{{"query", q}, {"language", config_.language}, {"max_results", config_.max_results}};
        bodies_.push_back(body.dump());
    }
}

LoadResult LoadGenerator::run(const IntervalCallback& on_interval) {
    Run run(config_, bodies_, stop_, on_interval);
    return run.run();
}

}  // namespace taillab::live
