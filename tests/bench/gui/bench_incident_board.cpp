// The incident board's redraw time while it streams: the July replay (incidents/july-v3 against
// incidents/july-v4, three days at window_s 60: ~4,300 windows each at the end) simulated ahead
// of time, then its snapshots fed to the board every `--step` simulated minutes as the worker
// would publish them, each frame timed from the hand-over to the end of the charts' queued
// replots (data, layout, painting). Prints one JSON object; the target is no frame over 100 ms.
//
//   QT_QPA_PLATFORM=offscreen taillab_incident_bench [--step MINUTES] [--a SCENARIO] [--b SCENARIO]
#include <QApplication>
#include <QElapsedTimer>
#include <QtTest/QTest>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gateway_sim/gateway_sim.h"
#include "incident/incident_board.h"

namespace {

using namespace taillab;
using namespace taillab::ui;

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
    if (qgetenv("QT_QPA_PLATFORM").isEmpty()) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    double stepMin = 30;
    std::string a = "incidents/july-v3", b = "incidents/july-v4";
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--step") == 0) stepMin = std::max(1.0, std::atof(argv[i + 1]));
        if (std::strcmp(argv[i], "--a") == 0) a = argv[i + 1];
        if (std::strcmp(argv[i], "--b") == 0) b = argv[i + 1];
    }
    const IncidentRunSpec spec = loadIncidentRun(a, b, {}, TAILLAB_SCENARIO_DIR);
    IncidentBoard board;
    board.resize(1600, 1000);
    board.show();
    QTest::qWait(50);

    gateway::GatewaySim simA(spec.a.params, spec.a.seed, spec.a.timeline);
    gateway::GatewaySim simB(spec.b->params, spec.a.seed, spec.b->timeline);
    auto timeline = std::make_shared<const Timeline>(simA.timeline());
    QElapsedTimer simClock;
    double simMs = 0;
    std::vector<double> frames, dataMs;
    std::size_t windows = 0;
    for (double t = stepMin * 60;; t += stepMin * 60) {
        simClock.start();
        simA.advanceTo(t);
        simB.advanceTo(t);
        auto frame = std::make_shared<GatewayFrame>();
        frame->snapshot = std::make_shared<const gateway::GatewaySnapshot>(simA.snapshot());
        frame->compare = std::make_shared<const gateway::GatewaySnapshot>(simB.snapshot());
        simMs += static_cast<double>(simClock.nsecsElapsed()) / 1e6;
        frame->params = simA.params();
        frame->initialParams = spec.a.params;
        frame->compareParams = simB.params();
        frame->seed = spec.a.seed;
        frame->timeline = timeline;
        frame->playing = true;
        frame->speed = 0;
        windows = frame->snapshot->windows.size();
        const std::size_t before = board.redrawTimes().size();
        board.drawFrame(frame);
        // The frame's time is recorded once its queued replots have run.
        if (!QTest::qWaitFor([&] { return board.redrawTimes().size() > before; }, 10000)) return 2;
        frames.push_back(board.redrawTimes().back());
        if (simA.finished()) break;
    }
    double mean = 0;
    for (double f : frames) mean += f;
    mean /= std::max<std::size_t>(1, frames.size());
    const auto over = std::count_if(frames.begin(), frames.end(), [](double f) { return f > 100; });
    std::printf("{\"a\": \"%s\", \"b\": \"%s\", \"frames\": %zu, \"windows_at_end\": %zu, "
                "\"step_min\": %.0f, \"frame_ms\": {\"mean\": %.1f, \"p50\": %.1f, \"p95\": %.1f, "
                "\"max\": %.1f, \"last\": %.1f}, \"frames_over_100ms\": %td, "
                "\"simulate_and_snapshot_ms_total\": %.0f}\n",
                a.c_str(), b.c_str(), frames.size(), windows, stepMin, mean, percentile(frames, 0.5),
                percentile(frames, 0.95), frames.empty() ? 0.0 : *std::max_element(frames.begin(), frames.end()),
                frames.empty() ? 0.0 : frames.back(), over, simMs);
    return over == 0 ? 0 : 1;
}
