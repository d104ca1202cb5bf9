// Checks a parsed scenario document piece by piece and throws ScenarioError located in the source
// text: file, line and column of the offending value (or key), and its JSON path. A value that
// came from an override (`--set a.b=...`) is reported against the override instead, since the
// file does not contain it. Shared by the scenario parser and the timeline parser so every
// mistake in a scenario reads the same way.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/json_locate.h"

namespace taillab {

class JsonValidator {
public:
    // `overridden`: JSON pointers set by overrides; `options`: the option each came from, for
    // messages ("--b-set"; "--set" for those not given); `text` must outlive the validator.
    JsonValidator(const std::string& text, std::string file, std::vector<std::string> overridden,
                  const std::vector<std::string>& options = {});

    [[noreturn]] void fail(const nlohmann::json::json_pointer& ptr, const std::string& message,
                           LocateTarget target = LocateTarget::Value) const;
    // Fails at `ptr` for a mistake the overrides made there although the file's own values are
    // fine (knobs that contradict each other only with the --set values): names the overrides at
    // or below `ptr` rather than the file's line; as fail() when there are none.
    [[noreturn]] void failFromOverrides(const nlohmann::json::json_pointer& ptr,
                                        const std::string& message,
                                        LocateTarget target = LocateTarget::Value) const;

    // obj[key], which must exist and have `type` (number_unsigned also accepts a non-negative
    // integer); `expected` describes it in messages ("a string").
    const nlohmann::json& require(const nlohmann::json& obj, const nlohmann::json::json_pointer& at,
                                  const std::string& key, nlohmann::json::value_t type,
                                  const char* expected) const;

    // Fails at the first key of `obj` not in `allowed`, with the nearest allowed keys as
    // suggestions (didYouMean) and the list of them all.
    void rejectUnknown(const nlohmann::json& obj, const nlohmann::json::json_pointer& at,
                       const std::vector<std::string>& allowed) const;

    const std::string& file() const { return file_; }

private:
    const std::string& text_;
    std::string file_;
    std::vector<std::string> overridden_;
    std::vector<std::string> labels_;  // per override: "--set params.backends"
};

// "; did you mean 'x' or 'y'?" for a misspelt `name`: the names of `known` within a third of its
// length in edits (at least 2), closest first, three at most; "" when none is that near.
std::string didYouMean(const std::string& name, const std::vector<std::string>& known);

// A value as a message shows it: its type and its JSON text, cut to about 60 bytes ("array
// [[[[[[... (100000 bytes)"), so that no message grows with the input.
std::string briefJson(const nlohmann::json& v);

// "/params/backends" -> "params.backends", as an override names it.
std::string pointerToDotted(const std::string& pointer);

}  // namespace taillab
