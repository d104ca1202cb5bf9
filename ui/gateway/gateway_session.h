// Plays a simulated run of seed 000's search gateway off the UI thread. Lives on the UI thread
// and owns a WorkerThread (ui_threads.h) and the GatewayWorker on it, which owns the GatewaySim.
//
// Commands (start, play, pause, speed, seek, knob changes) go in as small values posted to the
// worker and return a sequence number; frames (GatewayFramePtr: the simulator's snapshot and the
// playback state) come back through a UiInbox at most ~30 Hz and the session keeps only the
// latest. A frame's commandSeq says which commands it reflects, so a caller can wait for one to
// take effect. Nothing crosses between the threads through Qt.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "gateway/gateway_frame.h"
#include "gateway/gateway_worker.h"
#include "ui_threads.h"

namespace taillab::ui {

class GatewaySession : public QObject {
    Q_OBJECT
  public:
    // The speeds the view offers, in simulated seconds per wall second; 0 = as fast as it goes.
    static const std::vector<double>& speeds();
    static QString speedLabel(double speed);
    static constexpr std::uint64_t kDefaultSeed = 1;

    explicit GatewaySession(QObject* parent = nullptr);
    ~GatewaySession() override;

    // A new run from simulated time 0 with the scenario's timeline (drops the knob edits made
    // during the previous run); with `companion`, a second run on the same seed beside it (A/B),
    // in the same frames.
    quint64 start(const Params& params, std::uint64_t seed = kDefaultSeed,
                  const Timeline& timeline = {}, bool play = true,
                  std::optional<GatewayWorker::Companion> companion = std::nullopt);
    quint64 play() { return setPlaying(true); }
    quint64 pause() { return setPlaying(false); }
    quint64 setPlaying(bool playing);
    quint64 setSpeed(double speed);
    // Moves to simulated time t_s (seconds since the run started).
    quint64 seek(double t_s);
    // The knobs the user moved (only those: key -> value), from the current simulated moment
    // on, recorded on the run's timeline; edits recorded after this moment (before a seek back)
    // are dropped. A workload-shape knob restarts the run (GatewayWorker::applyChanges).
    quint64 applyChanges(const std::vector<KnobSetting>& changes);
    // The run again from 0: its first knobs with `changes` merged in, on `seed`, with the
    // scenario's timeline (drops the knob edits made during the run) and the same companion.
    quint64 restart(const std::vector<KnobSetting>& changes, std::uint64_t seed, bool play);

    GatewayFramePtr latest() const { return latest_; }
    quint64 lastCommand() const { return seq_; }
    bool started() const { return started_; }
    // True once a frame reflecting command `seq` has arrived.
    bool handled(quint64 seq) const { return latest_ && latest_->commandSeq >= seq; }

  signals:
    void frameArrived(taillab::ui::GatewayFramePtr frame);
    void failed(QString message);
    // Something the user should know that is not a failure (a knob change restarted the run).
    void notice(QString message);

  private:
    // Queues command(worker, seq) on the worker's thread under the next sequence number.
    template <typename Command>
    quint64 post(Command command);
    void onFrame(const GatewayFramePtr& frame);
    void onRestarted(GatewayWorker::Restart why, const std::string& detail);

    // Destroyed in reverse: thread_ joins first, then worker_ goes, then inbox_, which both post
    // to, drops what it still holds.
    UiInbox inbox_;
    std::unique_ptr<GatewayWorker> worker_;  // used on thread_ only, once constructed
    WorkerThread thread_;
    GatewayFramePtr latest_;
    quint64 seq_ = 0;
    bool started_ = false;
};

}  // namespace taillab::ui
