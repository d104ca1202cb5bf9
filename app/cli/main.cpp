// taillab-cli: headless runs, sweeps and comparisons, scenario listing and latency-log analysis.
#include <exception>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "commands.h"

namespace {

const char* kUsage = R"usage(taillab-cli: TailLab without the window

usage:
  taillab-cli list                       scenarios, one line each
  taillab-cli run SCENARIO [--seed N] [--set dotted.path=value ...] [--out FILE]
                                         run a scenario; writes the result JSON to FILE or stdout
  taillab-cli sweep SCENARIO --vary dotted.path=v1,v2,... [--vary ...] [--seed N]
                    [--set dotted.path=value ...] [--jobs N] [--format csv|json|md]
                    [--figures f1,f2,...] [--out FILE] [--quiet]
                                         run a scenario once per point of the cartesian product
                                         of the --vary lists (first --vary slowest), --jobs at a
                                         time (default: one per core); writes one table: the
                                         varied values, the lab's figures (or just --figures),
                                         checks_passed, checks_total; progress on stderr.
                                         A list may be a JSON array, each element one value, for
                                         values that hold commas: --vary 'params.hedge_mode=
                                         ["fixed", "rolling p90 per (region, engine)"]'
  taillab-cli compare A [B] [--set dotted.path=value ...] [--a-set ...] [--b-set ...]
                      [--seed N] [--jobs N] [--format md|csv|json]
                      [--series all|none|CHART_ID[,CHART_ID...]] [--out FILE] [--quiet]
                                         compare two runs of one lab. A and B are each a result
                                         file written by run --out or a SCENARIO; with A alone,
                                         B is A changed by the --b-set overrides (at least one).
                                         --set and --seed apply to every scenario side, --a-set
                                         and --b-set to one; scenario sides run in parallel.
                                         Writes the parameters that differ (the seed too), the
                                         timeline events that differ in what they do (time,
                                         knobs set, fault; new labels apart), the figures (A, B,
                                         B - A, (B - A)/|A|), the checks of both and, per
                                         --series (default: percentiles_over_time when there
                                         is one), each time chart's windows aligned on x.
                                         md (default) rounds for reading, with units; csv and
                                         json keep exact numbers. Progress on stderr.
                                         Failed checks do not change compare's exit code.
  taillab-cli hdr [FILE|-] [--input text|u64le|hlog] [--tag T] [--hgrm OUT] [--ticks N]
                  [--scale X] [--lowest N] [--highest N] [--digits N]
                                         record a latency log (one number a line, little-endian
                                         uint64, or interval logs merged) and print a JSON
                                         summary; --hgrm writes the
                                         percentile distribution in HdrHistogram's format
                                         (taillab-cli hdr --help for details)
  taillab-cli load URL (--rate R | --schedule FILE) --duration D [--connections N]
                   [--keys K1,K2 | --keys-file FILE] [--endpoint lite|fast] [--timeout D] [--hgrm FILE]
                   [--hlog FILE] [--json FILE] [--quiet]
                                         open-loop HTTP load: corrected and uncorrected
                                         percentiles, scheduling lag, status and failure
                                         counts (taillab-cli load --help for details)
  taillab-cli fleet SCENARIO [--listen HOST:PORT] [--seed N] [--set dotted.path=value ...]
                    [--duration D] [--start-at T]
                                         the scenario's upstream engines over HTTP (live mode,
                                         core/live/PROTOCOL.md) on 127.0.0.1 (port 0: any free
                                         one); prints "NAME URL" per engine, stops on Ctrl-C,
                                         SIGTERM or after D (90, 90s, 1500ms, 5m, 2h); starts
                                         at T on the scenario's clock (e.g. 9.5h: Mon 09:30 of a
                                         run from Monday), its timeline applied up to then; its
                                         /admin endpoints take no authentication: an address
                                         other than loopback (0.0.0.0) is allowed, with a warning
  taillab-cli serve SCENARIO [--listen HOST:PORT] --upstream NAME=URL ... [--seed N]
                    [--set dotted.path=value ...] [--duration D] [--start-at T] [--drain D]
                    [--keys] [--admin]
                                         the scenario's gateway over HTTP on 127.0.0.1:8080 (live
                                         mode): POST /search/lite and /search/fast, GET /metrics
                                         and /healthz; one --upstream per engine (the URLs fleet
                                         prints); --keys lists the scenario's API keys; --admin
                                         serves POST /admin/knobs and GET /admin/state (no
                                         authentication: a warning when --listen is not
                                         loopback); the scenario's timeline applies its knob
                                         changes from T on its clock, as fleet's --start-at
                                         (give both the same T); on Ctrl-C, SIGTERM or after
                                         --duration it stops taking requests and answers those
                                         in flight, with a 503 once --drain (default 5s) is up
  taillab-cli live SCENARIO --duration D [--rate R] [--connections N] [--start-at T] [--seed N]
                   [--set dotted.path=value ...] [--out FILE] [--quiet]
                                         fleet, gateway and open-loop load in one process over
                                         loopback HTTP; the load is the scenario's own arrivals
                                         from T, scaled to about R requests/s over the first hour
                                         (default 100); writes the same result JSON as run, plus
                                         the clients' view ("load"); its time charts in seconds
                                         since the start, in 10 s windows (--set
                                         params.window_s=S for others), the last one kept
  taillab-cli twin SCENARIO --duration D [--rate R] [--start-at T] [--seed N]
                   [--set dotted.path=value ...] [--out FILE]
                                         the scenario simulated and live on the same arrivals
                                         (D of them from T on the scenario's clock, e.g. 38h for
                                         Tue 14:00, scaled to about R requests/s, default 50):
                                         percentiles, hedge rate, extra upstream load, cache hit
                                         rate and breaker openings side by side with tolerances,
                                         the simulation charging the stage costs the live run
                                         measured (its model's are printed beside them); exit 3
                                         when the live run diverges
  taillab-cli --help

SCENARIO is a path to a scenario file or a name under the scenarios directory
(e.g. labs/fanout). Exit codes: 0 ok (run, sweep: all checks pass or no checks;
compare: whatever the checks say), 2 bad input, 1 internal error, 3 run finished but a
check failed (sweep: at any point; the whole table is still written).
)usage";

// The usage of one command: its entry in kUsage (from "  taillab-cli COMMAND" to the next entry)
// and the notes after the list; "" for a command kUsage does not list.
std::string commandUsage(const std::string& command) {
    const std::string usage = kUsage;
    const std::string entry = "\n  taillab-cli " + command + " ";
    const std::size_t begin = usage.find(entry);
    if (begin == std::string::npos) return {};
    const std::size_t end = usage.find("\n  taillab-cli ", begin + entry.size());
    const std::size_t notes = usage.find("\n\n", end);
    return "usage:" + usage.substr(begin, end - begin) + "\n" +
           (notes == std::string::npos ? std::string() : usage.substr(notes + 1));
}

// "list, run, sweep, ...": the commands kUsage lists, in its order.
std::string commandNames() {
    const std::string usage = kUsage;
    const std::string entry = "\n  taillab-cli ";
    std::string names;
    for (std::size_t at = usage.find(entry); at != std::string::npos; at = usage.find(entry, at + 1)) {
        const std::size_t begin = at + entry.size();
        const std::string name = usage.substr(begin, usage.find_first_of(" \n", begin) - begin);
        if (!name.starts_with("-")) names += (names.empty() ? "" : ", ") + name;
    }
    return names;
}

bool asksForHelp(const std::vector<std::string>& args) {
    for (const std::string& a : args)
        if (a == "--help" || a == "-h") return true;
    return false;
}

using namespace taillab::cli;

// A command's exit code, unless what it wrote to standard output was lost (a full disk, a closed
// pipe): then the run did not deliver its result, whatever the command thought.
int withOutputChecked(int code) {
    std::cout.flush();
    if (!std::cout) {
        // (errno is not reported: by now it may belong to a later call, not the failed write)
        std::cerr << "taillab-cli: cannot write standard output (a full disk, or a reader that went away)\n";
        return code == kExitOk ? kExitInternal : code;
    }
    return code;
}

// Every option but these takes one value or none: given twice, one of the two would be dropped
// without a word (the last --out, the first --input), so it is a mistake to say out loud.
void refuseRepeatedOptions(const std::vector<std::string>& args) {
    static const std::set<std::string> repeatable{"--set", "--vary", "--a-set", "--b-set", "--upstream"};
    std::map<std::string, std::string> seen;  // option -> the value it came with ("" if none)
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!a.starts_with("--") || a.size() < 3 || repeatable.contains(a)) continue;
        const std::string value = i + 1 < args.size() && !args[i + 1].starts_with("--") ? args[i + 1] : "";
        const auto [it, first] = seen.emplace(a, value);
        if (!first)
            throw UsageError{a + " given twice" +
                             (it->second.empty() && value.empty()
                                  ? std::string()
                                  : " ('" + it->second + "', then '" + value + "')")};
    }
}

int dispatch(const std::string& command, const std::vector<std::string>& args) {
    refuseRepeatedOptions(args);
    if (command == "run") return cmdRun(args);
    if (command == "list") return cmdList(args);
    if (command == "hdr") return cmdHdr(args);
    if (command == "sweep") return cmdSweep(args);
    if (command == "compare") return cmdCompare(args);
    if (command == "load") return cmdLoad(args);
    if (command == "fleet") return cmdFleet(args);
    if (command == "serve") return cmdServe(args);
    if (command == "twin") return cmdTwin(args);
    if (command == "live") return cmdLive(args);
    std::cerr << "taillab-cli: unknown command '" << command << "' (try --help)\n";
    return kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace taillab::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        // A mistake, not a request: said where errors go, short, pointing at the whole usage.
        std::cerr << "usage: taillab-cli COMMAND ... (commands: " << commandNames()
                  << "; taillab-cli --help describes them)\n";
        return kExitBadInput;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << kUsage;
        return withOutputChecked(kExitOk);
    }
    const std::string command = args[0];
    args.erase(args.begin());
    // load and hdr explain their options at length themselves; every other command shows its entry.
    if (command != "load" && command != "hdr" && asksForHelp(args)) {
        const std::string usage = commandUsage(command);
        if (!usage.empty()) {
            std::cout << usage;
            return withOutputChecked(kExitOk);
        }
    }
    try {
        return withOutputChecked(dispatch(command, args));
    } catch (const UsageError& e) {
        std::cerr << "taillab-cli " << command << ": " << e.message;
        if (e.message.starts_with("unknown option") &&
            e.message.find("--help") == std::string::npos)
            std::cerr << " (try taillab-cli " << command << " --help)";
        std::cerr << "\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "taillab-cli " << command << ": internal error: " << e.what() << "\n";
        return kExitInternal;
    }
}
