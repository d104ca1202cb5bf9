// Knobs: the tunable parameters of a lab, declared once with unit, range and a one-line
// explanation. Scenario files set them, --set overrides them, and the GUI builds its sliders from
// the same declarations, so a knob can never exist in one place and not another.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace taillab {

enum class KnobKind { Real, Integer, Choice, Boolean };

struct KnobSpec {
    std::string key;    // key under "params" in a scenario file
    std::string label;  // short human label
    std::string unit;   // "ms", "backends", "fraction", "" ...
    KnobKind kind = KnobKind::Real;
    double min = 0;
    double max = 1;
    double step = 0;  // slider granularity; 0 = continuous
    double defaultValue = 0;
    std::vector<std::string> choices;  // for Choice; the value is the index
    bool logScale = false;             // slider moves in log space
    bool advanced = false;             // hidden behind "More" in the GUI
    std::string help;                  // one line: what it does
    // The knob does something only while the knob `used_when_key` has one of these values
    // (choice names; "on" or "off" for a switch). Empty: always. The GUI disables it otherwise,
    // and says why.
    std::string used_when_key;
    std::vector<std::string> used_when_values;

    static KnobSpec real(std::string key, std::string label, std::string unit, double min,
                         double max, double def, std::string help, double step = 0);
    static KnobSpec integer(std::string key, std::string label, std::string unit, double min,
                            double max, double def, std::string help);
    static KnobSpec choice(std::string key, std::string label, std::vector<std::string> choices,
                           int def, std::string help);
    static KnobSpec boolean(std::string key, std::string label, bool def, std::string help);
    KnobSpec& log() {
        logScale = true;
        return *this;
    }
    KnobSpec& hidden() {
        advanced = true;
        return *this;
    }
    KnobSpec& usedWhen(std::string key, std::vector<std::string> values) {
        used_when_key = std::move(key);
        used_when_values = std::move(values);
        return *this;
    }
};

// Validated knob values for one run. Values are stored as doubles (choices as their index,
// booleans as 0/1) and always lie within their knob's range.
class Params {
public:
    Params() = default;
    explicit Params(const std::vector<KnobSpec>& specs);  // all defaults

    double real(const std::string& key) const;
    int integer(const std::string& key) const;
    std::int64_t integer64(const std::string& key) const;
    bool flag(const std::string& key) const;
    int choiceIndex(const std::string& key) const;
    const std::string& choice(const std::string& key) const;

    // Sets a value; throws std::invalid_argument with a clear message when the key is unknown or
    // the value is out of range / not a whole number / not one of the choices.
    void set(const std::string& key, double value);
    void setJson(const std::string& key, const nlohmann::json& value);

    const std::vector<KnobSpec>& specs() const { return specs_; }
    const KnobSpec* spec(const std::string& key) const;
    // Effective parameters as JSON (choices as their names, booleans as true/false).
    nlohmann::ordered_json toJson() const;
    bool operator==(const Params& other) const { return values_ == other.values_; }
    // The value of `key` as a usedWhen condition names it: the choice's name, "on" or "off" for
    // a switch, the number otherwise.
    std::string conditionValue(const std::string& key) const;
    // Whether knob `key` does anything with these values (KnobSpec::usedWhen); and, when it does
    // not, why: "not used while Hedge is none".
    bool used(const std::string& key, std::string* why = nullptr) const;

private:
    std::vector<KnobSpec> specs_;
    std::map<std::string, double> values_;
};

// Checks one JSON value against a knob and converts it; throws std::invalid_argument saying what
// was expected and what was found.
double knobValueFromJson(const KnobSpec& spec, const nlohmann::json& value);

}  // namespace taillab
