#include "knobs/knob.h"

#include <algorithm>

#include <cmath>
#include <stdexcept>

#include "base/format.h"

namespace taillab {
namespace {

std::string describeJson(const nlohmann::json& v) {
    if (v.is_null()) return "null";  // its type and its text are the same word
    std::string kind = v.type_name();
    std::string text = v.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return kind + " " + text;
}

}  // namespace

KnobSpec KnobSpec::real(std::string key, std::string label, std::string unit, double min,
                        double max, double def, std::string help, double step) {
    KnobSpec k;
    k.key = std::move(key);
    k.label = std::move(label);
    k.unit = std::move(unit);
    k.kind = KnobKind::Real;
    k.min = min;
    k.max = max;
    k.defaultValue = def;
    k.help = std::move(help);
    k.step = step;
    return k;
}

KnobSpec KnobSpec::integer(std::string key, std::string label, std::string unit, double min,
                           double max, double def, std::string help) {
    KnobSpec k = real(std::move(key), std::move(label), std::move(unit), min, max, def,
                      std::move(help), 1);
    k.kind = KnobKind::Integer;
    return k;
}

KnobSpec KnobSpec::choice(std::string key, std::string label, std::vector<std::string> choices,
                          int def, std::string help) {
    KnobSpec k;
    k.key = std::move(key);
    k.label = std::move(label);
    k.kind = KnobKind::Choice;
    k.min = 0;
    k.max = static_cast<double>(choices.size()) - 1;
    k.step = 1;
    k.defaultValue = def;
    k.choices = std::move(choices);
    k.help = std::move(help);
    return k;
}

KnobSpec KnobSpec::boolean(std::string key, std::string label, bool def, std::string help) {
    KnobSpec k;
    k.key = std::move(key);
    k.label = std::move(label);
    k.kind = KnobKind::Boolean;
    k.min = 0;
    k.max = 1;
    k.step = 1;
    k.defaultValue = def ? 1 : 0;
    k.help = std::move(help);
    return k;
}

double knobValueFromJson(const KnobSpec& spec, const nlohmann::json& value) {
    switch (spec.kind) {
        case KnobKind::Boolean:
            if (!value.is_boolean())
                throw std::invalid_argument("expected true or false, found " + describeJson(value));
            return value.get<bool>() ? 1 : 0;
        case KnobKind::Choice: {
            if (!value.is_string()) {
                std::string names;
                for (const auto& c : spec.choices) names += (names.empty() ? "" : ", ") + ("\"" + c + "\"");
                throw std::invalid_argument("expected one of " + names + ", found " +
                                            describeJson(value));
            }
            const auto s = value.get<std::string>();
            for (std::size_t i = 0; i < spec.choices.size(); ++i)
                if (spec.choices[i] == s) return static_cast<double>(i);
            std::string names;
            for (const auto& c : spec.choices) names += (names.empty() ? "" : ", ") + ("\"" + c + "\"");
            throw std::invalid_argument("expected one of " + names + ", found \"" + s + "\"");
        }
        case KnobKind::Integer:
        case KnobKind::Real: {
            // One wording for a number out of place or out of range: "expected a number in
            // [1, 1000] backends, found ...".
            const std::string range = "a number in [" + formatNumber(spec.min) + ", " +
                                      formatNumber(spec.max) + "]" +
                                      (spec.unit.empty() ? "" : " " + spec.unit);
            if (!value.is_number())
                throw std::invalid_argument("expected " + range + ", found " + describeJson(value));
            const double v = value.get<double>();
            if (spec.kind == KnobKind::Integer && std::floor(v) != v)
                throw std::invalid_argument("expected a whole number, found " + formatNumber(v));
            if (!(v >= spec.min && v <= spec.max))
                throw std::invalid_argument("expected " + range + ", found " + formatNumber(v));
            return v;
        }
    }
    return 0;
}

Params::Params(const std::vector<KnobSpec>& specs) : specs_(specs) {
    for (const auto& s : specs_) values_[s.key] = s.defaultValue;
}

const KnobSpec* Params::spec(const std::string& key) const {
    for (const auto& s : specs_)
        if (s.key == key) return &s;
    return nullptr;
}

void Params::set(const std::string& key, double value) {
    const KnobSpec* s = spec(key);
    if (!s) throw std::invalid_argument("unknown knob '" + key + "'");
    if (s->kind == KnobKind::Choice || s->kind == KnobKind::Boolean || s->kind == KnobKind::Integer)
        value = std::round(value);
    if (!(value >= s->min && value <= s->max))
        throw std::invalid_argument("knob '" + key + "' must lie in [" + formatNumber(s->min) +
                                    ", " + formatNumber(s->max) + "], got " + formatNumber(value));
    values_[key] = value;
}

void Params::setJson(const std::string& key, const nlohmann::json& value) {
    const KnobSpec* s = spec(key);
    if (!s) throw std::invalid_argument("unknown knob '" + key + "'");
    values_[key] = knobValueFromJson(*s, value);
}

double Params::real(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) throw std::logic_error("lab reads undeclared knob '" + key + "'");
    return it->second;
}

int Params::integer(const std::string& key) const { return static_cast<int>(std::llround(real(key))); }
std::int64_t Params::integer64(const std::string& key) const { return std::llround(real(key)); }
bool Params::flag(const std::string& key) const { return real(key) != 0; }
int Params::choiceIndex(const std::string& key) const { return integer(key); }

const std::string& Params::choice(const std::string& key) const {
    const KnobSpec* s = spec(key);
    if (!s || s->kind != KnobKind::Choice)
        throw std::logic_error("knob '" + key + "' is not a choice");
    return s->choices.at(static_cast<std::size_t>(choiceIndex(key)));
}

std::string Params::conditionValue(const std::string& key) const {
    const KnobSpec* s = spec(key);
    if (!s) throw std::logic_error("condition on undeclared knob '" + key + "'");
    if (s->kind == KnobKind::Choice) return choice(key);
    if (s->kind == KnobKind::Boolean) return flag(key) ? "on" : "off";
    return formatNumber(real(key));
}

bool Params::used(const std::string& key, std::string* why) const {
    const KnobSpec* s = spec(key);
    if (!s || s->used_when_key.empty()) return true;
    const std::string value = conditionValue(s->used_when_key);
    const auto& allowed = s->used_when_values;
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return true;
    if (why) {
        const KnobSpec* on = spec(s->used_when_key);
        *why = "not used while " + on->label + " is " + value;
    }
    return false;
}

nlohmann::ordered_json Params::toJson() const {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& s : specs_) {
        const double v = values_.at(s.key);
        switch (s.kind) {
            case KnobKind::Boolean: out[s.key] = v != 0; break;
            case KnobKind::Choice: out[s.key] = s.choices.at(static_cast<std::size_t>(v)); break;
            case KnobKind::Integer: out[s.key] = std::llround(v); break;
            case KnobKind::Real: out[s.key] = v; break;
        }
    }
    return out;
}

}  // namespace taillab
