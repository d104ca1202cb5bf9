// The --vary option of `taillab-cli sweep`: "dotted.path=v1,v2,..." or "dotted.path=[JSON values]"
// split into the path and its values (each as --set text; the sweep parses it like a --set
// value). Apart from cmd_sweep.cpp so that the fuzz target tests/fuzz/fuzz_vary.cpp can reach it.
#pragma once

#include <string>
#include <vector>

namespace taillab::cli {

struct Vary {
    std::string path;
    std::vector<std::string> values;  // as typed; parsed like --set values
};

// The list is "v1,v2,..." (split at every comma), or a JSON array "[v1, v2, ...]" whose each
// element is one value, so that a value may hold commas ("rolling p90 per (region, engine)",
// [1,2]); a string element is kept as typed when --set reads it back as that string, else
// written as JSON ("\"5\""). Throws UsageError when there is no '=', the path or the list is
// empty, an item is empty, or a list starting with '[' is not a non-empty JSON array.
Vary parseVary(const std::string& text);

}  // namespace taillab::cli
