// One timer for every redraw, with dirty levels (as Wireshark's I/O graph does): requests
// between two ticks merge into the highest level, and the window redraws at most once per
// kIntervalMs however fast results arrive. A request after a quiet spell is drawn at the next
// turn of the event loop, so throttling never adds latency to a lone result.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace taillab::ui {

enum class DirtyLevel {
    None,
    Replot,   // the view changed: redraw what is there
    Data,     // a new result of the same run: replace data
    Rebuild,  // a new scenario: rebuild tabs, views and tables
};

class RedrawScheduler : public QObject {
    Q_OBJECT
  public:
    static constexpr int kIntervalMs = 30;

    explicit RedrawScheduler(QObject* parent = nullptr);
    void request(DirtyLevel level);
    DirtyLevel pending() const { return pending_; }

  signals:
    void redraw(taillab::ui::DirtyLevel level);

  private:
    QTimer timer_;
    QElapsedTimer sinceRedraw_;
    DirtyLevel pending_ = DirtyLevel::None;
};

}  // namespace taillab::ui
