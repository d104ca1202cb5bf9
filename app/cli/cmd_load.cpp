// taillab-cli load: the open-loop load generator (core/live/load_generator.h) from the command
// line. Everything is checked before the first request leaves: the URL, the rate or schedule, the
// duration, the output files, the file descriptors the connections need, and that something
// listens at the URL.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <system_error>

#include "commands.h"
#include "io/atomic_file.h"
#include "io/text_file.h"
#include "live/load_generator.h"
#include "live_options.h"
#include "load_report.h"
#include "metrics/hdr_log.h"
#include "metrics/hgrm.h"
#include "scenario_options.h"

namespace taillab::cli {
namespace {

const char* kLoadUsage = R"(usage: taillab-cli load URL (--rate R | --schedule FILE) --duration D [options]

Sends POST requests open-loop (core/live/PROTOCOL.md): each leaves at its intended time whatever
the server does, and is timed from that time (corrected) as well as from when it got a
connection (uncorrected), so a stalled server shows in the percentiles. Progress on stderr once a
second; a summary on stdout at the end.

  URL                  http://HOST:PORT[/PATH]; without a path, /search/ENDPOINT
  --rate R             requests per second (> 0)
  --schedule FILE      rate steps instead of --rate: lines 'SECONDS RATE', the first at 0
  --duration D         how long to send: 30, 30s, 1500ms, 2m
  --connections N      most connections open at once (default: peak rate x 0.25 s, at least 8);
                       a request with none free waits, and the wait counts in corrected latency;
                       a warning (progress, summary, JSON connection_pool_bottleneck) says when
                       that wait is over 1 ms and a tenth of the corrected latency at p99
  --keys K1,K2,...     API keys for 'Authorization: Bearer', in rotation (default: none)
  --keys-file FILE     the same, one key a line ('#' comments and blank lines skipped; - reads
                       standard input), so that keys stay out of the process list
  --endpoint lite|fast the path /search/lite (default) or /search/fast, for a URL without one
  --timeout D          a request with no answer by then fails as a timeout (default 10s)
  --hgrm FILE          corrected percentile distribution (HdrHistogram .hgrm, in ms); the
                       uncorrected one goes beside it as FILE's name with .uncorrected
  --hlog FILE          HdrHistogram interval log, one histogram a second (values in µs, so
                       HistogramLogProcessor needs -outputValueUnitRatio 1000 to print ms):
                       corrected untagged, uncorrected as Tag=uncorrected
  --json FILE          the summary as JSON
  --quiet              no progress lines

Exit codes: 0 the run finished (failed requests are counted, not fatal), 2 bad input or nothing
listening at URL, 1 internal error. Ctrl-C ends the run within a second and reports it: requests
still waiting for a connection, or unanswered 0.3 s later, are counted as abandoned and recorded
in the corrected percentiles (and --hgrm, --hlog) at their age then, a lower bound on their
latency, so a stall the run was stopped in still shows; the elapsed time runs to the stop.
)";

struct LoadOptions {
    std::string url;
    std::optional<double> rate;
    std::string schedulePath;
    std::optional<std::chrono::nanoseconds> duration;
    std::optional<std::size_t> connections;
    std::vector<std::string> keys;
    std::string keysPath;
    std::optional<std::string> endpoint;
    std::chrono::nanoseconds timeout = std::chrono::seconds(10);
    std::string hgrmPath, hlogPath, jsonPath;
    bool quiet = false;
};

// "30", "30s", "1500ms", "2m", "1.5s", "250us" (seconds when there is no unit).
std::chrono::nanoseconds parseDuration(const std::string& flag, const std::string& text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const std::string unit(end, text.data() + text.size());
    double scale = 0;
    if (unit.empty() || unit == "s") scale = 1e9;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "us") scale = 1e3;
    else if (unit == "m") scale = 60e9;
    if (text.empty() || ec != std::errc{} || scale == 0 || !std::isfinite(value) || value <= 0 ||
        value * scale > 1e9 * 86400 * 7 || value * scale < 1)
        throw UsageError{flag + " expects a duration above 0 up to a week such as 30s, 1500ms or 2m, found '" +
                         text + "'"};
    return std::chrono::nanoseconds(std::llround(value * scale));
}

LoadOptions parseLoadOptions(const std::vector<std::string>& args) {
    LoadOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--rate") {
            o.rate = parseRateOption(optionValue(args, i));
        } else if (a == "--schedule") {
            o.schedulePath = optionValue(args, i);
        } else if (a == "--duration") {
            o.duration = parseDuration(a, optionValue(args, i));
        } else if (a == "--timeout") {
            o.timeout = parseDuration(a, optionValue(args, i));
        } else if (a == "--connections") {
            o.connections = parseConnectionsOption(optionValue(args, i));
        } else if (a == "--keys") {
            o.keys = splitList(a, optionValue(args, i));
        } else if (a == "--keys-file") {
            o.keysPath = optionValue(args, i);
        } else if (a == "--endpoint") {
            o.endpoint = optionValue(args, i);
            if (*o.endpoint != "lite" && *o.endpoint != "fast")
                throw UsageError{"--endpoint expects lite or fast, found '" + *o.endpoint + "'"};
        } else if (a == "--hgrm" || a == "--hlog" || a == "--json") {
            std::string& path = a == "--hgrm" ? o.hgrmPath : a == "--hlog" ? o.hlogPath : o.jsonPath;
            path = outputPathValue(args, i);
            if (path == "-") throw UsageError{a + " needs a file path (stdout holds the summary)"};
        } else if (a == "--quiet") {
            o.quiet = true;
        } else if (a.size() > 1 && a[0] == '-') {
            throw UsageError{"unknown option '" + a + "' (try taillab-cli load --help)"};
        } else if (o.url.empty()) {
            o.url = a;
        } else {
            throw UsageError{"more than one URL given ('" + o.url + "', '" + a + "')"};
        }
    }
    if (o.url.empty()) throw UsageError{"no URL given (try taillab-cli load --help)"};
    if (!o.duration) throw UsageError{"--duration is required (e.g. --duration 30s)"};
    if (o.rate && !o.schedulePath.empty()) throw UsageError{"give --rate or --schedule, not both"};
    if (!o.keys.empty() && !o.keysPath.empty()) throw UsageError{"give --keys or --keys-file, not both"};
    if (!o.rate && o.schedulePath.empty()) throw UsageError{"--rate or --schedule is required"};
    return o;
}

// The most a schedule or a key list may hold: far more than any real one, and bounded, so that a
// device or a mistaken file name cannot fill memory.
constexpr std::size_t kMaxListBytes = 16 << 20;

live::RateSchedule readSchedule(const std::string& path, std::chrono::nanoseconds duration) {
    std::string text;
    try {
        text = readTextFile(path, kMaxListBytes, "schedule");
    } catch (const TextFileError& e) {
        throw UsageError{"--schedule: '" + path + "' " + e.what()};
    }
    try {
        return live::parseRateSchedule(text, path, std::chrono::duration<double>(duration).count());
    } catch (const live::ScheduleError& e) {
        throw UsageError{e.what()};
    }
}

// One API key a line; '#' starts a comment line; blank lines are skipped. A key that cannot be sent
// in a header is refused with its file and line.
std::vector<std::string> readKeys(const std::string& path) {
    const std::string name = path == "-" ? "standard input" : path;
    std::string text;
    if (path == "-") {
        // Read in blocks up to the bound: standard input may never end.
        char block[1 << 16];
        while (std::cin.read(block, sizeof block) || std::cin.gcount() > 0) {
            text.append(block, static_cast<std::size_t>(std::cin.gcount()));
            if (text.size() > kMaxListBytes)
                throw UsageError{"--keys-file: standard input holds over " + std::to_string(kMaxListBytes >> 20) +
                                 " MiB; a key list may be at most that"};
        }
    } else {
        try {
            text = readTextFile(path, kMaxListBytes, "key list");
        } catch (const TextFileError& e) {
            throw UsageError{"--keys-file: '" + path + "' " + e.what()};
        }
    }
    std::istringstream in(text);
    std::vector<std::string> keys;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const auto last = line.find_last_not_of(" \t");
        const std::string key = line.substr(first, last - first + 1);
        for (const char c : key)
            if (c <= ' ' || c == 0x7f || c == ',')
                throw UsageError{name + ":" + std::to_string(n) +
                                 ": an API key must be printable text without spaces or commas"};
        keys.push_back(key);
    }
    if (keys.empty()) throw UsageError{"--keys-file: " + name + " holds no keys"};
    return keys;
}

// Connects once, so that a mistyped port is an error now rather than a run of refusals.
void checkListening(const live::HostPort& at) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(at.port);
    ::inet_pton(AF_INET, at.host.c_str(), &addr.sin_addr);
    int error = 0;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        error = errno;
        if (error == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            error = ::poll(&p, 1, 3000) == 1 ? 0 : ETIMEDOUT;
            socklen_t len = sizeof error;
            if (error == 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
        }
    }
    ::close(fd);
    if (error != 0)
        throw UsageError{"nothing answers at " + live::toString(at) + " (" + std::strerror(error) + ")"};
}

live::LoadConfig buildConfig(const LoadOptions& o) {
    live::LoadConfig c;
    try {
        c.url = live::parseUrl(o.url);
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    }
    if (c.url.target == "/") {
        c.url.target = "/search/" + o.endpoint.value_or("lite");
    } else if (o.endpoint) {
        throw UsageError{"the URL names the path '" + c.url.target + "' and --endpoint names another: give one"};
    }
    c.duration = *o.duration;
    c.schedule = o.rate ? live::RateSchedule::constant(*o.rate) : readSchedule(o.schedulePath, c.duration);
    c.connections = o.connections.value_or(live::defaultConnections(c.schedule));
    c.keys = o.keysPath.empty() ? o.keys : readKeys(o.keysPath);
    c.timeout = o.timeout;
    return c;
}

// Whether two output names reach one file: spelled alike once made absolute and normal ("x" and
// "./x"), or through links to one file that exists.
bool sameFile(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec) && !ec) return true;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

void checkOutputs(const LoadOptions& o) {
    const std::vector<std::string> inputs{o.schedulePath, o.keysPath};
    checkOutputPath(o.hgrmPath, "--hgrm", inputs);
    checkOutputPath(o.hlogPath, "--hlog", inputs);
    checkOutputPath(o.jsonPath, "--json", inputs);
    std::vector<std::string> paths;
    if (!o.hgrmPath.empty()) paths = {o.hgrmPath, uncorrectedHgrmPath(o.hgrmPath)};
    for (const std::string* p : {&o.hlogPath, &o.jsonPath})
        if (!p->empty()) paths.push_back(*p);
    for (std::size_t a = 0; a < paths.size(); ++a)
        for (std::size_t b = a + 1; b < paths.size(); ++b)
            if (sameFile(paths[a], paths[b]))
                throw UsageError{"two outputs would write the same file: '" + paths[a] + "' and '" + paths[b] + "'"};
}

std::atomic<live::LoadGenerator*> gRunning{nullptr};

extern "C" void onInterrupt(int) {
    if (live::LoadGenerator* g = gRunning.load()) g->stop();
}

void writeOutputs(const LoadOptions& o, const live::LoadConfig& config, const live::LoadResult& r) {
    try {
        if (!o.hgrmPath.empty()) {
            const HgrmOptions inMs{5, 1000.0};
            writeFileAtomically(o.hgrmPath, formatHgrm(r.corrected, inMs));
            writeFileAtomically(uncorrectedHgrmPath(o.hgrmPath), formatHgrm(r.uncorrected, inMs));
        }
        if (!o.jsonPath.empty()) writeFileAtomically(o.jsonPath, loadSummaryJson(config, r).dump(2) + "\n");
    } catch (const std::system_error& e) {
        throw UsageError{e.what()};
    }
}

}  // namespace

int cmdLoad(const std::vector<std::string>& args) {
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            std::cout << kLoadUsage;
            return kExitOk;
        }
    }
    const LoadOptions o = parseLoadOptions(args);
    const live::LoadConfig config = buildConfig(o);
    checkOutputs(o);
    std::optional<live::LoadGenerator> made;
    try {
        made.emplace(config);
    } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
    }
    live::LoadGenerator& generator = *made;
    ensureDescriptors(config.connections);
    checkListening(config.url.at);

    // The interval log goes to its temporary as the run goes (a week-long run writes two lines a
    // second), and into place at the end. A write that fails stops the log, not the run: the
    // error is reported with the summary.
    std::optional<AtomicFileWriter> hlogFile;
    std::optional<HdrLogWriter> hlog;
    std::string hlogError;
    const auto logInterval = [&](const live::LoadInterval& i) {
        if (o.hlogPath.empty() || !hlogError.empty()) return;
        try {
            if (!hlogFile) {
                hlogFile.emplace(o.hlogPath);
                hlog.emplace(i.start_epoch_ms);
                hlogFile->append(hlog->header());
            }
            hlogFile->append(hlog->interval(i.start_s, i.length_s, *i.corrected) +
                             hlog->interval(i.start_s, i.length_s, *i.uncorrected, "uncorrected"));
        } catch (const std::system_error& e) {
            hlogError = e.what();
            hlogFile.reset();  // removes the temporary; the old file stays
        }
    };
    gRunning = &generator;
    auto previous = std::signal(SIGINT, onInterrupt);
    const live::LoadResult result = generator.run([&](const live::LoadInterval& i) {
        if (!o.quiet) std::cerr << loadProgressLine(i) << "\n";
        logInterval(i);
    });
    std::signal(SIGINT, previous);
    gRunning = nullptr;

    // The summary first: should a file fail to write after a long run, the numbers are not lost.
    std::cout << loadSummaryText(config, result) << std::flush;
    if (!o.hlogPath.empty() && hlogError.empty()) {
        try {
            if (!hlogFile) {  // no interval ended: the header alone
                hlogFile.emplace(o.hlogPath);
                hlogFile->append(HdrLogWriter(result.start_epoch_ms).header());
            }
            hlogFile->commit();
        } catch (const std::system_error& e) {
            hlogError = e.what();
        }
    }
    writeOutputs(o, config, result);
    if (!hlogError.empty()) throw UsageError{hlogError};
    return kExitOk;
}

}  // namespace taillab::cli
