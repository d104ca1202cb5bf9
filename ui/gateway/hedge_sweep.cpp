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

HedgeSweepRunner::~HedgeSweepRunner() = default;  // sweep_ cancels and joins

void HedgeSweepRunner::cancel() {
    if (sweep_ && running_) sweep_->cancel();
}

void HedgeSweepRunner::start(const Params& params, std::uint64_t seed,
                             std::vector<double> delays_ms, int days) {
    sweep_.reset();  // cancels and joins the sweep in flight, if any
    const quint64 generation = ++generation_;
    std::vector<Runner::Job> jobs;
    jobs.reserve(delays_ms.size());
    for (const double delay : delays_ms) {
        jobs.push_back([params, seed, delay, days](RunControl& control) {
            return runHedgeSweepPoint(params, seed, delay, days, &control);
        });
    }
    sweep_ = std::make_unique<Runner>(std::move(jobs));
    threadCount_ = static_cast<int>(sweep_->threadCount());
    running_ = true;
    // Both callbacks run on worker threads (the last one on the caller's when there are no
    // delays) and use no Qt: they only post to the UI thread, where the generation check drops
    // stale news.
    auto onPoint = [this, generation](std::size_t i, const Runner::Outcome& outcome) {
        if (outcome.error) {
            std::string message = "unknown error";
            try {
                std::rethrow_exception(outcome.error);
            } catch (const std::exception& e) {
                message = e.what();
            } catch (...) {
            }
            inbox_.post([this, generation, message = std::move(message)] {
                if (generation == generation_) emit failed(QString::fromStdString(message));
            });
        } else if (outcome.result && *outcome.result) {
            inbox_.post([this, generation, index = static_cast<int>(i), point = **outcome.result] {
                if (generation == generation_) emit pointDone(index, point);
            });
        }
    };
    auto onFinished = [this, generation] {
        inbox_.post([this, generation] {
            if (generation != generation_) return;
            running_ = false;
            const auto outcome = sweep_->wait();
            emit finished(outcome.cancelled || outcome.firstError.has_value());
        });
    };
    sweep_->start(std::move(onPoint), std::move(onFinished));
}

}  // namespace taillab::ui
