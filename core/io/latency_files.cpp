#include "io/latency_files.h"

#include "io/text_file.h"

namespace taillab {

HdrLog readHdrLogFile(const std::string& path, std::size_t max_bytes) {
    try {
        return parseHdrLog(readTextFile(path, max_bytes, "log of intervals"));
    } catch (const TextFileError& e) {
        throw LatencyFileError(path + ": " + e.what());
    } catch (const HdrLogError& e) {
        throw LatencyFileError(e.line() > 0 ? path + ":" + std::to_string(e.line()) + ": " + e.reason()
                                            : path + ": " + e.reason());
    }
}

std::vector<HgrmRow> readHgrmFile(const std::string& path, std::size_t max_bytes) {
    try {
        return parseHgrm(readTextFile(path, max_bytes, "percentile distribution"));
    } catch (const TextFileError& e) {
        throw LatencyFileError(path + ": " + e.what());
    } catch (const HgrmError& e) {
        throw LatencyFileError(path + ":" + e.what());  // what(): "LINE:COLUMN: ..."
    }
}

}  // namespace taillab
