#include "vary_parse.h"

#include <nlohmann/json.hpp>

#include "commands.h"
#include "scenario/json_locate.h"
#include "scenario_options.h"

namespace taillab::cli {
namespace {

// An element of a JSON list as a --set value that reads back as that element: a string as typed
// when --set would take it for that same string ("fixed"), else as JSON ("\"5\"", [1,2], 0.5).
std::string overrideValue(const nlohmann::json& element) {
    if (element.is_string()) {
        const std::string& s = element.get_ref<const std::string&>();
        const bool plain = !s.empty() && nlohmann::json::parse(s, nullptr, false).is_discarded() &&
                           s.find_first_of("0123456789-") != 0;
        if (plain) return s;
    }
    return element.dump();
}

// "[v1, v2, ...]": each element one value, so a value may hold commas.
std::vector<std::string> jsonList(const std::string& path, const std::string& list) {
    const std::string option = "--vary " + path;
    if (const auto problem = findJsonTextProblem(list))
        throw UsageError{option + ": in the list at byte " + std::to_string(problem->offset + 1) +
                         ": " + problem->message};
    nlohmann::json values;
    try {
        values = nlohmann::json::parse(list);
    } catch (const nlohmann::json::exception& e) {
        std::string msg = e.what();
        if (const auto cut = msg.find("syntax error"); cut != std::string::npos) msg = msg.substr(cut);
        throw UsageError{option + ": a list starting with '[' is read as a JSON array: " + msg};
    }
    if (!values.is_array() || values.empty())
        throw UsageError{option + ": expected a JSON array of at least one value, found '" +
                         elideText(list) + "'"};
    std::vector<std::string> out;
    for (const auto& v : values) out.push_back(overrideValue(v));
    return out;
}

}  // namespace

Vary parseVary(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError{"--vary expects dotted.path=v1,v2,... or dotted.path=[JSON values], found '" +
                         text + "'"};
    Vary v{text.substr(0, eq), {}};
    const std::string list = text.substr(eq + 1);
    v.values = list.front() == '[' ? jsonList(v.path, list) : splitList("--vary " + v.path, list);
    return v;
}

}  // namespace taillab::cli
