// The latency files a user names whole (an interval log, a percentile distribution), read by
// taillab-cli hdr and the GUI's overlay alike: through readTextFile's checks (a regular file, no
// larger than its kind's limit, which is checked before a byte is read) and parsed, so that both
// refuse the same files in the same words.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "metrics/hdr_log.h"
#include "metrics/hgrm.h"

namespace taillab {

// An interval log's size limit: a week of one-second intervals is about 150 MiB.
inline constexpr std::size_t kMaxHlogBytes = std::size_t{1} << 30;
// A percentile distribution's: formatHgrm's at 1,000 ticks a half distance (the most taillab-cli
// hdr --ticks writes) is a few MiB; HdrHistogram's own tools write far less.
inline constexpr std::size_t kMaxHgrmBytes = std::size_t{64} << 20;

// A latency file that cannot be read or does not parse; the message names the file and, for its
// content, the line (and column): "a.hlog: is 1073741825 bytes; a log of intervals may be at most
// 1 GiB", "a.hlog:5: bad base64 ...", "a.hgrm:4:16: expected a total count ...".
class LatencyFileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The interval log at `path`, parsed (parseHdrLog). `max_bytes` is for tests.
HdrLog readHdrLogFile(const std::string& path, std::size_t max_bytes = kMaxHlogBytes);
// The percentile distribution at `path`, parsed (parseHgrm). `max_bytes` is for tests.
std::vector<HgrmRow> readHgrmFile(const std::string& path, std::size_t max_bytes = kMaxHgrmBytes);

}  // namespace taillab
