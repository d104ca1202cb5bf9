#include "redraw_scheduler.h"

#include <algorithm>

namespace taillab::ui {

RedrawScheduler::RedrawScheduler(QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    connect(&timer_, &QTimer::timeout, this, [this] {
        const DirtyLevel level = pending_;
        pending_ = DirtyLevel::None;
        sinceRedraw_.start();
        if (level != DirtyLevel::None) emit redraw(level);
    });
}

void RedrawScheduler::request(DirtyLevel level) {
    pending_ = std::max(pending_, level);
    if (timer_.isActive()) return;
    const qint64 since = sinceRedraw_.isValid() ? sinceRedraw_.elapsed() : kIntervalMs;
    timer_.start(static_cast<int>(std::max<qint64>(0, kIntervalMs - since)));
}

}  // namespace taillab::ui
