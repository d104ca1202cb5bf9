// Argument handling shared by the commands that run a scenario (`run`, `sweep`, `compare`):
// option values, lists, --jobs, --seed/--set, the positional SCENARIO, writing the output, and
// reporting a failed check.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "labs/lab_result.h"
#include "scenario/scenario.h"

namespace taillab::cli {

// The value after the option at args[i]; advances i past it. Throws UsageError "X needs a value".
const std::string& optionValue(const std::vector<std::string>& args, std::size_t& i);

// The value of an option that names a file to write (--out, --hgrm, ...); advances i past it.
// Throws UsageError for an empty path, which would otherwise read as "not given".
const std::string& outputPathValue(const std::vector<std::string>& args, std::size_t& i);

// A comma-separated list with no empty items; throws UsageError naming `option` otherwise.
std::vector<std::string> splitList(const std::string& option, const std::string& list);

// The value of --jobs: an integer >= 1.
unsigned parseJobs(const std::string& text);

// Handles `--seed N` and `--set dotted.path=value` at args[i]: appends the override ("seed=N" or
// the assignment) and advances i past the value. Returns false when args[i] is neither. Throws
// UsageError for a seed given twice (--seed and --set seed=); two --set of one path are refused
// when the scenario is read (parseScenario).
bool takeOverrideOption(const std::vector<std::string>& args, std::size_t& i,
                        std::vector<std::string>& overrides);

// Takes a non-option argument as the SCENARIO; throws UsageError for an unknown --option or a
// second scenario.
void takeScenarioArgument(const std::string& arg, std::string& scenarioArg);

// Loads a scenario argument (resolved with resolveScenarioPath) with its overrides, each named in
// messages by its entry in `overrideOptions` ("--b-set"; "--set" past its end); a ScenarioError
// becomes a UsageError.
Scenario loadScenarioArgument(const std::string& scenarioArg,
                              const std::vector<std::string>& overrides,
                              const std::vector<std::string>& overrideOptions = {});

// Fails (UsageError naming `flag`) unless a file can be written at `path` ("" and "-" are
// standard output) without destroying one of `inputs` (the scenario, result files or logs being
// read): called before the work, so that a mistyped --out costs nothing.
void checkOutputPath(const std::string& path, const std::string& flag = "--out",
                     const std::vector<std::string>& inputs = {});
// Writes text to path atomically (io/atomic_file.h), or to stdout when path is "" or "-".
void writeOutput(const std::string& text, const std::string& path);

// The knob an override sets ("params.hedge_delay_ms=40" -> "hedge_delay_ms"); "" for one that
// sets something else (the seed, a timeline event).
std::string overriddenKnob(const std::string& override);
// Why the knob `override` sets does nothing in a run with `params` ("hedge_delay_ms is not used
// while Hedge mode is percentile"); "" when it is used, or the override is not a knob's.
std::string unusedOverrideReason(const Params& params, const std::string& override);
// Where the value at JSON pointer `pointer` of `scenario` was given, as notes name it: its file,
// and the last of `overrides` that set it when one did ("gw.json (--vary timeline.0.at)").
// `options` names the option each override came from ("--b-set"; "--set" past its end).
std::string givenIn(const Scenario& scenario, const std::string& pointer,
                    const std::vector<std::string>& overrides,
                    const std::vector<std::string>& options = {});
// Notes on stderr, as "taillab-cli COMMAND: note: --set params.k=v has no effect: ...", each
// override in `overrides` whose knob the run does not use with the other knobs as they are: the
// GUI greys such a knob out; a command line would otherwise take it without a word. Then, as
// "taillab-cli COMMAND: note: FILE: /timeline/N/set/k has no effect: ...", each knob change of
// the scenario's timeline that changes nothing (ineffectiveSettings), each line once a process
// (compare notes two sides that may share a timeline).
// `options` names the option each override came from ("--b-set"; "--set" past its end).
void noteUnusedOverrides(const std::string& command, const Scenario& scenario,
                         const std::vector<std::string>& overrides,
                         const std::vector<std::string>& options = {});

// "check failed: NAME: simulated X, expected Y ± T [source]" (no newline).
std::string failedCheckMessage(const Check& c);

}  // namespace taillab::cli
