// Finds where a JSON pointer's value (or an object key) starts in the source text, so a semantic
// error ("unknown key", "out of range") can name the line and column a person should look at.
// nlohmann::json does not keep positions, so this walks the text with a small tokenizer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace taillab {

struct TextPosition {
    int line = 1;    // 1-based
    int column = 1;  // 1-based, in characters (UTF-8 code points; a tab is one)
};

enum class LocateTarget { Value, Key };

// Position of the value at `pointer` (or of its key, for a member of an object). nullopt when the
// text does not contain it (e.g. the value came from an override).
std::optional<TextPosition> locateJson(std::string_view text,
                                       const nlohmann::json::json_pointer& pointer,
                                       LocateTarget target = LocateTarget::Value);

TextPosition positionOfOffset(std::string_view text, std::size_t offset);

// A piece of input for a message: at most `limit` bytes, cut at a UTF-8 character boundary and
// followed by the whole size ("[[[[... (100000 bytes)"), so that no message grows with the input.
std::string elideText(std::string_view s, std::size_t limit = 60);

// What a scenario's text must not hold although JSON allows it, found before the text is parsed:
// nesting deeper than kMaxJsonDepth (deeper values would overflow the stack of code that walks
// them recursively, and no scenario needs more than a handful of levels), the same key twice in
// one object (JSON leaves the meaning open and the parser would keep the last silently), a
// number too large for a double ("1e999"), a \u escape of half a UTF-16 surrogate pair standing
// alone ("\ud800": no character; the parser refuses it as a syntax error, without naming it), and
// a NUL byte anywhere (the parser takes it for the end of the text and would drop what follows
// without a word).
constexpr int kMaxJsonDepth = 64;

struct JsonTextProblem {
    std::size_t offset = 0;  // where the offending token starts
    std::string pointer;     // JSON pointer of the offending value ("" at the top)
    std::string message;
    // The same place as request errors write it: "$", "$.engines.atlas", "$[0][2].k".
    std::string path;
};

// The first such problem in `text`, or nullopt. The scan stops quietly at a syntax error: the
// parser reports those, with their own words. Iterative, so any depth of input is safe to scan.
// `depthNote` says, after a nesting too deep, how deep the text at hand needs to go.
std::optional<JsonTextProblem> findJsonTextProblem(std::string_view text,
                                                   std::string_view depthNote = "a scenario needs a handful");

// A JSON pointer ("/engines/atlas") as request errors write paths ("$.engines.atlas"), for a
// pointer into objects only (an array index would read as a key: JsonTextProblem::path knows).
std::string dottedJsonPath(std::string_view pointer);

}  // namespace taillab
