// Fuzz target: HdrHistogram interval logs (.hlog) and the V2 compressed histogram encoding
// (core/metrics/hdr_log.h), the one reader in TailLab that inflates untrusted zlib streams.
//
// The input is read three ways: as log text (parseHdrLog), as the raw bytes of one compressed
// histogram (decodeCompressedHistogram) and as its base64. Each must return or throw HdrLogError,
// nothing else. Whatever decodes must encode and decode back to the same counts, and a log that
// parses must, written again by HdrLogWriter, parse to the same tags, times and counts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "metrics/hdr_log.h"

namespace {

using namespace taillab;
using fuzz::check;

bool sameCounts(const HdrHistogram& a, const HdrHistogram& b) {
    if (!(a.config() == b.config()) || a.countsLength() != b.countsLength()) return false;
    for (std::size_t i = 0; i < a.countsLength(); ++i)
        if (a.countAtIndex(i) != b.countAtIndex(i)) return false;
    return true;
}

void roundTrip(const HdrHistogram& h) {
    const HdrHistogram back = decodeCompressedHistogram(encodeCompressedHistogram(h));
    check(sameCounts(h, back), "a decoded histogram does not survive encode and decode");
}

template <typename Decode>
void tryDecode(Decode&& decode) {
    try {
        roundTrip(decode());
    } catch (const HdrLogError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input = fuzz::inputText(data, size);
    tryDecode([&] { return decodeCompressedHistogram(input); });
    tryDecode([&] { return decodeCompressedHistogramBase64(input); });

    HdrLog log;
    try {
        log = parseHdrLog(input);
    } catch (const HdrLogError& e) {
        check(e.line() >= 1, "a log error names no line", e.what());
        return 0;
    }
    const HdrLogWriter writer(0);
    std::string text = writer.header();
    for (const HdrLogInterval& i : log.intervals) {
        roundTrip(i.histogram);
        // A tag the writer refuses (a space, a comma) could only come from a hand-made line.
        if (i.tag.find_first_of(", \r\n") != std::string::npos) return 0;
        text += writer.interval(i.start_s, i.length_s, i.histogram, i.tag);
    }
    const HdrLog again = parseHdrLog(text);
    check(again.intervals.size() == log.intervals.size(), "a written log loses or gains intervals");
    for (std::size_t k = 0; k < log.intervals.size(); ++k) {
        check(again.intervals[k].tag == log.intervals[k].tag, "a written log changes a tag");
        check(sameCounts(again.intervals[k].histogram, log.intervals[k].histogram),
              "a written log changes a histogram");
    }
    return 0;
}
