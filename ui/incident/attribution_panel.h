// The incident board's tail attribution: for a moment picked on the charts (the window it falls
// in), where the time of that window's requests went by stage, its slowest requests, and for the
// one selected its waterfall: each stage's work and each upstream call against the time since
// accept, the deadline left when each stage ended, and what refused it (the response's status,
// error and message: the limit, budget or breaker that said no).
//
// The core's attributeWindow (gateway_sim/attribution.h) re-runs the simulation to the window's
// end; it runs on the panel's own WorkerThread, never the UI thread, and a newer request cancels
// the one in flight. Results come back through a UiInbox.
#pragma once

#include <QColor>
#include <QWidget>
#include <memory>
#include <optional>

#include "gateway_sim/attribution.h"
#include "knobs/knob.h"
#include "scenario/timeline.h"

class QLabel;
class QTableWidget;

namespace taillab::ui {

class UiInbox;
class WorkerThread;

// Draws one request's waterfall: a row per stage's work and per upstream call, bars on a common
// time axis from accept to the later of the response and the deadline, the deadline as a line. A
// call's wait in its engine's queue (the "queued" segment) is a thinner bar in kQueuedColor before
// its flight; a call given up in the queue has only that.
class WaterfallWidget : public QWidget {
    Q_OBJECT
  public:
    static constexpr QRgb kQueuedColor = 0xff8e6bbf;  // purple
    explicit WaterfallWidget(QWidget* parent = nullptr);
    void setRequest(std::optional<gateway::RequestWaterfall> request);
    const std::optional<gateway::RequestWaterfall>& request() const { return request_; }
    // The rows as drawn: "cache 0.2–1.9 ms, deadline left 598 ms", "call atlas (primary) ...".
    QStringList rowTexts() const;
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    std::optional<gateway::RequestWaterfall> request_;
};

class AttributionPanel : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kSlowest = 12;

    explicit AttributionPanel(QWidget* parent = nullptr);
    ~AttributionPanel() override;

    // Attributes the window [t0_s, t1_s) of the run (params, seed, timeline) on the worker;
    // `label` names the window and the run ("Tue 07:30–07:40, A: july-v3").
    void attribute(const Params& params, std::uint64_t seed, const Timeline& timeline,
                   double t0_s, double t1_s, const QString& label);
    bool busy() const { return busy_; }
    const std::optional<gateway::WindowAttribution>& result() const { return result_; }

    QLabel* summary() const { return summary_; }
    QTableWidget* stageTable() const { return stages_; }
    QTableWidget* slowestTable() const { return slowest_; }
    WaterfallWidget* waterfall() const { return waterfall_; }
    QLabel* verdict() const { return verdict_; }
    void selectRequest(int row);

  signals:
    void attributed();  // a result is shown
    void failed(QString message);

  private:
    void show(const gateway::WindowAttribution& result, const QString& label);

    std::unique_ptr<UiInbox> inbox_;
    std::unique_ptr<WorkerThread> thread_;
    std::shared_ptr<RunControl> control_;  // the request in flight
    quint64 generation_ = 0;
    bool busy_ = false;
    double offset_s_ = 0;  // the run's first day's 00:00 in seconds since Mon 00:00
    std::optional<gateway::WindowAttribution> result_;
    QLabel* summary_ = nullptr;
    QTableWidget* stages_ = nullptr;
    QTableWidget* slowest_ = nullptr;
    WaterfallWidget* waterfall_ = nullptr;
    QLabel* verdict_ = nullptr;
};

}  // namespace taillab::ui
