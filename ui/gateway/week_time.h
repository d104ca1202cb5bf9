// Simulated time as seed 000's week reads it: a run starts at 00:00 UTC of its first day, and
// the views label time as "Tue 04:00". Charts keep their x data in seconds since Mon 00:00, so
// a run that starts on Wednesday still lines up with the week.
#pragma once

#include <QString>

namespace taillab::ui::week_time {

constexpr double kDay_s = 86400;
constexpr double kWeek_s = 7 * kDay_s;

// Seconds from Mon 00:00 to 00:00 of `startDay` (0 = Mon ... 6 = Sun).
double startOffset_s(int startDay);
// "Tue 04:00" (with seconds: "Tue 04:00:15") for seconds since Mon 00:00.
QString label(double weekSeconds, bool withSeconds = false);
// "Tue\n04:00": the two-line form axis ticks use.
QString tickLabel(double weekSeconds);
// "2 d 03:15:00": a simulated duration.
QString duration(double seconds);

}  // namespace taillab::ui::week_time
