#include "latency_overlay.h"

#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "io/latency_files.h"
#include "metrics/hdr_histogram.h"
#include "metrics/hdr_log.h"
#include "metrics/hgrm.h"
#include "metrics/latency_log.h"

namespace taillab::ui {
namespace {

// The nines axis ends at five nines; a 100% row cannot be drawn on it.
constexpr double kMaxFraction = 0.99999;
constexpr qint64 kBlock = 1 << 20;

// An interval log's untagged intervals merged into one histogram whose layout covers every
// interval's, as `taillab-cli hdr --input hlog` merges them (mergeIntervals), from a file no
// larger than the CLI takes (kMaxHlogBytes).
HdrHistogram readHlog(const QString& path) {
    const HdrLog log = readHdrLogFile(path.toStdString());
    std::optional<HdrHistogram> merged;
    mergeIntervals(log, "", merged);
    if (!merged || merged->empty())
        throw std::runtime_error(path.toStdString() + ": no latency values in its untagged intervals");
    return *merged;
}

// The overlay of a histogram whose values are in the file's unit (the factor toMs from it to
// ms), named `name` and, when the histogram counted values out of range, for them (`range`
// says which those are: "outside 0 to 1 h").
void drawHistogram(LatencyOverlay& overlay, const QString& name, const HdrHistogram& h, double toMs,
                   const QString& range) {
    overlay.count = h.totalCount();
    overlay.out_of_range = h.outOfRangeCount();
    QString named = name;
    if (overlay.out_of_range > 0) {
        overlay.left_out = QString("%L1 %2 %3 left out")
                               .arg(overlay.out_of_range)
                               .arg(overlay.out_of_range == 1 ? "value" : "values", range);
        named.insert(named.size() - 1, "; " + overlay.left_out);  // "a.log (µs; ...)"
    }
    // percentileSeries reads the histogram as µs and gives ms: rescale to the file's unit.
    overlay.series = percentileSeries(named.toStdString(), h);
    for (double& y : overlay.series.y) y *= toMs * 1000.0;
}

}  // namespace

double millisecondsPer(LatencyUnit unit) {
    switch (unit) {
        case LatencyUnit::Nanoseconds: return 1e-6;
        case LatencyUnit::Microseconds: return 1e-3;
        case LatencyUnit::Milliseconds: return 1.0;
        case LatencyUnit::Seconds: return 1e3;
    }
    return 1.0;
}

QString unitName(LatencyUnit unit) {
    switch (unit) {
        case LatencyUnit::Nanoseconds: return "ns";
        case LatencyUnit::Microseconds: return "µs";
        case LatencyUnit::Milliseconds: return "ms";
        case LatencyUnit::Seconds: return "s";
    }
    return "ms";
}

LatencyUnit likelyUnit(const QString& path) {
    return path.endsWith(".hgrm", Qt::CaseInsensitive) ? LatencyUnit::Milliseconds
                                                       : LatencyUnit::Microseconds;
}

bool isLatencyFile(const QString& path) {
    for (const char* ext : {".hgrm", ".u64le", ".log", ".txt", ".hlog"})
        if (path.endsWith(ext, Qt::CaseInsensitive)) return true;
    return false;
}

LatencyOverlay readLatencyOverlay(const QString& path, LatencyUnit unit) {
    LatencyOverlay overlay;
    overlay.path = path;
    overlay.unit = unit;
    const double toMs = millisecondsPer(unit);
    const QString name = QFileInfo(path).fileName() + " (" + unitName(unit) + ")";
    overlay.series = Series{name.toStdString(), SeriesRole::Simulated, {}, {}};
    if (path.endsWith(".hgrm", Qt::CaseInsensitive)) {
        const std::vector<HgrmRow> rows = readHgrmFile(path.toStdString());
        for (const HgrmRow& r : rows) {
            if (r.fraction > kMaxFraction) break;
            if (!overlay.series.x.empty() && r.fraction <= overlay.series.x.back()) continue;
            overlay.series.x.push_back(r.fraction);
            overlay.series.y.push_back(r.value * toMs);
        }
        if (!rows.empty()) overlay.count = rows.back().total_count;
        return overlay;
    }
    if (path.endsWith(".hlog", Qt::CaseInsensitive)) {
        drawHistogram(overlay, name, readHlog(path), toMs, "beyond the log's own range");
        return overlay;
    }
    // A latency log: recorded as taillab-cli hdr does, up to an hour in the file's unit, block by
    // block (no size limit: memory stays flat).
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error(path.toStdString() + ": cannot open: " +
                                 file.errorString().toStdString());
    HdrConfig config;
    config.lowest_discernible = 1;
    config.highest_trackable = std::llround(3.6e6 / toMs);
    config.significant_digits = 3;
    HdrHistogram h(config);
    LatencyLogReader reader(path.endsWith(".u64le", Qt::CaseInsensitive) ? LatencyLogFormat::U64Le
                                                                          : LatencyLogFormat::Text,
                            h);
    try {
        while (!file.atEnd()) {
            const QByteArray block = file.read(kBlock);
            reader.feed(std::string_view(block.constData(), static_cast<std::size_t>(block.size())));
        }
        reader.finish();
    } catch (const LatencyLogError& e) {
        throw std::runtime_error(e.describe(path.toStdString()));
    }
    // As taillab-cli hdr: a value outside the range is counted, not recorded, and not an error.
    const QString range = "outside 0 to 1 h";
    if (h.empty()) {
        std::string why = path.toStdString() + ": no latency values";
        if (h.outOfRangeCount() > 0)
            why += ": all " + std::to_string(h.outOfRangeCount()) + " are " + range.toStdString() +
                   " (read as " + unitName(unit).toStdString() + ")";
        throw std::runtime_error(why);
    }
    drawHistogram(overlay, name, h, toMs, range);
    return overlay;
}

}  // namespace taillab::ui
