// The gateway view's test fixture: a window showing a paused one-day run, with bounded waits for
// frames and commands. Shared by the gateway view's test files.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "gateway/gateway_scenario.h"
#include "gateway/gateway_session.h"
#include "gateway/gateway_view.h"
#include "ui_test_support.h"

namespace taillab::ui::test {

constexpr double kHour = 3600;

// Its timeline: 07:00 hedge_mode fixed and hedge_delay_ms 300; 15:00 hedge_budget 0.075.
inline GatewayRunSpec atlasDay() {
    GatewayRunSpec spec = gatewayRunFromScenario(
        loadScenarioFile(scenarioDirectory() + "/gateway/day-eu-atlas-slow.json"));
    spec.params.set("load_multiplier", 0.2);
    return spec;
}

inline GatewayRunSpec oneDay() {
    GatewayRunSpec spec = defaultGatewayRun();
    spec.params.set("days", 1);
    return spec;
}

inline std::size_t points(const ChartView& view) {
    std::size_t n = 0;
    for (const auto& s : view.plottedSeries()) n += static_cast<std::size_t>(s.x.size());
    return n;
}

// The counters a run's state is judged by.
inline std::vector<std::uint64_t> counters(const gateway::GatewaySnapshot& s) {
    std::vector<std::uint64_t> c{s.accepted,      s.answered,    s.rejected,
                                 s.failed,        s.in_flight,   s.coalesced,
                                 s.primary_calls, s.hedge_calls, s.last_chance_calls,
                                 s.cancelled_calls, s.invalid_answers, s.probes,
                                 s.windows.size(), s.timeline.size()};
    c.insert(c.end(), s.outcomes.begin(), s.outcomes.end());
    for (const auto& st : s.stages) c.insert(c.end(), {st.entered, st.passed});
    return c;
}

class GatewayViewTest : public ::testing::Test {
  protected:
    void SetUp() override {
        window_ = std::make_unique<MainWindow>(scenarioDirectory());
        window_->show();
        view_ = window_->openGateway(oneDay(), /*play=*/false);
        ASSERT_NE(view_, nullptr);
        ASSERT_TRUE(waitDrawn([](const GatewayFrame& f) { return f.snapshot != nullptr; }))
            << "no first frame";
    }

    GatewaySession& session() { return *view_->session(); }

    // Waits until the view has drawn a frame for which `pred` holds.
    bool waitDrawn(const std::function<bool(const GatewayFrame&)>& pred,
                   int timeoutMs = kGatewayTimeoutMs) {
        return QTest::qWaitFor(
            [&] {
                const GatewayFramePtr f = view_->latestFrame();
                return f && f->snapshot && pred(*f);
            },
            timeoutMs);
    }
    // Waits until command `seq` has been handled and no seek is under way.
    bool waitSettled(quint64 seq) {
        return waitDrawn(
            [seq](const GatewayFrame& f) { return f.commandSeq >= seq && !f.seeking; });
    }
    bool seekAndWait(double t_s) { return waitSettled(session().seek(t_s)); }
    // Starts `spec` paused at 0 and waits for its first frame.
    bool startAndWait(const GatewayRunSpec& spec) {
        view_->startRun(spec, /*play=*/false);
        return waitSettled(session().lastCommand());
    }
    // Plays as fast as it goes to the end (the requests in flight there finish too).
    bool playToEnd() {
        session().setSpeed(0);
        session().play();
        return waitDrawn([](const GatewayFrame& f) { return f.finished() && !f.playing; });
    }

    std::unique_ptr<MainWindow> window_;
    GatewayView* view_ = nullptr;
};

}  // namespace taillab::ui::test
