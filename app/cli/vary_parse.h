// The --vary option of `taillab-cli sweep`: "dotted.path=v1,v2,..." split into the path and its
// values (each kept as typed; the sweep parses it like a --set value). Apart from cmd_sweep.cpp so
// that the fuzz target tests/fuzz/fuzz_vary.cpp can reach it.
#pragma once

#include <string>
#include <vector>

namespace taillab::cli {

struct Vary {
    std::string path;
    std::vector<std::string> values;  // as typed; parsed like --set values
};

// Throws UsageError when there is no '=', the path or the list is empty, or an item is empty.
Vary parseVary(const std::string& text);

}  // namespace taillab::cli
