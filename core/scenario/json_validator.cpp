#include "scenario/json_validator.h"

#include <algorithm>
#include <cstdint>

#include "scenario/scenario.h"

namespace taillab {

JsonValidator::JsonValidator(const std::string& text, std::string file,
                             std::vector<std::string> overridden,
                             const std::vector<std::string>& options)
    : text_(text), file_(std::move(file)), overridden_(std::move(overridden)) {
    for (std::size_t i = 0; i < overridden_.size(); ++i)
        labels_.push_back((i < options.size() ? options[i] : std::string("--set")) + " " +
                          pointerToDotted(overridden_[i]));
}

void JsonValidator::fail(const nlohmann::json::json_pointer& ptr, const std::string& message,
                         LocateTarget target) const {
    const std::string path = ptr.to_string();
    for (std::size_t i = 0; i < overridden_.size(); ++i) {
        const std::string& o = overridden_[i];
        if (path == o || path.rfind(o + "/", 0) == 0)
            throw ScenarioError(file_ + " (" + labels_[i] + ")", std::nullopt, std::nullopt, path,
                                message);
    }
    const auto pos = locateJson(text_, ptr, target);
    // Not in the file: a member an override created on its way to its own path.
    if (!pos)
        for (std::size_t i = 0; i < overridden_.size(); ++i)
            if (overridden_[i].rfind(path + "/", 0) == 0)
                throw ScenarioError(file_ + " (" + labels_[i] + ")", std::nullopt, std::nullopt,
                                    path, message);
    throw ScenarioError(file_, pos ? std::optional<int>(pos->line) : std::nullopt,
                        pos ? std::optional<int>(pos->column) : std::nullopt, path, message);
}

void JsonValidator::failFromOverrides(const nlohmann::json::json_pointer& ptr,
                                      const std::string& message, LocateTarget target) const {
    const std::string path = ptr.to_string();
    std::string named;
    for (std::size_t i = 0; i < overridden_.size(); ++i)
        if (overridden_[i] == path || overridden_[i].rfind(path + "/", 0) == 0)
            named += (named.empty() ? "" : ", ") + labels_[i];
    if (named.empty()) fail(ptr, message, target);
    throw ScenarioError(file_ + " (" + named + ")", std::nullopt, std::nullopt, path, message);
}

const nlohmann::json& JsonValidator::require(const nlohmann::json& obj,
                                             const nlohmann::json::json_pointer& at,
                                             const std::string& key, nlohmann::json::value_t type,
                                             const char* expected) const {
    if (!obj.contains(key)) fail(at, "missing required key '" + key + "' (" + expected + ")");
    const auto& v = obj.at(key);
    const bool ok =
        type == nlohmann::json::value_t::number_unsigned
            ? v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)
            : v.type() == type;
    if (!ok)
        fail(at / key,
             std::string("expected ") + expected + ", found " + briefJson(v));
    return v;
}

void JsonValidator::rejectUnknown(const nlohmann::json& obj, const nlohmann::json::json_pointer& at,
                                  const std::vector<std::string>& allowed) const {
    for (const auto& [k, v] : obj.items()) {
        if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(at / k, "unknown key '" + k + "'" + didYouMean(k, allowed) + " (expected one of: " + list + ")",
             LocateTarget::Key);
    }
}

namespace {

// Levenshtein distance, for suggestions (names are short: O(|a| |b|) is nothing).
std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string didYouMean(const std::string& name, const std::vector<std::string>& known) {
    std::vector<std::pair<std::size_t, const std::string*>> near;
    const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
    if (name.size() <= 200)
        for (const auto& k : known)
            if (const std::size_t d = editDistance(name, k); d <= limit) near.emplace_back(d, &k);
    std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (near.empty()) return {};
    std::string out = "; did you mean ";
    for (std::size_t i = 0; i < std::min<std::size_t>(near.size(), 3); ++i)
        out += (i == 0 ? "'" : " or '") + elideText(*near[i].second) + "'";
    return out + "?";
}

std::string briefJson(const nlohmann::json& v) {
    constexpr std::size_t kLimit = 60;
    // Depth is bounded by the text scan (json_locate.h), so dump() recurses a bounded amount;
    // a container of many elements is named by its size rather than written out.
    if (v.is_null()) return "null";  // its type and its text are the same word
    std::string text;
    if ((v.is_array() || v.is_object()) && v.size() > kLimit)
        text = "of " + std::to_string(v.size()) +
               (v.is_array() ? " elements" : " members");
    else
        text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return std::string(v.type_name()) + " " + elideText(text, kLimit);
}

std::string pointerToDotted(const std::string& pointer) {
    std::string out;
    for (std::size_t i = pointer.empty() ? 0 : 1; i < pointer.size(); ++i) {
        const char c = pointer[i];
        if (c == '/') {
            out += '.';
        } else if (c == '~' && i + 1 < pointer.size()) {
            out += pointer[++i] == '1' ? '/' : '~';
        } else {
            out += c;
        }
    }
    return elideText(out);
}

}  // namespace taillab
