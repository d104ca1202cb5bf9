// Measured latency distributions from files, drawn on the nines charts beside a lab's result
// (in the manner of HdrHistogram's plotter): HdrHistogram's classic percentile distribution
// (.hgrm, parseHgrm), an interval log (.hlog, parseHdrLog: its untagged intervals merged by
// mergeIntervals, into a layout that covers them all) or a latency log (one value a line, or raw
// little-endian uint64 for *.u64le), the formats taillab-cli hdr reads, in a unit the user names.
#pragma once

#include <QString>
#include <cstdint>

#include "labs/lab_result.h"

namespace taillab::ui {

enum class LatencyUnit { Nanoseconds, Microseconds, Milliseconds, Seconds };

double millisecondsPer(LatencyUnit unit);
QString unitName(LatencyUnit unit);  // "ms"
// The unit a file's values most likely have: ms for .hgrm (what percentile printouts use), µs
// for latency logs (taillab-cli hdr's default range is 60 s in µs).
LatencyUnit likelyUnit(const QString& path);
// True for the files readLatencyOverlay takes: .hgrm, .u64le, .log, .txt, .hlog.
bool isLatencyFile(const QString& path);

struct LatencyOverlay {
    QString path;
    LatencyUnit unit = LatencyUnit::Milliseconds;
    Series series;  // x: percentile as a fraction, y: ms; named for the file
    std::int64_t count = 0;  // the values the distribution holds (a .hgrm: its total count)
    // The values read but left out of the distribution, which taillab-cli hdr counts as its
    // out_of_range: a latency log's outside 0 to an hour (negative, or beyond the overlay's
    // range), an interval log's beyond its own histograms' ranges. When there are any, left_out
    // says so ("3 values outside 0 to 1 h left out") and the series' name ends with it.
    std::int64_t out_of_range = 0;
    QString left_out;
};

// Reads a file; throws std::runtime_error naming the file and, for content errors, the line and
// column ("a.hgrm:4:16: expected a total count, found 'x'"). A .hlog or .hgrm is read whole, so
// it may be no larger than taillab-cli hdr takes (kMaxHlogBytes, kMaxHgrmBytes: checked before a
// byte is read); a latency log is read block by block, of any size.
LatencyOverlay readLatencyOverlay(const QString& path, LatencyUnit unit);

}  // namespace taillab::ui
