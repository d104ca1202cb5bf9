#include "redraw_scheduler.h"

#include <algorithm>

namespace taillab::ui {

RedrawScheduler::RedrawScheduler(QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    timer_.setInterval(kIntervalMs);
    connect(&timer_, &QTimer::timeout, this, [this] {
        const DirtyLevel level = pending_;
        pending_ = DirtyLevel::None;
        if (level != DirtyLevel::None) emit redraw(level);
    });
}

void RedrawScheduler::request(DirtyLevel level) {
    pending_ = std::max(pending_, level);
    if (!timer_.isActive()) timer_.start();
}

}  // namespace taillab::ui
