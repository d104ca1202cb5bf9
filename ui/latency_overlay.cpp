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
        const HdrHistogram merged = readHlog(path);
        overlay.series = percentileSeries(name.toStdString(), merged);
        for (double& y : overlay.series.y) y *= toMs * 1000.0;  // as for a latency log below
        overlay.count = merged.totalCount();
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
    if (h.empty())
        throw std::runtime_error(path.toStdString() + ": no latency values in range");
    // percentileSeries reads the histogram as µs and gives ms: rescale to the file's unit.
    overlay.series = percentileSeries(name.toStdString(), h);
    for (double& y : overlay.series.y) y *= toMs * 1000.0;
    overlay.count = h.totalCount();
    return overlay;
}

}  // namespace taillab::ui
