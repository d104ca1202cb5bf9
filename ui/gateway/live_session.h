// Runs a live gateway (core/live/live_stack.h: the emulated fleet, the gateway and the open-loop
// load generator on 127.0.0.1, each on its own thread) for the UI. Lives on the UI thread and
// owns a WorkerThread (ui_threads.h) that owns the LiveStack: every call into the stack (build,
// start, stop, knob changes, faults) is a job on that thread, so a stop that waits for requests
// in flight never blocks the UI. While a run is up the worker polls the stack every kPollMs and
// sends a LiveFrame back through a UiInbox; the session keeps the latest.
//
// A stopped run's stack is kept (its last frame still saves as a scenario) until the next start
// or the session's end; destroying the session joins the worker first, then ends the stack,
// which stops and joins its own threads.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/gateway_frame.h"
#include "live/live_stack.h"
#include "scenario/scenario.h"
#include "scenario/timeline.h"
#include "ui_threads.h"

namespace taillab::ui {

struct LiveFrame {
    // The gateway's snapshot (times in seconds since the gateway started) with the knobs in
    // force, the run's first knobs, its seed and the timeline of the changes made so far.
    GatewayFramePtr gateway;
    live::LoadProgress load;  // the clients' view: counts, corrected / uncorrected percentiles
    std::string url;          // the gateway's
    double startedAt_s = 0;   // the snapshot's clock at the run's start (its x = 0)
    bool running = false;
    std::uint64_t commandSeq = 0;  // the last session command the worker had handled
    std::uint64_t runId = 0;       // which start() it belongs to
    std::shared_ptr<const Scenario> runScenario;  // LiveStack::scenarioOfRun, under the scenario's name
};

using LiveFramePtr = std::shared_ptr<const LiveFrame>;

class LiveSession : public QObject {
    Q_OBJECT
  public:
    static constexpr int kPollMs = 250;

    explicit LiveSession(QObject* parent = nullptr);
    ~LiveSession() override;

    // Builds and starts a new stack for `scenario` (ending the previous one first).
    quint64 start(const Scenario& scenario, const live::LiveStackOptions& options);
    quint64 stop();
    // The knobs the user moved (only those: key -> value), merged into the knobs in force on the
    // running stack when the worker gets to them: a knob the fleet, the gateway or the timeline
    // changed and the panel has not caught up with keeps its value in force.
    quint64 applyChanges(const std::vector<KnobSetting>& changes);
    // A fault on the fleet now, for `duration_s` (nullopt: until removeFaults).
    quint64 injectFault(const Fault& fault, std::optional<double> duration_s, std::string label);
    // Ends every fault this session injected that is still in force (marked where it ends).
    quint64 removeFaults();

    LiveFramePtr latest() const { return latest_; }
    bool running() const { return latest_ && latest_->running; }
    quint64 lastCommand() const { return seq_; }
    // True once the worker has carried out command `seq` (whether or not it succeeded).
    bool handled(quint64 seq) const { return handled_ui_ >= seq; }

  signals:
    void frameArrived(taillab::ui::LiveFramePtr frame);
    // The worker has carried out command `seq` (after the frame that reflects it, if any).
    void commandHandled(quint64 seq);
    // A start that failed (cannot listen, bad options) or a refused knob change or fault.
    void failed(QString title, QString message);

  private:
    template <typename Job>
    quint64 post(Job job);
    void poll();  // worker thread

    // Destroyed in reverse: thread_ joins first, then stack_ stops and joins its threads, then
    // inbox_ drops what it still holds.
    UiInbox inbox_;
    std::unique_ptr<live::LiveStack> stack_;  // worker thread only while thread_ runs
    std::vector<std::string> faults_;         // worker thread: ids injected, maybe still in force
    std::uint64_t runId_ = 0;                 // worker thread
    std::uint64_t handled_ = 0;               // worker thread
    WorkerThread thread_;
    LiveFramePtr latest_;
    quint64 seq_ = 0;
    quint64 handled_ui_ = 0;
};

}  // namespace taillab::ui

Q_DECLARE_METATYPE(taillab::ui::LiveFramePtr)
