// Finds where a JSON pointer's value (or an object key) starts in the source text, so a semantic
// error ("unknown key", "out of range") can name the line and column a person should look at.
// nlohmann::json does not keep positions, so this walks the text with a small tokenizer.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace taillab {

struct TextPosition {
    int line = 1;    // 1-based
    int column = 1;  // 1-based, in bytes
};

enum class LocateTarget { Value, Key };

// Position of the value at `pointer` (or of its key, for a member of an object). nullopt when the
// text does not contain it (e.g. the value came from an override).
std::optional<TextPosition> locateJson(std::string_view text,
                                       const nlohmann::json::json_pointer& pointer,
                                       LocateTarget target = LocateTarget::Value);

TextPosition positionOfOffset(std::string_view text, std::size_t offset);

}  // namespace taillab
