// The GUI's re-run latency: from a slider move to the redrawn final result, per lab, in the real
// main window (offscreen). Prints one JSON object. This is the figure behind the target "a lab
// re-run after a slider move is redrawn within 100 ms": it includes the knob panel's debounce,
// the worker's run, the queued hand-over and the redraw. "first_draw" is the time to the first
// result drawn after the move, partial or final: what a user sees change first (the queueing
// labs draw the chosen load before the rest of their sweep). "rss_mb_after" is the resident
// memory once a lab's re-runs are done: with a large --repeat it shows whether a long session of
// slider moves holds on to memory.
//
//   QT_QPA_PLATFORM=offscreen taillab_gui_bench [--repeat N] [--lab ID]
#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>
#include <QtTest/QTest>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "knob_editor.h"
#include "knob_panel.h"
#include "labs/lab.h"
#include "main_window.h"
#include "run_controller.h"

namespace {

using taillab::ui::LabResultPtr;
using taillab::ui::MainWindow;

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

// The process's resident memory now, in MB (0 if /proc cannot be read).
double residentMb() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

// Waits for the final result of a run newer than `generation` to be drawn; returns false on
// time-out.
bool waitDrawn(MainWindow& w, const LabResultPtr& lastDrawn, quint64 generation) {
    auto* c = w.controller();
    return QTest::qWaitFor(
        [&] {
            const LabResultPtr latest = w.latestResult();
            return c->generation() > generation && !c->running() && latest &&
                   latest->progress >= 1.0 && lastDrawn == latest;
        },
        10000);
}

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen"
                                                                    : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    int repeat = 20;
    std::string only;  // --lab ID: just that lab (for a profiler)
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--lab") == 0) only = argv[i + 1];
    }

    MainWindow window(TAILLAB_SCENARIO_DIR);
    window.resize(MainWindow::kDefaultSize);
    window.show();
    // The last result drawn, and when each was: the bench holds no other result, so the
    // window's memory is the app's own.
    LabResultPtr lastDrawn;
    std::vector<qint64> drawnAt;  // QElapsedTimer nanoseconds since `clock` started
    QElapsedTimer clock;
    clock.start();
    QObject::connect(&window, &MainWindow::resultDrawn, &window, [&](const LabResultPtr& r) {
        lastDrawn = r;
        drawnAt.push_back(clock.nsecsElapsed());
    });

    std::printf("{\n  \"benchmark\": \"gui_rerun_after_slider_move\",\n");
    std::printf("  \"debounce_ms\": %d,\n  \"repeat\": %d,\n  \"labs\": [\n",
                taillab::ui::KnobPanel::kDebounceMs, repeat);
    bool first = true;
    for (const auto& lab : taillab::allLabs()) {
        if (!only.empty() && lab->id() != only) continue;
        const quint64 before = window.controller()->generation();
        if (!window.selectLab(QString::fromStdString(lab->id())) ||
            !waitDrawn(window, lastDrawn, before)) {
            std::fprintf(stderr, "%s: the default scenario did not finish\n", lab->id().c_str());
            return 1;
        }
        taillab::ui::KnobEditor* editor = window.knobPanel()->editor(lab->mainKnob());
        QSlider* slider = editor ? editor->slider() : nullptr;
        if (!slider) {
            std::fprintf(stderr, "%s: main knob has no slider\n", lab->id().c_str());
            continue;
        }
        // A small drag: the nearest slider position that changes the knob's value (knobs snap
        // to their step), found once and undone before timing starts.
        const int home = slider->value();
        const double homeValue = editor->value();
        int away = home;
        for (int k = 1; k <= slider->maximum() - slider->minimum() && away == home; ++k) {
            for (int candidate : {home - k, home + k}) {
                if (candidate < slider->minimum() || candidate > slider->maximum()) continue;
                const quint64 g = window.controller()->generation();
                slider->setValue(candidate);
                if (editor->value() != homeValue) {
                    away = candidate;
                    slider->setValue(home);
                    waitDrawn(window, lastDrawn, g);
                    break;
                }
            }
        }
        std::vector<double> ms, firstMs;
        for (int i = 0; i < repeat; ++i) {
            const quint64 generation = window.controller()->generation();
            const std::size_t drawnBefore = drawnAt.size();
            const qint64 start = clock.nsecsElapsed();
            slider->setValue(i % 2 == 0 ? away : home);  // as a drag step would
            if (!waitDrawn(window, lastDrawn, generation)) {
                std::fprintf(stderr, "%s: re-run %d timed out \n", lab->id().c_str(), i);
                return 1;
            }
            ms.push_back(static_cast<double>(drawnAt.back() - start) / 1e6);
            firstMs.push_back(static_cast<double>(drawnAt[drawnBefore] - start) / 1e6);
        }
        std::printf("%s    {\"lab\": \"%s\", \"scenario\": \"%s\", \"knob\": \"%s\", \"rerun_ms_median\": %.1f, \"rerun_ms_p90\": %.1f, "
                    "\"rerun_ms_max\": %.1f, \"first_draw_ms_median\": %.1f, \"first_draw_ms_p90\": %.1f, \"rss_mb_after\": %.1f}",
                    first ? "" : ",\n", lab->id().c_str(), window.scenario().name.c_str(),
                    lab->mainKnob().c_str(), percentile(ms, 0.5),
                    percentile(ms, 0.9), percentile(ms, 1.0), percentile(firstMs, 0.5),
                    percentile(firstMs, 0.9), residentMb());
        first = false;
    }
    std::printf("\n  ]\n}\n");
    return 0;
}
