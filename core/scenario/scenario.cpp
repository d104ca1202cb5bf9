#include "scenario/scenario.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "labs/lab.h"
#include "scenario/json_locate.h"
#include "scenario/json_validator.h"
#include "io/text_file.h"

namespace taillab {
namespace {

std::string formatWhere(const std::string& file, std::optional<int> line, std::optional<int> col,
                        const std::string& path) {
    std::ostringstream out;
    out << (file.empty() ? std::string("<scenario>") : file);
    if (line) out << ':' << *line;
    if (line && col) out << ':' << *col;
    out << ": ";
    if (!path.empty()) out << path << ": ";
    return out.str();
}

// nlohmann reports the byte after the offending token; point at the token's first character.
std::size_t tokenStart(const std::string& text, std::size_t byteAfter) {
    if (byteAfter == 0 || text.empty()) return 0;
    std::size_t i = std::min(byteAfter, text.size()) - 1;
    if (text[i] == '"') {
        while (i > 0) {
            --i;
            if (text[i] == '"' && (i == 0 || text[i - 1] != '\\')) return i;
        }
        return 0;
    }
    auto inWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+'; };
    if (!inWord(text[i])) return i;
    while (i > 0 && inWord(text[i - 1])) --i;
    return i;
}

nlohmann::json::json_pointer dottedToPointer(const std::string& dotted) {
    if (dotted.empty() || dotted.front() == '.' || dotted.back() == '.' ||
        dotted.find("..") != std::string::npos)
        throw std::invalid_argument("'" + dotted +
                                    "' has an empty component (expected names joined by '.')");
    std::string p;
    std::stringstream ss(dotted);
    std::string part;
    while (std::getline(ss, part, '.')) {
        p += '/';
        for (const char c : part) {
            if (c == '~') p += "~0";
            else if (c == '/') p += "~1";
            else p += c;
        }
    }
    return nlohmann::json::json_pointer(p);
}

// Whether `raw` has the shape of a JSON number ("-1.5e3"), whatever its size.
bool looksLikeNumber(const std::string& raw) {
    std::size_t i = raw[0] == '-' ? 1 : 0;
    if (i >= raw.size() || !std::isdigit(static_cast<unsigned char>(raw[i]))) return false;
    return raw.find_first_not_of("0123456789.eE+-", i) == std::string::npos;
}


// Merges `value` into `target`: an object into an object member by member (recursively), anything
// else replaces.
void mergeInto(nlohmann::json& target, const nlohmann::json& value) {
    if (!value.is_object() || !target.is_object()) {
        target = value;
        return;
    }
    for (const auto& [k, v] : value.items()) {
        auto it = target.find(k);
        if (it == target.end()) target[k] = v;
        else mergeInto(*it, v);
    }
}

// Sets `value` at the dotted path in `doc`. A missing member on the way becomes an object, never
// an array; an array's element must exist (an override changes an entry, it cannot add one,
// and an index written as a key must not make nlohmann fill an array up to it).
void setAtPath(nlohmann::json& doc, const std::string& dotted, const nlohmann::json& value) {
    nlohmann::json* node = &doc;
    std::string walked;
    std::stringstream ss(dotted);
    std::vector<std::string> parts;
    for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        const bool last = i + 1 == parts.size();
        if (node->is_array()) {
            std::size_t index = 0;
            const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
            // An index is written as the paths of messages write it ("1", never "01"), so that the
            // override's path and the entry it changed are the same text.
            if (part.size() > 1 && part[0] == '0')
                throw std::invalid_argument("'" + elideText(part, 30) + "' in '" + dotted +
                                            "': write an array index without leading zeros");
            if (ec != std::errc() || end != part.data() + part.size() || index >= node->size())
                throw std::invalid_argument(
                    "'" + walked + "' has " + std::to_string(node->size()) +
                    " entries, numbered from 0: an override changes an entry, it cannot add '" +
                    elideText(part, 30) + "'");
            node = &(*node)[index];
        } else if (node->is_object()) {
            auto it = node->find(part);
            if (it == node->end())
                it = node->emplace(part, last ? nlohmann::json() : nlohmann::json::object()).first;
            node = &*it;
        } else {
            throw std::invalid_argument("'" + walked + "' is " + briefJson(*node) +
                                        ", not an object");
        }
        walked += (walked.empty() ? "" : ".") + part;
    }
    // An object merges member by member: an empty one into an object would set nothing, and
    // pass for a reset it is not.
    if (value.is_object() && value.empty() && node->is_object())
        throw std::invalid_argument("'" + dotted + "' is an object, which an override merges member by member: "
                                    "{} sets nothing (set each value by its own path)");
    if (node->is_null()) *node = value;
    else mergeInto(*node, value);
}

// Whether `s` is well-formed UTF-8 by RFC 3629's table (no overlong forms, no surrogates, nothing
// past U+10FFFF), as the JSON library requires of every string it writes.
bool isUtf8(std::string_view s) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        std::size_t n = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
        if (c < 0x80) {
            ++i;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return false;
        }
        if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return false;
        for (std::size_t k = 2; k < n; ++k)
            if ((byte(i + k) & 0xC0) != 0x80) return false;
        i += n;
    }
    return true;
}

// The values an override sets, as JSON pointers: its path, or for an object, which applyOverride
// merges member by member, each member's path (recursively), as if each had an override of its own.
void pathsSetBy(const nlohmann::json& value, const nlohmann::json::json_pointer& at,
                std::vector<std::string>& out) {
    if (!value.is_object() || value.empty()) {
        out.push_back(at.to_string());
        return;
    }
    for (const auto& [key, member] : value.items()) pathsSetBy(member, at / key, out);
}

// Refuses overrides[index] when it sets a value an earlier override given by the same option sets
// too (the same path, one within the other, or a member of an object the other merges): one of the
// two values would be dropped without a word. `taken` maps each option to the JSON pointers its
// overrides have set so far, with the override that set each. Overrides from different options
// layer on purpose (compare's --b-set over --set) and are not compared.
void refuseOverlap(const std::vector<std::string>& overrides, std::size_t index,
                   const std::string& option,
                   std::map<std::string, std::map<std::string, std::size_t>>& taken) {
    const std::string& assignment = overrides[index];
    const std::string raw = assignment.substr(assignment.find('=') + 1);
    // The text has passed applyOverride's checks: parsing it again is safe.
    nlohmann::json value = nlohmann::json::parse(raw, nullptr, false);
    if (value.is_discarded()) value = raw;
    std::vector<std::string> paths;
    pathsSetBy(value, dottedToPointer(assignment.substr(0, assignment.find('='))), paths);
    auto& mine = taken[option];
    for (const std::string& path : paths) {
        // The shared path: an earlier one at or above this one, or one below it.
        std::optional<std::pair<std::string, std::size_t>> clash;
        for (std::string up = path; !up.empty() && !clash; up.erase(up.rfind('/')))
            if (const auto it = mine.find(up); it != mine.end()) clash = *it;
        if (const auto below = mine.lower_bound(path + "/");
            !clash && below != mine.end() && below->first.starts_with(path + "/"))
            clash = std::pair(path, below->second);
        if (clash)
            throw ScenarioError(option + " " + elideText(assignment), std::nullopt, std::nullopt,
                                "",
                                pointerToDotted(clash->first) + " is already set by " + option +
                                    " " + elideText(overrides[clash->second]) +
                                    ": give it once (else the last value would win without a word)");
    }
    for (std::string& path : paths) mine.emplace(std::move(path), index);
}

// Whether the lab takes these knobs together (Lab::checkParams).
bool paramsAgree(const Lab& lab, const Params& params) {
    try {
        lab.checkParams(params);
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

}  // namespace

ScenarioError::ScenarioError(std::string file, std::optional<int> line, std::optional<int> column,
                             std::string path, std::string message)
    : std::runtime_error(formatWhere(file, line, column, path) + message),
      file_(std::move(file)),
      line_(line),
      column_(column),
      path_(std::move(path)),
      detail_(std::move(message)) {}

void applyOverride(nlohmann::json& doc, const std::string& assignment, const std::string& option) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
        throw ScenarioError(option + " " + elideText(assignment), std::nullopt, std::nullopt, "",
                            "expected dotted.path=value");
    const std::string path = assignment.substr(0, eq);
    const std::string raw = assignment.substr(eq + 1);
    if (!isUtf8(assignment))
        throw ScenarioError(option, std::nullopt, std::nullopt, "",
                            "the override is not valid UTF-8 text");
    auto fail = [&](const std::string& message) {
        throw ScenarioError(option + " " + elideText(assignment), std::nullopt, std::nullopt, "",
                            message);
    };
    if (raw.size() > kMaxScenarioBytes) fail("the value is longer than a scenario may be");
    if (const auto problem = findJsonTextProblem(raw))
        fail("in the value at byte " + std::to_string(problem->offset + 1) + ": " +
             problem->message);
    nlohmann::json value = nlohmann::json::parse(raw, nullptr, false);
    if (value.is_discarded()) {
        if (!raw.empty() && looksLikeNumber(raw)) fail("'" + raw + "' is not a number JSON reads");
        value = raw;
    }
    try {
        dottedToPointer(path);  // checks the path's form
        if (!doc.is_object())
            throw std::invalid_argument("the scenario is not an object");
        setAtPath(doc, path, value);
    } catch (const ScenarioError&) {
        throw;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

Scenario parseScenario(const std::string& text, const std::string& file,
                       const std::vector<std::string>& overrides,
                       const std::vector<std::string>& overrideOptions) {
    if (text.size() > kMaxScenarioBytes)
        throw ScenarioError(file, std::nullopt, std::nullopt, "",
                            "is " + std::to_string(text.size() >> 20) +
                                " MiB; a scenario may be at most " +
                                std::to_string(kMaxScenarioBytes >> 20) + " MiB");
    // Depth, duplicate keys and numbers out of range first: the parser would keep the last of
    // two keys silently, and report an overflowing number without saying where.
    if (const auto problem = findJsonTextProblem(text)) {
        const TextPosition pos = positionOfOffset(text, problem->offset);
        throw ScenarioError(file, pos.line, pos.column, problem->pointer, problem->message);
    }
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        const auto pos = positionOfOffset(text, tokenStart(text, e.byte));
        std::string msg = e.what();
        // nlohmann's message starts with its own prefix; keep the part after "syntax error ".
        const auto cut = msg.find("syntax error");
        if (cut != std::string::npos) msg = msg.substr(cut);
        throw ScenarioError(file, pos.line, pos.column, "", "invalid JSON: " + msg);
    } catch (const nlohmann::json::exception& e) {
        // Not expected after the scan above; still the input's fault, said with the file.
        throw ScenarioError(file, std::nullopt, std::nullopt, "", std::string("invalid JSON: ") + e.what());
    }

    // The params as the file has them, before the overrides: what its expectations quote.
    const std::optional<nlohmann::json> fileParams =
        doc.is_object() && doc.contains("params") ? std::optional(doc.at("params")) : std::nullopt;
    // And its timeline, when an override changes it.
    const bool timelineOverridden =
        std::any_of(overrides.begin(), overrides.end(), [](const std::string& o) {
            return o.starts_with("timeline=") || o.starts_with("timeline.");
        });
    const std::optional<nlohmann::json> fileTimeline =
        timelineOverridden && doc.is_object() && doc.contains("timeline")
            ? std::optional(doc.at("timeline"))
            : std::nullopt;
    std::vector<std::string> overridden;
    std::map<std::string, std::map<std::string, std::size_t>> taken;  // refuseOverlap's
    for (std::size_t k = 0; k < overrides.size(); ++k) {
        const std::string& o = overrides[k];
        const std::string option = k < overrideOptions.size() ? overrideOptions[k] : "--set";
        applyOverride(doc, o, option);
        refuseOverlap(overrides, k, option, taken);
        overridden.push_back(dottedToPointer(o.substr(0, o.find('='))).to_string());
    }

    JsonValidator v(text, file, overridden, overrideOptions);
    using json = nlohmann::json;
    const json::json_pointer root;
    if (!doc.is_object())
        v.fail(root, std::string("expected a JSON object, found ") + doc.type_name());
    // A result opened as a scenario: what it is, rather than the first of its keys a scenario
    // does not have.
    if (!doc.contains("schema_version") &&
        (doc.contains("all_checks_pass") || (doc.contains("figures") && doc.contains("checks"))))
        v.fail(root, "this is a result of taillab-cli run, not a scenario (taillab-cli compare "
                     "reads results: compare RESULT SCENARIO, or two results)");
    v.rejectUnknown(doc, root,
                    {"schema_version", "name", "title", "lab", "seed", "params", "notes", "expect",
                     "timeline"});

    const auto& version =
        v.require(doc, root, "schema_version", json::value_t::number_unsigned, "an integer");
    if (version.get<std::int64_t>() != kScenarioSchemaVersion)
        v.fail(root / "schema_version", "unsupported schema version " + version.dump() +
                                            " (this TailLab reads version " +
                                            std::to_string(kScenarioSchemaVersion) + ")");

    Scenario s;
    s.file = file;
    s.name = v.require(doc, root, "name", json::value_t::string, "a string").get<std::string>();
    if (s.name.empty() || s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") !=
                              std::string::npos)
        v.fail(root / "name", "expected a non-empty name of a-z, 0-9, '-' and '_', found " +
                                  briefJson(nlohmann::json(s.name)));
    if (doc.contains("title"))
        s.title = v.require(doc, root, "title", json::value_t::string, "a string").get<std::string>();
    if (doc.contains("notes"))
        s.notes = v.require(doc, root, "notes", json::value_t::string, "a string").get<std::string>();
    if (doc.contains("seed"))
        s.seed = v.require(doc, root, "seed", json::value_t::number_unsigned,
                           "a non-negative integer")
                     .get<std::uint64_t>();

    s.lab = v.require(doc, root, "lab", json::value_t::string, "a string").get<std::string>();
    const Lab* lab = findLab(s.lab);
    if (!lab) {
        std::string list;
        for (const auto& l : allLabs()) list += (list.empty() ? "" : ", ") + l->id();
        v.fail(root / "lab", "unknown lab \"" + s.lab + "\" (expected one of: " + list + ")");
    }
    if (s.title.empty()) s.title = lab->title();

    s.params = lab->defaultParams();
    if (doc.contains("params")) {
        const auto& params = v.require(doc, root, "params", json::value_t::object, "an object");
        std::vector<std::string> keys;
        for (const auto& k : s.params.specs()) keys.push_back(k.key);
        v.rejectUnknown(params, root / "params", keys);
        for (const auto& [k, value] : params.items()) {
            try {
                s.params.setJson(k, value);
            } catch (const std::invalid_argument& e) {
                v.fail(root / "params" / k, e.what());
            }
        }
    }
    s.expect_setup = s.params;
    if (!overrides.empty()) {
        // Overrides that leave a value as the file has it change nothing; a file value only the
        // override made valid (the run could not take it) leaves that knob as the run has it.
        Params file = lab->defaultParams();
        if (fileParams && fileParams->is_object())
            for (const auto& [k, value] : fileParams->items()) {
                try {
                    file.setJson(k, value);
                } catch (const std::invalid_argument&) {
                    if (file.spec(k)) file.set(k, s.params.real(k));
                }
            }
        s.expect_setup = file;
    }
    try {
        lab->checkParams(s.params);
    } catch (const std::invalid_argument& e) {
        // Knobs the file has in agreement that contradict each other only with the overrides'
        // values: the overrides' mistake, named as they were given, not the file's line.
        if (!(s.expect_setup == s.params) && paramsAgree(*lab, s.expect_setup))
            v.failFromOverrides(root / "params", e.what(), LocateTarget::Key);
        v.fail(root / "params", e.what(), LocateTarget::Key);
    }
    if (doc.contains("timeline")) {
        const auto vocabulary = lab->timelineVocabulary(s.params);
        if (!vocabulary) {
            std::string takers;
            for (const auto& l : allLabs())
                if (l->timelineVocabulary(l->defaultParams()))
                    takers += (takers.empty() ? "" : ", ") + l->id();
            v.fail(root / "timeline", "lab '" + s.lab + "' applies no timeline (labs that do: " +
                                          (takers.empty() ? "none" : takers) + ")",
                   LocateTarget::Key);
        }
        s.timeline = parseTimeline(doc.at("timeline"), root / "timeline", *vocabulary, v);
        try {
            lab->checkTimeline(s.params, s.timeline);
        } catch (const TimelineError& e) {
            // At the event's "set": the knobs it sets, over those before it, are the mistake.
            v.fail(json::json_pointer(e.path()) / "set", e.what(), LocateTarget::Key);
        }
        // A phase's figures are named after its id: an id that gives one of them a name the run
        // already reports would overwrite that figure in the result.
        const std::vector<std::string> base = lab->figureNamesWith(s.params, Timeline{});
        std::unordered_set<std::string> taken(base.begin(), base.end());
        for (const TimelineEvent& e : s.timeline.events) {
            if (e.phase.empty() || e.path.empty()) continue;
            // The run's figures with this phase alone: the base ones, then the phase's own.
            std::unordered_map<std::string, int> unclaimed;
            for (const std::string& name : base) ++unclaimed[name];
            for (const std::string& name : lab->figureNamesWith(s.params, Timeline{{e}})) {
                if (int& n = unclaimed[name]; n > 0) {
                    --n;
                    continue;
                }
                if (taken.insert(name).second) continue;
                const std::size_t index = std::stoul(e.path.substr(e.path.rfind('/') + 1));
                v.fail(root / "timeline" / index / "phase",
                       "phase '" + e.phase + "' would report the figure '" + name +
                           "', a name the run already reports: choose another phase id");
            }
        }
    }
    s.expect_timeline = s.timeline;
    if (timelineOverridden) {
        // The timeline as the file has it (none when it has none), for the file's own knobs. One
        // the run could not take, that only the override made valid, stays as the run has it, as
        // a knob does (above).
        const auto vocabulary = lab->timelineVocabulary(s.expect_setup);
        if (!fileTimeline) {
            s.expect_timeline = Timeline{};
        } else if (vocabulary) {
            try {
                s.expect_timeline = parseTimeline(*fileTimeline, root / "timeline", *vocabulary,
                                                  JsonValidator(text, file, {}));
            } catch (const ScenarioError&) {
            }
        }
    }
    if (doc.contains("expect")) {
        std::optional<std::vector<std::string>> figures;  // the lab's, for these params
        const auto& list = v.require(doc, root, "expect", json::value_t::array, "an array");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto at = root / "expect" / i;
            const auto& e = list[i];
            if (!e.is_object()) v.fail(at, std::string("expected an object, found ") + e.type_name());
            v.rejectUnknown(e, at, {"figure", "value", "tolerance", "relative", "at_least",
                                    "at_most", "source"});
            Expectation x;
            x.figure = v.require(e, at, "figure", json::value_t::string, "a figure name")
                           .get<std::string>();
            // Checked against the knobs the expectations were written for: with other knobs they
            // do not apply to the run (runner.h), whatever figures it reports.
            if (!figures) figures = lab->figureNamesWith(s.expect_setup, s.expect_timeline);
            if (std::find(figures->begin(), figures->end(), x.figure) == figures->end())
                v.fail(at / "figure",
                       unknownFigureMessage(s.lab, x.figure, *figures,
                                            overrides.empty()
                                                ? "with these params"
                                                : "with the scenario's own params (before --set)"));
            auto number = [&](const char* key) -> std::optional<double> {
                if (!e.contains(key)) return std::nullopt;
                if (!e.at(key).is_number())
                    v.fail(at / key, std::string("expected a number, found ") + briefJson(e.at(key)));
                return e.at(key).get<double>();
            };
            x.value = number("value");
            x.at_least = number("at_least");
            x.at_most = number("at_most");
            if (e.contains("relative"))
                x.relative = v.require(e, at, "relative", json::value_t::boolean, "true or false")
                                 .get<bool>();
            if (x.value) {
                const auto tol = number("tolerance");
                if (!tol || *tol < 0)
                    v.fail(at, "an expectation with \"value\" needs a non-negative \"tolerance\"");
                x.tolerance = *tol;
                // A band wider than the value itself can hardly fail: it is a mistake, or a
                // one-sided bound written the wrong way.
                const double widest = x.relative ? 1.0 : std::abs(*x.value);
                if (x.tolerance > widest)
                    v.fail(at / "tolerance",
                           "a tolerance of " + e.at("tolerance").dump() +
                               (x.relative ? " (relative) is wider than the value itself (at most 1)"
                                           : " is wider than the value itself (at most " +
                                                 e.at("value").dump() +
                                                 "); for a band around zero use \"at_least\" and "
                                                 "\"at_most\""));
            } else {
                for (const char* key : {"tolerance", "relative"})
                    if (e.contains(key))
                        v.fail(at / key, std::string("\"") + key +
                                             "\" applies to \"value\", which this expectation "
                                             "does not have",
                               LocateTarget::Key);
                if (!x.at_least && !x.at_most)
                    v.fail(at, "expected \"value\" with \"tolerance\", or \"at_least\"/\"at_most\"");
            }
            if (x.at_least && x.at_most && *x.at_least > *x.at_most)
                v.fail(at / "at_least", "at_least " + e.at("at_least").dump() +
                                            " is above at_most " +
                                            e.at("at_most").dump() +
                                            ": no figure can pass");
            if (e.contains("source"))
                x.source = v.require(e, at, "source", json::value_t::string, "a string")
                               .get<std::string>();
            s.expect.push_back(std::move(x));
        }
    }
    return s;
}

Scenario loadScenarioFile(const std::string& path, const std::vector<std::string>& overrides,
                          const std::vector<std::string>& overrideOptions) {
    return parseScenario(readScenarioText(path), path, overrides, overrideOptions);
}

std::string readScenarioText(const std::string& path) {
    try {
        return readTextFile(path, kMaxScenarioBytes, "scenario file");
    } catch (const TextFileError& e) {
        throw ScenarioError(path, std::nullopt, std::nullopt, "", e.what());
    }
}

std::vector<std::string> findScenarioFiles(const std::string& directory) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(directory, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".json")
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace taillab
