// How a long computation (a lab run, a simulation) hears "pause", "cancel" and reports progress.
// The core never starts threads; a driver (the GUI's worker, the CLI) owns one of these and the
// computation polls it between events.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace taillab {

class RunControl {
public:
    void requestCancel() { cancel_.store(true, std::memory_order_relaxed); }
    void setPaused(bool paused) { paused_.store(paused, std::memory_order_relaxed); }
    bool cancelRequested() const { return cancel_.load(std::memory_order_relaxed); }
    bool paused() const { return paused_.load(std::memory_order_relaxed); }

    // Called by the computation with its fraction done in [0, 1].
    void reportProgress(double fraction) {
        progress_.store(fraction, std::memory_order_relaxed);
        if (onProgress) onProgress(fraction);
    }
    double progress() const { return progress_.load(std::memory_order_relaxed); }

    // Called by the computation between units of work: blocks while paused (unless cancelled)
    // and returns false when the run should stop. This is the only place a core computation
    // waits, and it waits on wall-clock only because the driver asked it to pause.
    bool checkpoint() {
        while (paused() && !cancelRequested()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return !cancelRequested();
    }

    // Optional observer; called on the computing thread.
    std::function<void(double)> onProgress;

private:
    std::atomic<bool> cancel_{false};
    std::atomic<bool> paused_{false};
    std::atomic<double> progress_{0.0};
};

// A share of a run's progress: a computation that is one part of a larger run (one point of a
// sweep) reports its own fraction f as base + span * f to the run's control.
struct ProgressSlice {
    RunControl* control = nullptr;
    double base = 0;
    double span = 1;
};

}  // namespace taillab
