// taillab-cli hdr: records a latency log into an HDR histogram and prints a JSON summary
// (optionally the .hgrm percentile distribution). The log is read in 1 MiB blocks and parsed by
// LatencyLogReader, so tens of millions of values take seconds, not minutes, and memory stays flat.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

#include "commands.h"
#include "io/atomic_file.h"
#include "io/latency_files.h"
#include "metrics/hdr_histogram.h"
#include "metrics/hdr_log.h"
#include "metrics/hgrm.h"
#include "metrics/latency_log.h"
#include "scenario_options.h"

namespace taillab::cli {

namespace {

constexpr std::size_t kBlockSize = 1 << 20;

const char* kHdrUsage = R"(usage: taillab-cli hdr [FILE|-] [options]

Records a latency log (FILE, or standard input for '-' or no FILE) into an HDR histogram and
prints a JSON summary: count, out_of_range, min, max, mean, stddev, p50 ... p99_99 and the
histogram configuration. Values keep the log's own unit (no conversion).

  --input text|u64le|hlog
                       text: one number a line (decimals rounded, blank and '#' lines skipped);
                       u64le: raw little-endian uint64; hlog: HdrHistogram interval logs (one
                       or more FILEs, e.g. taillab-cli load --hlog), their intervals merged.
                       Default: u64le for *.u64le, hlog for *.hlog, else text.
  --tag T              with hlog: the intervals tagged T (default: the untagged ones)
  --hgrm OUT           also write the percentile distribution (HdrHistogram's .hgrm) to OUT
  --ticks N            percentile ticks per half distance in the .hgrm (default 5)
  --scale X            divide .hgrm values by X (default 1)
  --lowest N           lowest discernible value (default 1)
  --highest N          highest trackable value (default 60000000: 60 s in µs); larger values
                       are counted as out of range, not recorded
  --digits N           significant decimal digits, 1..5 (default 3)

max is the highest value equivalent to the largest recorded value (as HdrHistogram_c and Java
report it); max_exact is the largest value itself.
)";

struct HdrOptions {
    std::string input = "-";
    std::vector<std::string> more;  // hlog: the inputs after the first
    std::optional<LatencyLogFormat> format;
    bool hlog = false;
    std::string tag;
    std::string hgrmPath;
    HdrConfig config;
    HgrmOptions hgrm;
};

std::int64_t parseInteger(const std::string& flag, const std::string& text) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw UsageError{flag + " expects an integer, found '" + text + "'"};
    return v;
}

double parsePositiveReal(const std::string& flag, const std::string& text) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
        !std::isfinite(v) || v <= 0)
        throw UsageError{flag + " expects a positive number, found '" + text + "'"};
    return v;
}

HdrOptions parseHdrOptions(const std::vector<std::string>& args) {
    HdrOptions o;
    bool haveInput = false, layoutGiven = false;  // (an option given twice: refused in main)
    std::string hgrmShapedBy;  // the first of --ticks and --scale given

    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
            return args[++i];
        };
        layoutGiven = layoutGiven || a == "--lowest" || a == "--highest" || a == "--digits";
        if (hgrmShapedBy.empty() && (a == "--ticks" || a == "--scale")) hgrmShapedBy = a;
        if (a == "--input") {
            const std::string& v = value();
            if (v == "text") {
                o.format = LatencyLogFormat::Text;
            } else if (v == "u64le") {
                o.format = LatencyLogFormat::U64Le;
            } else if (v == "hlog") {
                o.hlog = true;
            } else {
                throw UsageError{"--input expects text, u64le or hlog, found '" + v + "'"};
            }
        } else if (a == "--tag") {
            o.tag = value();
        } else if (a == "--hgrm") {
            o.hgrmPath = outputPathValue(args, i);
            if (o.hgrmPath == "-")
                throw UsageError{"--hgrm needs a file path (stdout holds the JSON)"};
        } else if (a == "--ticks") {
            const std::int64_t t = parseInteger(a, value());
            // Each tick is a line in every half distance: 1,000 keeps an .hgrm within a few MB.
            if (t < 1 || t > 1'000)
                throw UsageError{"--ticks expects 1..1000, found " + std::to_string(t)};
            o.hgrm.ticks_per_half_distance = static_cast<int>(t);
        } else if (a == "--scale") {
            o.hgrm.value_scale = parsePositiveReal(a, value());
        } else if (a == "--lowest") {
            o.config.lowest_discernible = parseInteger(a, value());
        } else if (a == "--highest") {
            o.config.highest_trackable = parseInteger(a, value());
        } else if (a == "--digits") {
            const std::int64_t d = parseInteger(a, value());
            if (d < 1 || d > 5)
                throw UsageError{"--digits expects 1..5, found " + std::to_string(d)};
            o.config.significant_digits = static_cast<int>(d);
        } else if (a.size() > 1 && a[0] == '-') {
            throw UsageError{"unknown option '" + a + "' (try taillab-cli hdr --help)"};
        } else if (!haveInput) {
            o.input = a;
            haveInput = true;
        } else {
            o.more.push_back(a);
        }
    }
    if (!o.format && !o.hlog && o.input.ends_with(".hlog")) o.hlog = true;
    if (!o.more.empty() && !o.hlog)
        throw UsageError{"more than one input given ('" + o.input + "', '" + o.more.front() +
                         "'): only interval logs (--input hlog) merge"};
    if (!o.tag.empty() && !o.hlog) throw UsageError{"--tag is for interval logs (--input hlog)"};
    if (!hgrmShapedBy.empty() && o.hgrmPath.empty())
        throw UsageError{hgrmShapedBy + " shapes the .hgrm: give --hgrm OUT (without it none is written)"};
    if (o.hlog && o.input == "-") throw UsageError{"--input hlog reads files: name them"};
    if (o.hlog && layoutGiven)
        throw UsageError{"--lowest, --highest and --digits shape a histogram built from values; an "
                         "interval log's histograms carry their own (they merge into one that "
                         "covers them all)"};
    if (!o.format) {
        const bool binaryName = o.input.size() > 6 && o.input.ends_with(".u64le");
        o.format = binaryName ? LatencyLogFormat::U64Le : LatencyLogFormat::Text;
    }
    return o;
}

struct FileCloser {
    void operator()(std::FILE* f) const {
        if (f != stdin) std::fclose(f);
    }
};

// Feeds the whole input to the reader; errors name the input and line.
void readLog(const HdrOptions& o, HdrHistogram& histogram) {
    const bool fromStdin = o.input == "-";
    const std::string name = fromStdin ? "<stdin>" : o.input;
    if (!fromStdin && *o.format == LatencyLogFormat::U64Le) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(o.input, ec);
        if (!ec && size % 8 != 0)
            throw UsageError{name + ": size " + std::to_string(size) +
                             " bytes is not a multiple of 8 (not a u64le log?)"};
    }
    std::unique_ptr<std::FILE, FileCloser> file(fromStdin ? stdin
                                                          : std::fopen(o.input.c_str(), "rb"));
    if (!file) throw UsageError{"cannot open '" + name + "': " + std::strerror(errno)};

    LatencyLogReader reader(*o.format, histogram);
    std::vector<char> block(kBlockSize);
    try {
        for (;;) {
            const std::size_t n = std::fread(block.data(), 1, block.size(), file.get());
            if (n > 0) reader.feed(std::string_view(block.data(), n));
            if (n < block.size()) break;
        }
        if (std::ferror(file.get())) throw UsageError{"error reading '" + name + "'"};
        reader.finish();
    } catch (const LatencyLogError& e) {
        throw UsageError{e.describe(name)};
    }
}

// Merges the intervals tagged o.tag of every interval log named into one histogram whose layout
// covers every interval's (mergeIntervals), in whatever order the files come. Errors name the
// file and line.
std::optional<HdrHistogram> readHlogs(const HdrOptions& o) {
    std::vector<std::string> inputs{o.input};
    inputs.insert(inputs.end(), o.more.begin(), o.more.end());
    std::optional<HdrHistogram> merged;
    std::size_t intervals = 0;
    for (const std::string& path : inputs) {
        HdrLog log;
        try {
            log = readHdrLogFile(path);  // at most kMaxHlogBytes
        } catch (const LatencyFileError& e) {
            throw UsageError{e.what()};
        }
        intervals += mergeIntervals(log, o.tag, merged);
    }
    if (intervals == 0)
        throw UsageError{"no interval" + (o.tag.empty() ? std::string(" without a tag") : " tagged '" + o.tag + "'") +
                         " in " + o.input + (o.more.empty() ? "" : " and the rest")};
    return merged;
}

double rounded3(double x) { return std::round(x * 1000.0) / 1000.0; }

nlohmann::ordered_json summary(const HdrOptions& o, const HdrHistogram& h) {
    nlohmann::ordered_json j;
    j["input"] = o.input;
    if (!o.more.empty()) j["more_inputs"] = o.more;
    j["format"] = o.hlog ? "hlog" : *o.format == LatencyLogFormat::Text ? "text" : "u64le";
    if (o.hlog) j["tag"] = o.tag;
    j["unit"] = "as in the input (values are not converted)";
    j["count"] = h.totalCount();
    j["out_of_range"] = h.outOfRangeCount();
    j["min"] = h.min();
    j["max"] = h.max();
    j["max_exact"] = h.maxRecorded();
    j["mean"] = rounded3(h.mean());
    j["stddev"] = rounded3(h.stddev());
    j["p50"] = h.valueAtPercentile(50);
    j["p90"] = h.valueAtPercentile(90);
    j["p99"] = h.valueAtPercentile(99);
    j["p99_9"] = h.valueAtPercentile(99.9);
    j["p99_99"] = h.valueAtPercentile(99.99);
    j["histogram"] = {{"lowest_discernible", h.config().lowest_discernible},
                      {"highest_trackable", h.config().highest_trackable},
                      {"significant_digits", h.config().significant_digits},
                      {"bucket_count", h.bucketCount()},
                      {"sub_bucket_count", h.subBucketCount()}};
    return j;
}

}  // namespace

int cmdHdr(const std::vector<std::string>& args) {
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            std::cout << kHdrUsage;
            return kExitOk;
        }
    }
    const HdrOptions o = parseHdrOptions(args);
    std::vector<std::string> inputs{o.input};
    inputs.insert(inputs.end(), o.more.begin(), o.more.end());
    checkOutputPath(o.hgrmPath, "--hgrm", inputs);
    std::optional<HdrHistogram> histogram;
    if (o.hlog) {
        histogram = readHlogs(o);
    } else {
        try {
            histogram.emplace(o.config);
        } catch (const std::invalid_argument& e) {
            throw UsageError{e.what()};
        }
        readLog(o, *histogram);
    }

    if (!o.hgrmPath.empty()) {
        try {
            writeFileAtomically(o.hgrmPath, formatHgrm(*histogram, o.hgrm));
        } catch (const std::system_error& e) {
            throw UsageError{e.what()};
        }
    }
    std::cout << summary(o, *histogram).dump(2) << "\n";
    if (!o.hlog && histogram->totalCount() > 0 && o.config.lowest_discernible > 1 &&
        histogram->min() < o.config.lowest_discernible) {
        std::cerr << "taillab-cli hdr: warning: values below --lowest "
                  << o.config.lowest_discernible
                  << " were recorded; the histogram cannot tell them apart, so the percentiles "
                     "among them read as the edges of one bucket (lower --lowest)\n";
    }
    if (!o.hlog && histogram->outOfRangeCount() > 0) {
        std::cerr << "taillab-cli hdr: " << histogram->outOfRangeCount() << " values outside [0, "
                  << o.config.highest_trackable
                  << "] counted as out of range, not recorded (see --highest)\n";
    }
    return kExitOk;
}

}  // namespace taillab::cli
