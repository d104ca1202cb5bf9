#include "vary_parse.h"

#include "commands.h"
#include "scenario_options.h"

namespace taillab::cli {

Vary parseVary(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError{"--vary expects dotted.path=v1,v2,..., found '" + text + "'"};
    Vary v{text.substr(0, eq), {}};
    v.values = splitList("--vary " + v.path, text.substr(eq + 1));
    return v;
}

}  // namespace taillab::cli
