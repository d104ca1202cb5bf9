// The latency files a user names whole (an interval log), read through readTextFile's checks (a
// regular file, no larger than its kind's limit, which is checked before a byte is read) and
// parsed, so that every reader refuses the same files in the same words.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "metrics/hdr_log.h"

namespace taillab {

// An interval log's size limit: a week of one-second intervals is about 150 MiB.
inline constexpr std::size_t kMaxHlogBytes = std::size_t{1} << 30;

// A latency file that cannot be read or does not parse; the message names the file and, for its
// content, the line: "a.hlog: cannot open: No such file or directory", "a.hlog:5: bad base64 ...".
class LatencyFileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The interval log at `path`, parsed (parseHdrLog). `max_bytes` is for tests.
HdrLog readHdrLogFile(const std::string& path, std::size_t max_bytes = kMaxHlogBytes);

}  // namespace taillab
