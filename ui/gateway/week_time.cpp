#include "gateway/week_time.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace taillab::ui::week_time {
namespace {

constexpr std::array<const char*, 7> kDays{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

struct Parts {
    int day, hour, minute, second;
};

Parts split(double weekSeconds) {
    auto s = static_cast<long long>(std::floor(weekSeconds + 1e-6));
    const auto week = static_cast<long long>(kWeek_s);
    s = ((s % week) + week) % week;
    return {static_cast<int>(s / 86400), static_cast<int>(s / 3600 % 24),
            static_cast<int>(s / 60 % 60), static_cast<int>(s % 60)};
}

QString two(int v) { return QString::number(v).rightJustified(2, '0'); }

}  // namespace

double startOffset_s(int startDay) { return kDay_s * std::clamp(startDay, 0, 6); }

QString label(double weekSeconds, bool withSeconds) {
    const Parts p = split(weekSeconds);
    QString s = QString("%1 %2:%3").arg(kDays[static_cast<std::size_t>(p.day)], two(p.hour),
                                        two(p.minute));
    if (withSeconds) s += ":" + two(p.second);
    return s;
}

QString tickLabel(double weekSeconds) {
    const Parts p = split(weekSeconds);
    return QString("%1\n%2:%3").arg(kDays[static_cast<std::size_t>(p.day)], two(p.hour),
                                    two(p.minute));
}

QString duration(double seconds) {
    const auto s = static_cast<long long>(std::max(0.0, std::floor(seconds)));
    const QString clock = QString("%1:%2:%3").arg(two(static_cast<int>(s / 3600 % 24)),
                                                  two(static_cast<int>(s / 60 % 60)),
                                                  two(static_cast<int>(s % 60)));
    return s >= 86400 ? QString("%1 d %2").arg(s / 86400).arg(clock) : clock;
}

}  // namespace taillab::ui::week_time
