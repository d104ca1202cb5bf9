// The request path drawn stage by stage (edge -> gateway -> compiler -> cache -> router ->
// engines -> merge): one box per stage with how many requests entered and passed it, how many
// synthetic health probes did (they go through the path like any request, on every card they
// reach, counted apart from the customers' requests), the mean and max simulated time spent in
// it, and a bar of that time against the stage's budget (seed 000's budget table). Painted with
// QPainter from the latest snapshot.
#pragma once

#include <QWidget>

#include "gateway/gateway_frame.h"

namespace taillab::ui {

class StagePathWidget : public QWidget {
    Q_OBJECT
  public:
    explicit StagePathWidget(QWidget* parent = nullptr);
    void setSnapshot(GatewaySnapshotPtr snapshot);
    // A live gateway's stages take measured time, not simulated: the caption says so.
    void setMeasured(bool measured);
    // The probes line on every card (default on); off where no probes can be sent (the live
    // gateway sends none), which saves the line's height.
    void setProbesShown(bool shown);
    bool probesShown() const { return probesShown_; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    // The text of one stage's box (tests and tooltips): its name, the customers' requests in and
    // out ("in 5,829 → out 5,823", probes and stale-while-revalidate refreshes left out: the
    // StageStats flow), mean and max time, the budget, and the
    // probes ("probes in 96 → out 96", "no probes"; "" when the probes line is not shown).
    QStringList stageLines(int stage) const;
    // The same lines, shorter, for a card too narrow for them: "5,829 → 5,823",
    // "5.24 / 12.3 ms" (mean / max), "≤ 8.00 ms", "probes 96 → 96"; with `shortCounts`, counts
    // of 10,000 and more in thousands ("534k → 534k", "probes 34.6k → 34.6k"). The tooltip keeps
    // the long form.
    QStringList compactLines(int stage, bool shortCounts = false) const;
    // The lines as drawn in the card of `stage` at the current width: each long line that does
    // not fit is replaced by its compact form (and elided only if even that is too wide); the
    // budget is left out when it would touch the stage name, and takes its compact form on
    // every card when one card has no room for the long one. Counts read alike on every card:
    // in full where every count line fits with them, else in thousands on every card.
    QStringList drawnLines(int stage) const;
    // The width the lines of a card have, in pixels.
    int textWidth(int stage) const;

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

  private:
    static constexpr int kBudgetGap = 8;  // between a card's name and its budget
    bool longBudgetsFit() const;
    bool fullCountsFit() const;
    QRectF boxRect(int stage) const;
    int captionHeight() const;

    // Rows of text in a card: name, counts, the probes (when shown), times.
    int textLines() const { return probesShown_ ? 4 : 3; }

    GatewaySnapshotPtr snapshot_;
    bool measured_ = false;
    bool probesShown_ = true;
};

}  // namespace taillab::ui
