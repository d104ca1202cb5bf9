// Helpers for the UI tests: the scenario directory, bounded waits for runs, and comparisons of
// what the charts draw.
#pragma once

#include <QApplication>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QtTest/QTest>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../test_slowdown.h"
#include "chart_area.h"
#include "chart_pane.h"
#include "main_window.h"
#include "plots/chart_view.h"
#include "run_controller.h"

namespace taillab::ui::test {

// Splits one CSV line (RFC 4180 quoting).
inline std::vector<std::string> csvFields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                out.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                out.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

// A whole file's bytes ("" when it cannot be read).
inline std::string readFile(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

using taillab::test::kSlowdown;  // ../test_slowdown.h says why
constexpr int kRunTimeoutMs = 180000 * kSlowdown;
constexpr int kGatewayTimeoutMs = 240000 * kSlowdown;  // a gateway session's frame or command

// With TAILLAB_SCREENSHOTS set to a directory, saves `widget` there as NAME.png (a look at what
// a test drew, for a person; nothing asserts on it).
inline void saveScreenshot(QWidget& widget, const QString& name) {
    const char* dir = std::getenv("TAILLAB_SCREENSHOTS");
    if (!dir) return;
    QTest::qWait(50);  // the relayout and repaint the last changes asked for
    widget.grab().save(QString(dir) + "/" + name + ".png");
}

// Turns the mouse wheel one notch over the middle of `view`'s plot: a zoom in.
inline void wheelZoomIn(ChartView& view) {
    auto* plot = view.findChild<QWidget*>();
    const QPointF center(plot->width() / 2.0, plot->height() / 2.0);
    QWheelEvent wheel(center, plot->mapToGlobal(center), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
}

inline std::string scenarioDirectory() {
    const QByteArray env = qgetenv("TAILLAB_SCENARIOS");
    return env.isEmpty() ? std::string(TAILLAB_SCENARIO_DIR) : env.toStdString();
}

// Records what the window drew.
class DrawnRecorder {
  public:
    explicit DrawnRecorder(MainWindow& window) {
        QObject::connect(&window, &MainWindow::resultDrawn, &window,
                         [this](const LabResultPtr& r) { drawn.push_back(r); });
    }
    std::vector<LabResultPtr> drawn;
};

// Waits until a run newer than `generation` has started, finished and its final result has
// been drawn.
inline bool waitForNewFinal(MainWindow& window, DrawnRecorder& recorder, quint64 generation,
                            int timeoutMs = kRunTimeoutMs) {
    RunController* c = window.controller();
    if (!QTest::qWaitFor([&] { return c->generation() > generation; }, 5000 * kSlowdown)) return false;
    return QTest::qWaitFor(
        [&] {
            const LabResultPtr latest = window.latestResult();
            return !c->running() && latest && latest->progress >= 1.0 && !recorder.drawn.empty() &&
                   recorder.drawn.back() == latest;
        },
        timeoutMs);
}

// Opens a scenario (name, path or lab id) and waits until its final result has been drawn.
inline bool openAndWait(MainWindow& window, DrawnRecorder& recorder, const QString& key,
                        int timeoutMs = kRunTimeoutMs) {
    const quint64 generation = window.controller()->generation();
    return window.openScenario(key) && waitForNewFinal(window, recorder, generation, timeoutMs);
}

using Drawing = std::vector<std::vector<PlottedSeries>>;

// What both chart panes draw.
inline Drawing drawing(const MainWindow& window) {
    Drawing d;
    for (int i = 0; i < ChartArea::kPanes; ++i) {
        ChartPane* pane = window.chartArea()->pane(i);
        if (pane->isVisibleTo(window.chartArea()) && pane->chart() && pane->view())
            d.push_back(pane->view()->plottedSeries());
    }
    return d;
}

inline bool sameDrawing(const Drawing& a, const Drawing& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].size() != b[i].size()) return false;
        for (std::size_t j = 0; j < a[i].size(); ++j)
            if (a[i][j].name != b[i][j].name || a[i][j].x != b[i][j].x || a[i][j].y != b[i][j].y)
                return false;
    }
    return true;
}

inline std::size_t pointCount(const Drawing& d) {
    std::size_t n = 0;
    for (const auto& pane : d)
        for (const auto& s : pane) n += static_cast<std::size_t>(s.x.size());
    return n;
}

}  // namespace taillab::ui::test
