// taillab-cli subcommands. Each takes the arguments after its name and returns the exit code:
// 0 ok, 2 bad input (with a message on stderr), 1 internal error, 3 (run, sweep) a check failed
// (compare reports failed checks in its table, not in its exit code).
#pragma once

#include <string>
#include <vector>

namespace taillab::cli {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitChecksFailed = 3;

// Thrown for bad input anywhere in argument handling; main prints it and exits 2.
struct UsageError {
    std::string message;
};

int cmdRun(const std::vector<std::string>& args);
int cmdList(const std::vector<std::string>& args);
int cmdHdr(const std::vector<std::string>& args);
int cmdSweep(const std::vector<std::string>& args);
int cmdCompare(const std::vector<std::string>& args);
int cmdLoad(const std::vector<std::string>& args);
int cmdFleet(const std::vector<std::string>& args);
int cmdServe(const std::vector<std::string>& args);
int cmdLive(const std::vector<std::string>& args);
int cmdTwin(const std::vector<std::string>& args);

// Resolves a scenario argument: a path, or a name/relative path under the scenario directory.
std::string resolveScenarioPath(const std::string& arg);
std::string scenarioDirectory();

}  // namespace taillab::cli
