// How the GUI's background work reaches its threads and comes back, without Qt's cross-thread
// machinery.
//
// Qt's queued signals and QMetaObject::invokeMethod order a hand-off through locks inside
// libQt6Core. Debian's Qt is not built with ThreadSanitizer, so TSan cannot see those locks and
// reports every hand-off as a race; suppressing the reports would hide real races too. So the
// GUI's threads never use Qt to talk to each other:
//   - WorkerThread is a std::thread that runs posted closures in order, and between them an
//     optional periodic tick (the gateway session's pacing). Nothing on it touches Qt.
//   - UiInbox runs closures on the UI thread on behalf of any thread: a std::mutex-guarded queue,
//     and a wake-up byte written to an eventfd whose QSocketNotifier lives on the UI thread.
// Every value that crosses goes through one of these two queues, both under a std::mutex, which
// TSan sees: `scripts/dev.sh tsan` runs the GUI's threaded tests with no Qt suppressions.
#pragma once

#include <QObject>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

class QSocketNotifier;

namespace taillab::ui {

class WorkerThread {
  public:
    using Clock = std::chrono::steady_clock;

    // `tick`, if any, is what startTicking() runs.
    explicit WorkerThread(std::string name, std::function<void()> tick = {});
    // Drops the jobs not yet started and joins the thread once the job or tick in progress
    // returns. Not from the worker thread itself.
    ~WorkerThread();
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    // Any thread: runs `job` on the worker after the jobs posted before it.
    void post(std::function<void()> job);
    // The tick runs on the worker every `interval` (zero: whenever no job is waiting) until
    // stopTicking(); queued jobs always go first. Like a QTimer, starting it again at the same
    // interval keeps its phase. Both only from the worker thread (from a job or the tick).
    void startTicking(std::chrono::milliseconds interval);
    void stopTicking();
    bool ticking() const { return interval_.has_value(); }  // worker thread only

  private:
    void loop();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false;
    const std::function<void()> tick_;
    // Worker-thread state (the tick is started, stopped and run there).
    std::optional<std::chrono::milliseconds> interval_;
    Clock::time_point nextTick_{};
    std::thread thread_;  // last: starts once the members above exist
};

class UiInbox : public QObject {
  public:
    // On the UI thread. Throws std::runtime_error when no eventfd can be made.
    explicit UiInbox(QObject* parent = nullptr);
    // Closures not yet run are dropped. Every thread that posts must have stopped posting.
    ~UiInbox() override;

    // Any thread: `fn` runs on the UI thread, after the closures posted before it.
    void post(std::function<void()> fn);

  private:
    void drain();

    std::mutex mutex_;
    std::vector<std::function<void()>> queue_;
    int fd_ = -1;
    QSocketNotifier* notifier_ = nullptr;
};

}  // namespace taillab::ui
