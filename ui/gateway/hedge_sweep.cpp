#include "gateway/hedge_sweep.h"

#include <QFileInfo>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gateway_sim/gateway_sim.h"

namespace taillab::ui {

std::optional<SweepPoint> runHedgeSweepPoint(const Params& params, std::uint64_t seed,
                                             double delay_ms, int days, RunControl* control) {
    Params p = params;
    p.set("hedge_mode", 1);  // fixed
    p.set("hedge_delay_ms", delay_ms);
    p.set("days", days);
    gateway::GatewaySim sim(p, seed);
    if (!sim.drain(control)) return std::nullopt;
    const gateway::GatewaySnapshot s = sim.snapshot();
    SweepPoint point;
    point.delay_ms = delay_ms;
    point.p99_ms = static_cast<double>(s.latency_us.valueAtPercentile(99.0)) / 1000.0;
    point.extra_load =
        s.primary_calls > 0
            ? static_cast<double>(s.hedge_calls + s.last_chance_calls + s.retry_calls) /
                  s.primary_calls
            : 0.0;
    return point;
}

std::vector<SweepPoint> readPublishedHedgeSweep(const std::string& path) {
    std::vector<SweepPoint> out;
    std::ifstream in(path);
    if (!in) return out;
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) return out;
    const nlohmann::json* sweep = nullptr;
    if (auto g = doc.find("gateway_000"); g != doc.end() && g->is_object())
        if (auto s = g->find("hedge_delay_sweep"); s != g->end() && s->is_array()) sweep = &*s;
    if (!sweep) return out;
    for (const auto& p : *sweep) {
        if (!p.is_object() || !p.contains("delay_ms") || !p.contains("p99_ms") ||
            !p.contains("extra_upstream_load"))
            continue;
        out.push_back({p["delay_ms"].get<double>(), p["p99_ms"].get<double>(),
                       p["extra_upstream_load"].get<double>()});
    }
    return out;
}

std::string findPublishedFigures(const std::string& scenarioDirectory) {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const QByteArray env = qgetenv("TAILLAB_PUBLISHED_FIGURES"); !env.isEmpty())
        candidates.emplace_back(env.toStdString());
    if (!scenarioDirectory.empty()) {
        const fs::path dir(scenarioDirectory);
        candidates.push_back(dir.parent_path() / "tests" / "data" / "published-figures.json");
        candidates.push_back(dir / ".." / "tests" / "data" / "published-figures.json");
    }
    std::error_code ec;
    for (const auto& c : candidates)
        if (fs::is_regular_file(c, ec)) return c.lexically_normal().string();
    return {};
}

HedgeSweepRunner::HedgeSweepRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<SweepPoint>("taillab::ui::SweepPoint");
}

HedgeSweepRunner::~HedgeSweepRunner() {
    if (control_) control_->requestCancel();
    join();
}

void HedgeSweepRunner::cancel() {
    if (control_ && running_) control_->requestCancel();
}

void HedgeSweepRunner::join() {
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

void HedgeSweepRunner::start(const Params& params, std::uint64_t seed,
                             std::vector<double> delays_ms, int days) {
    if (control_) control_->requestCancel();
    join();
    control_ = std::make_shared<RunControl>();
    const quint64 generation = ++generation_;
    running_ = true;
    const int points = static_cast<int>(delays_ms.size());
    threadCount_ = std::max(1, std::min<int>(points, static_cast<int>(std::max(
                                                         1u, std::thread::hardware_concurrency()))));
    struct Shared {
        std::vector<double> delays;
        std::atomic<int> next{0};
        std::atomic<int> live{0};
    };
    auto shared = std::make_shared<Shared>();
    shared->delays = std::move(delays_ms);
    shared->live = threadCount_;
    if (points == 0) {
        running_ = false;
        emit finished(false);
        return;
    }
    auto control = control_;
    for (int t = 0; t < threadCount_; ++t) {
        threads_.emplace_back([this, shared, control, params, seed, days, generation] {
            for (int i = shared->next++; i < static_cast<int>(shared->delays.size());
                 i = shared->next++) {
                if (control->cancelRequested()) break;
                try {
                    const auto point =
                        runHedgeSweepPoint(params, seed, shared->delays[i], days, control.get());
                    if (!point) break;
                    QMetaObject::invokeMethod(
                        this,
                        [this, generation, i, p = *point] {
                            if (generation == generation_) emit pointDone(i, p);
                        },
                        Qt::QueuedConnection);
                } catch (const std::exception& e) {
                    control->requestCancel();
                    QMetaObject::invokeMethod(
                        this,
                        [this, generation, message = QString::fromStdString(e.what())] {
                            if (generation == generation_) emit failed(message);
                        },
                        Qt::QueuedConnection);
                    break;
                }
            }
            if (--shared->live == 0) {
                const bool cancelled = control->cancelRequested();
                QMetaObject::invokeMethod(
                    this,
                    [this, generation, cancelled] {
                        if (generation != generation_) return;
                        running_ = false;
                        join();
                        emit finished(cancelled);
                    },
                    Qt::QueuedConnection);
            }
        });
    }
}

}  // namespace taillab::ui
