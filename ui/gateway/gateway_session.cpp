#include "gateway/gateway_session.h"

#include "gateway/gateway_worker.h"

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

GatewaySession::GatewaySession(QObject* parent) : QObject(parent) {
    qRegisterMetaType<GatewayFramePtr>("taillab::ui::GatewayFramePtr");
    thread_.setObjectName("taillab-gateway");
    worker_ = new GatewayWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &GatewayWorker::frameReady, this, &GatewaySession::onFrame,
            Qt::QueuedConnection);
    connect(worker_, &GatewayWorker::failed, this, &GatewaySession::failed, Qt::QueuedConnection);
    connect(worker_, &GatewayWorker::notice, this, &GatewaySession::notice, Qt::QueuedConnection);
    thread_.start();
}

GatewaySession::~GatewaySession() {
    GatewayWorker* worker = worker_;
    QMetaObject::invokeMethod(worker_, [worker] { worker->stop(); }, Qt::QueuedConnection);
    thread_.quit();
    thread_.wait();
}

template <typename Command>
quint64 GatewaySession::post(Command command) {
    const quint64 seq = ++seq_;
    GatewayWorker* worker = worker_;
    QMetaObject::invokeMethod(
        worker_, [worker, seq, command] { command(worker, seq); }, Qt::QueuedConnection);
    return seq;
}

quint64 GatewaySession::start(const Params& params, std::uint64_t seed, const Timeline& timeline,
                              bool play) {
    started_ = true;
    return post([params, seed, timeline, play](GatewayWorker* w, quint64 seq) {
        w->reset(seq, params, seed, timeline, play);
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

quint64 GatewaySession::applyParams(const Params& params) {
    return post([params](GatewayWorker* w, quint64 seq) { w->applyParams(seq, params); });
}

void GatewaySession::onFrame(const GatewayFramePtr& frame) {
    if (!frame) return;
    // Frames arrive in order; one that reflects fewer commands than the latest cannot exist.
    latest_ = frame;
    emit frameArrived(frame);
}

}  // namespace taillab::ui
