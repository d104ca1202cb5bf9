// Prometheus' own linter on a /metrics text, for the tests: what `promtool check metrics` says
// (empty when it accepts the text), and the samples by "name{labels}".
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

namespace taillab::test {

// promtool prints lint problems and exits non-zero on any: "" when it accepts `text`, else what it
// said (or why it could not run).
inline std::string promtoolProblems(const std::string& text) {
    if (std::system("command -v promtool > /dev/null") != 0)
        return "promtool not found: scripts/dev.sh installs Debian's prometheus package";
    char path[] = "/tmp/taillab_metrics_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return "mkstemp failed";
    const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    if (!written) {
        std::remove(path);
        return "could not write " + std::string(path);
    }
    const std::string cmd = std::string("promtool check metrics < ") + path + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        std::remove(path);
        return "popen failed";
    }
    std::string said;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) said += buf;
    const int status = pclose(p);
    std::remove(path);
    if (status != 0 && said.empty()) said = "promtool exited with status " + std::to_string(status);
    return said;
}

// "name{labels}" -> value, for every sample line.
inline std::map<std::string, double> promSamples(const std::string& text) {
    std::map<std::string, double> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const std::size_t space = line.rfind(' ');
        out[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return out;
}

}  // namespace taillab::test
