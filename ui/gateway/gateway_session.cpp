#include "gateway/gateway_session.h"


namespace taillab::ui {

const std::vector<double>& GatewaySession::speeds() {
    static const std::vector<double> kSpeeds{1, 10, 100, 1000, 10000, 0};
    return kSpeeds;
}

QString GatewaySession::speedLabel(double speed) {
    if (speed <= 0) return tr("as fast as it goes");
    if (speed == 1) return tr("1× (real time)");
    return tr("%1×").arg(QString::number(speed, 'f', 0));
}

GatewaySession::GatewaySession(QObject* parent)
    : QObject(parent),
      worker_(std::make_unique<GatewayWorker>(GatewayWorker::Callbacks{
          [this](GatewayFramePtr frame) {
              inbox_.post([this, frame = std::move(frame)] { onFrame(frame); });
          },
          [this](std::string message) {
              inbox_.post([this, message = std::move(message)] {
                  emit failed(QString::fromStdString(message));
              });
          },
          [this](GatewayWorker::Restart why, std::string detail) {
              inbox_.post([this, why, detail = std::move(detail)] { onRestarted(why, detail); });
          }})),
      thread_("taillab-gateway", [w = worker_.get()] { w->tick(); }) {
    qRegisterMetaType<GatewayFramePtr>("taillab::ui::GatewayFramePtr");
    worker_->attach(&thread_);
}

GatewaySession::~GatewaySession() = default;  // thread_ drops the commands not yet run, joins

template <typename Command>
quint64 GatewaySession::post(Command command) {
    const quint64 seq = ++seq_;
    thread_.post([worker = worker_.get(), seq, command] { command(worker, seq); });
    return seq;
}

quint64 GatewaySession::start(const Params& params, std::uint64_t seed, const Timeline& timeline,
                              bool play, std::optional<GatewayWorker::Companion> companion) {
    started_ = true;
    return post([params, seed, timeline, play, companion](GatewayWorker* w, quint64 seq) {
        w->reset(seq, params, seed, timeline, play, companion);
    });
}

quint64 GatewaySession::setPlaying(bool playing) {
    return post([playing](GatewayWorker* w, quint64 seq) { w->setPlaying(seq, playing); });
}

quint64 GatewaySession::setSpeed(double speed) {
    return post([speed](GatewayWorker* w, quint64 seq) { w->setSpeed(seq, speed); });
}

quint64 GatewaySession::seek(double t_s) {
    return post([t_s](GatewayWorker* w, quint64 seq) { w->seek(seq, t_s); });
}

quint64 GatewaySession::applyChanges(const std::vector<KnobSetting>& changes) {
    return post([changes](GatewayWorker* w, quint64 seq) { w->applyChanges(seq, changes); });
}

quint64 GatewaySession::restart(const std::vector<KnobSetting>& changes, std::uint64_t seed,
                                bool play) {
    started_ = true;
    return post([changes, seed, play](GatewayWorker* w, quint64 seq) {
        w->restart(seq, changes, seed, play);
    });
}

void GatewaySession::onRestarted(GatewayWorker::Restart why, const std::string& detail) {
    switch (why) {
        case GatewayWorker::Restart::Shape:
            emit notice(tr("Days, first day and customers shape the whole run: it started again "
                           "from the beginning with the new knobs."));
            break;
        case GatewayWorker::Restart::Ended:
            emit notice(tr("The run had ended: a new one starts from the beginning with the new "
                           "knobs."));
            break;
        case GatewayWorker::Restart::Refused:
            emit notice(tr("%1: the run started again from the beginning with the new knobs.")
                            .arg(QString::fromStdString(detail)));
            break;
    }
}

void GatewaySession::onFrame(const GatewayFramePtr& frame) {
    if (!frame) return;
    // Frames arrive in order; one that reflects fewer commands than the latest cannot exist.
    latest_ = frame;
    emit frameArrived(frame);
}

}  // namespace taillab::ui
