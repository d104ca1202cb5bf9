// The timeline parser: the schema is in timeline.h. Every rule fails through the scenario's
// JsonValidator, so a mistake is reported at its file, line, column and JSON path.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "base/format.h"
#include "scenario/json_validator.h"
#include "scenario/timeline.h"

namespace taillab {
namespace {

using json = nlohmann::json;
using Ptr = json::json_pointer;

constexpr double kDay = 86400;

std::string describe(const json& v) { return briefJson(v); }

std::string quotedList(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return out;
}

// A range a number must lie in, as a message writes it: "(1, 100]", "> 0".
struct Range {
    double lo;
    double hi;
    bool loOpen;
    bool hiOpen;

    bool contains(double v) const {
        return (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi);
    }
    std::string text() const {
        if (std::isinf(hi)) return std::string(loOpen ? "> " : ">= ") + bound(lo);
        return std::string(loOpen ? "(" : "[") + bound(lo) + ", " + bound(hi) + (hiOpen ? ")" : "]");
    }
    // A bound as a reader writes it: 600000, not the shorter 6e+05.
    static std::string bound(double v) { return formatNumber(v); }
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Range kSlowFactor{1, 100, true, false};
constexpr Range kMedianMs{0, 600000, true, false};  // up to ten minutes
constexpr Range kSigma{0.01, 3, false, false};
constexpr Range kShare{0, 1, false, false};
constexpr Range kLostShare{0, 1, true, false};
constexpr Range kAddMs{0, 60000, true, false};
constexpr Range kSurgeFactor{0, 100, true, false};

// The keys beyond "target" and "effect" each effect takes.
std::vector<std::string> effectKeys(FaultEffect e) {
    switch (e) {
        case FaultEffect::Down:
            return {};
        case FaultEffect::Slow:
            return {"factor", "median_ms", "sigma"};
        case FaultEffect::Invalid:
        case FaultEffect::Resets:
        case FaultEffect::CapacityLost:
            return {"share"};
        case FaultEffect::Latency:
            return {"add_ms"};
        case FaultEffect::Surge:
            return {"factor"};
    }
    return {};
}

bool takesEgressIp(FaultEffect e) {
    return e == FaultEffect::Down || e == FaultEffect::Slow || e == FaultEffect::Invalid ||
           e == FaultEffect::Resets || e == FaultEffect::Latency;
}

constexpr std::size_t kMaxTimelineEvents = 10000;
constexpr std::size_t kMaxPhases = 100;

class TimelineParser {
public:
    TimelineParser(const TimelineVocabulary& vocabulary, const JsonValidator& validator)
        : vocab_(vocabulary), v_(validator) {}

    Timeline parse(const json& value, const Ptr& at) const {
        if (!value.is_array()) v_.fail(at, "expected an array of events, found " + describe(value));
        // Bounds that keep a run's work in proportion to its file: each phase adds figures, and
        // every event is checked against the others.
        if (value.size() > kMaxTimelineEvents)
            v_.fail(at / kMaxTimelineEvents, "a timeline holds at most " + std::to_string(kMaxTimelineEvents) +
                                                 " events; this one holds " + std::to_string(value.size()));
        Timeline t;
        std::unordered_map<std::string, std::size_t> phases;  // id -> the event naming it
        for (std::size_t i = 0; i < value.size(); ++i) {
            t.events.push_back(event(value[i], at / i));
            const std::string& id = t.events.back().phase;
            if (id.empty()) continue;
            const auto [first, fresh] = phases.emplace(id, i);
            if (!fresh)
                v_.fail(at / i / "phase", "phase '" + id + "' is already named at " + t.events[first->second].path);
            if (phases.size() > kMaxPhases)
                v_.fail(at / i / "phase", "a timeline names at most " + std::to_string(kMaxPhases) +
                                              " phases (each adds figures of its own)");
        }
        checkSurges(t, at);
        std::stable_sort(
            t.events.begin(), t.events.end(),
            [](const TimelineEvent& a, const TimelineEvent& b) { return a.at_s < b.at_s; });
        return t;
    }

    // Surges that overlap add their extra traffic: a run must stay within what one surge may ask
    // for (factor 100), or a short file could ask for more requests than memory holds.
    void checkSurges(const Timeline& t, const Ptr& at) const {
        struct Edge {
            double t;
            double extra;  // + at a surge's start, - at its end
            std::size_t event;
        };
        std::vector<Edge> edges;
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            const TimelineEvent& e = t.events[i];
            if (!e.fault || e.fault->effect != FaultEffect::Surge || e.fault->factor <= 1) continue;
            edges.push_back({e.at_s, e.fault->factor - 1, i});
            edges.push_back({e.until_s.value_or(vocab_.run_length_s), -(e.fault->factor - 1), i});
        }
        // Ends before starts at one time: back-to-back surges do not overlap.
        std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
            return a.t != b.t ? a.t < b.t : a.extra < b.extra;
        });
        double extra = 0;
        for (const Edge& edge : edges) {
            extra += edge.extra;
            if (extra > kSurgeFactor.hi - 1 + 1e-9) {
                v_.fail(at / edge.event / "fault" / "factor", "overlapping surges would multiply the traffic by " + formatNumber(extra + 1) +
                                   " here; surges that overlap may add up to x" + Range::bound(kSurgeFactor.hi) +
                                   " at most");
            }
        }
    }

private:
    TimelineEvent event(const json& e, const Ptr& at) const {
        if (!e.is_object())
            v_.fail(at, "expected an event object (\"at\" with \"set\", \"fault\" or \"phase\"), found " +
                            describe(e));
        v_.rejectUnknown(e, at, {"at", "until", "set", "fault", "phase", "label"});
        TimelineEvent ev;
        ev.path = at.to_string();
        if (!e.contains("at"))
            v_.fail(at,
                    "missing required key 'at' (seconds since the run's start, or a time such "
                    "as \"Tue 14:22\")");
        ev.at_s = time(e.at("at"), at / "at");
        const bool hasSet = e.contains("set");
        const bool hasFault = e.contains("fault");
        const bool hasPhase = e.contains("phase");
        if (hasSet + hasFault + hasPhase > 1)
            v_.fail(at / (hasPhase ? "phase" : "fault"),
                    "an event either sets knobs, starts a fault or names a phase, one of them "
                    "(write two events at the same time)",
                    LocateTarget::Key);
        if (!hasSet && !hasFault && !hasPhase)
            v_.fail(at, "expected \"set\" (knob changes), \"fault\" or \"phase\"");
        if (hasSet) {
            if (e.contains("until"))
                v_.fail(at / "until",
                        "\"until\" applies to faults and phases only: a knob keeps its value "
                        "until another event sets it",
                        LocateTarget::Key);
            ev.set = settings(
                v_.require(e, at, "set", json::value_t::object, "an object of knob: value"),
                at / "set");
        } else {
            if (hasPhase) {
                ev.phase = v_.require(e, at, "phase", json::value_t::string, "a phase id")
                               .get<std::string>();
                const bool ok = !ev.phase.empty() && ev.phase.size() <= 32 &&
                                std::all_of(ev.phase.begin(), ev.phase.end(), [](char c) {
                                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                           c == '_';
                                });
                if (!ok)
                    v_.fail(at / "phase", "expected a phase id of 1 to 32 lower-case letters, "
                                          "digits and '_', found " + describe(e.at("phase")));
            } else {
                ev.fault = fault(v_.require(e, at, "fault", json::value_t::object, "an object"),
                                 at / "fault");
            }
            if (e.contains("until")) {
                ev.until_s = time(e.at("until"), at / "until");
                if (!(*ev.until_s > ev.at_s))
                    v_.fail(at / "until", "expected a time after \"at\" (" + when(ev.at_s) +
                                              "), found " + when(*ev.until_s));
            }
        }
        if (e.contains("label")) {
            ev.label =
                v_.require(e, at, "label", json::value_t::string, "a string").get<std::string>();
            if (ev.label.empty())
                v_.fail(at / "label", "expected a non-empty string (or no label)");
        } else {
            ev.label = defaultLabel(ev, vocab_.knobs);
        }
        return ev;
    }

    std::string when(double s) const {
        return formatRunTime(s, vocab_.start_weekday) + ", " + formatNumber(s) + " s";
    }

    int coveredDays() const {
        return static_cast<int>(std::clamp(std::ceil(vocab_.run_length_s / kDay), 0.0, 7.0));
    }

    std::string coverage() const {
        std::string days;
        for (int d = 0; d < coveredDays(); ++d)
            days += std::string(d ? ", " : "") +
                    kWeekdayNames[static_cast<std::size_t>((vocab_.start_weekday + d) % 7)];
        return "the run covers " + days;
    }

    double time(const json& value, const Ptr& at) const {
        const double end = vocab_.run_length_s;
        if (value.is_number()) {
            const double s = value.get<double>();
            if (!std::isfinite(s) || s < 0 || s >= end)
                v_.fail(at, "expected seconds since the run's start in [0, " + formatNumber(end) +
                                ") (" + coverage() + "), found " + value.dump());
            return s;
        }
        if (!value.is_string())
            v_.fail(at,
                    "expected seconds since the run's start (a number) or a time such as "
                    "\"Tue 14:22\", found " +
                        describe(value));
        const double s = clockTime(value.get<std::string>(), at);
        if (s >= end)
            v_.fail(at, "expected a time before the run's end (" + coverage() + "), found " +
                            describe(value));
        return s;
    }

    // "Ddd HH:MM", "Ddd HH:MM:SS" or "Ddd HH:MM:SS.fff" (1 to 3 digits of milliseconds): seconds
    // since the run's start.
    double clockTime(const std::string& text, const Ptr& at) const {
        auto bad = [&]() {
            v_.fail(at,
                    "expected \"Ddd HH:MM\", \"Ddd HH:MM:SS\" or \"Ddd HH:MM:SS.fff\" (Ddd one "
                    "of Mon..Sun), or seconds since the run's start, found " +
                        describe(json(text)));
        };
        auto twoDigits = [&](std::size_t i, int max) {
            if (i + 2 > text.size() || !std::isdigit(static_cast<unsigned char>(text[i])) ||
                !std::isdigit(static_cast<unsigned char>(text[i + 1])))
                bad();
            const int n = (text[i] - '0') * 10 + (text[i + 1] - '0');
            if (n > max) bad();
            return n;
        };
        if (text.size() < 9 || text[3] != ' ' || text[6] != ':') bad();
        const auto day = std::find(kWeekdayNames.begin(), kWeekdayNames.end(), text.substr(0, 3));
        if (day == kWeekdayNames.end()) bad();
        const int hours = twoDigits(4, 23);
        const int minutes = twoDigits(7, 59);
        int seconds = 0;
        std::string fraction;
        if (text.size() > 9) {
            if (text[9] != ':') bad();
            seconds = twoDigits(10, 59);
            if (text.size() > 12) {
                fraction = text.substr(13);
                if (text[12] != '.' || fraction.empty() ||
                    fraction.find_first_not_of("0123456789") != std::string::npos)
                    bad();
                // Milliseconds, as the format says and formatRunTime writes: a finer time would
                // be rounded somewhere without a word.
                if (fraction.size() > 3)
                    v_.fail(at, "a time's fraction of a second takes 1 to 3 digits (milliseconds: "
                                "\"Ddd HH:MM:SS.fff\"), found " + std::to_string(fraction.size()) +
                                    " in " + describe(json(text)) +
                                    "; write seconds since the run's start as a number for a finer time");
            }
        }
        const int weekday = static_cast<int>(day - kWeekdayNames.begin());
        const int offset = (weekday - vocab_.start_weekday + 7) % 7;
        if (offset >= coveredDays())
            v_.fail(at, std::string(*day) + " is not within the run (" + coverage() +
                            "), found \"" + text + "\"");
        const long long whole = offset * 86400LL + hours * 3600LL + minutes * 60LL + seconds;
        if (fraction.empty()) return static_cast<double>(whole);
        // Read "whole.fraction" as one decimal, so the double is the nearest to what was written.
        const std::string decimal = std::to_string(whole) + "." + fraction;
        double s = 0;
        std::from_chars(decimal.data(), decimal.data() + decimal.size(), s);
        return s;
    }

    std::vector<KnobSetting> settings(const json& set, const Ptr& at) const {
        if (set.empty()) v_.fail(at, "expected at least one knob to change, found {}");
        std::vector<std::string> keys;
        for (const auto& k : vocab_.knobs) keys.push_back(k.key);
        v_.rejectUnknown(set, at, keys);
        std::vector<KnobSetting> out;
        for (const auto& [key, value] : set.items()) {
            const auto& fixed = vocab_.fixed_knobs;
            if (std::find(fixed.begin(), fixed.end(), key) != fixed.end())
                v_.fail(at / key,
                        "knob '" + key +
                            "' cannot change during a run (it shapes the run "
                            "from its start: set it under \"params\")",
                        LocateTarget::Key);
            const auto spec = std::find_if(vocab_.knobs.begin(), vocab_.knobs.end(),
                                           [&](const KnobSpec& k) { return k.key == key; });
            try {
                out.push_back(KnobSetting{key, knobValueFromJson(*spec, value)});
            } catch (const std::invalid_argument& e) {
                v_.fail(at / key, e.what());
            }
        }
        return out;
    }

    double number(const json& obj, const Ptr& at, const std::string& key,
                  const Range& range) const {
        if (!obj.contains(key))
            v_.fail(at, "missing required key '" + key + "' (a number " + inRange(range) + ")");
        const json& value = obj.at(key);
        if (!value.is_number() || !range.contains(value.get<double>()))
            v_.fail(at / key, "expected a number " + inRange(range) + ", found " +
                                  (value.is_number() ? value.dump() : describe(value)));
        return value.get<double>();
    }

    static std::string inRange(const Range& range) {
        return std::isinf(range.hi) ? range.text() : "in " + range.text();
    }

    Fault fault(const json& f, const Ptr& at) const {
        v_.rejectUnknown(f, at,
                         {"target", "effect", "factor", "median_ms", "sigma", "share", "add_ms"});
        std::vector<std::string> effects;
        for (int i = 0; i <= static_cast<int>(FaultEffect::Surge); ++i)
            effects.emplace_back(faultEffectName(static_cast<FaultEffect>(i)));
        if (!f.contains("effect"))
            v_.fail(at, "missing required key 'effect' (one of " + quotedList(effects) + ")");
        const json& name = f.at("effect");
        const auto effect =
            name.is_string() ? faultEffectFromName(name.get<std::string>()) : std::nullopt;
        if (!effect)
            v_.fail(at / "effect",
                    "expected one of " + quotedList(effects) + ", found " + describe(name));
        Fault out;
        out.effect = *effect;
        const std::string effectName(faultEffectName(*effect));
        const auto takes = effectKeys(*effect);
        for (const auto& [key, value] : f.items()) {
            if (key == "target" || key == "effect" ||
                std::find(takes.begin(), takes.end(), key) != takes.end())
                continue;
            v_.fail(at / key,
                    "\"" + key + "\" does not apply to effect \"" + effectName + "\" (" +
                        (takes.empty() ? std::string("it takes no further keys")
                                       : "it takes " + quotedList(takes)) +
                        ")",
                    LocateTarget::Key);
        }
        switch (*effect) {
            case FaultEffect::Down:
                break;
            case FaultEffect::Slow:
                slow(f, at, out);
                break;
            case FaultEffect::Invalid:
            case FaultEffect::Resets:
                out.share = number(f, at, "share", kShare);
                break;
            case FaultEffect::CapacityLost:
                out.share = number(f, at, "share", kLostShare);
                break;
            case FaultEffect::Latency:
                out.add_ms = number(f, at, "add_ms", kAddMs);
                break;
            case FaultEffect::Surge:
                out.factor = number(f, at, "factor", kSurgeFactor);
                break;
        }
        if (f.contains("target"))
            out.target = target(v_.require(f, at, "target", json::value_t::object, "an object"),
                                at / "target", *effect);
        return out;
    }

    void slow(const json& f, const Ptr& at, Fault& out) const {
        const bool factor = f.contains("factor");
        const bool median = f.contains("median_ms");
        const bool sigma = f.contains("sigma");
        if (factor && (median || sigma))
            v_.fail(at,
                    "effect \"slow\" takes either \"factor\", or \"median_ms\" with \"sigma\", not "
                    "both");
        if (factor) {
            out.factor = number(f, at, "factor", kSlowFactor);
        } else if (median || sigma) {
            out.median_ms = number(f, at, "median_ms", kMedianMs);
            out.sigma = number(f, at, "sigma", kSigma);
        } else {
            v_.fail(
                at,
                "effect \"slow\" needs \"factor\" (a number in " + kSlowFactor.text() +
                    "), or \"median_ms\" and \"sigma\" (a lognormal that replaces the latency)");
        }
    }

    FaultTarget target(const json& t, const Ptr& at, FaultEffect effect) const {
        v_.rejectUnknown(t, at, {"engine", "region", "provider", "zone", "egress_ip"});
        if (effect == FaultEffect::Surge) {
            for (const auto& [key, value] : t.items())
                if (key != "region")
                    v_.fail(at / key,
                            "a surge multiplies traffic, so its target takes only \"region\"",
                            LocateTarget::Key);
        }
        for (const char* key : {"provider", "zone"}) {
            if (!t.contains(key)) continue;
            if (effect != FaultEffect::CapacityLost)
                v_.fail(at / key,
                        std::string("\"") + key +
                            "\" names where the gateway's CPUs run: only effect "
                            "\"capacity_lost\" applies to it",
                        LocateTarget::Key);
            if (t.contains("engine"))
                v_.fail(at / key,
                        "a target names the gateway's CPUs (\"provider\", \"zone\") or an "
                        "\"engine\", not both",
                        LocateTarget::Key);
        }
        FaultTarget out;
        out.engine = name(t, at, "engine", vocab_.engines, "engines");
        out.region = name(t, at, "region", vocab_.regions, "regions");
        out.provider = name(t, at, "provider", vocab_.providers, "providers");
        out.zone = name(t, at, "zone", vocab_.zones, "zones");
        if (t.contains("egress_ip"))
            out.egress_ip = egressIp(t, at, effect, out.region.has_value());
        return out;
    }

    std::optional<std::string> name(const json& t, const Ptr& at, const std::string& key,
                                    const std::vector<std::string>& names,
                                    const std::string& what) const {
        if (!t.contains(key)) return std::nullopt;
        if (names.empty())
            v_.fail(at / key, (what == "providers" || what == "zones") && !vocab_.no_compute.empty()
                                  ? vocab_.no_compute
                                  : "the fleet has no " + what + " to target");
        const json& value = t.at(key);
        if (!value.is_string() ||
            std::find(names.begin(), names.end(), value.get<std::string>()) == names.end())
            v_.fail(at / key,
                    "expected one of " + quotedList(names) + ", found " + describe(value));
        return value.get<std::string>();
    }

    int egressIp(const json& t, const Ptr& at, FaultEffect effect, bool hasRegion) const {
        const Ptr here = at / "egress_ip";
        if (!takesEgressIp(effect))
            v_.fail(here,
                    "effect \"" + std::string(faultEffectName(effect)) +
                        "\" cannot target "
                        "one egress IP (\"egress_ip\" applies to down, slow, invalid, resets and "
                        "latency)",
                    LocateTarget::Key);
        if (!hasRegion)
            v_.fail(here, "\"egress_ip\" needs \"region\": each region has its own egress IPs",
                    LocateTarget::Key);
        if (vocab_.egress_ips <= 0) v_.fail(here, "the fleet has no egress IPs to target");
        const json& value = t.at("egress_ip");
        const double n = value.is_number() ? value.get<double>() : -1;
        if (!value.is_number() || std::floor(n) != n || n < 0 || n > vocab_.egress_ips - 1)
            v_.fail(here, "expected an integer in [0, " + std::to_string(vocab_.egress_ips - 1) +
                              "] (the fleet has " + std::to_string(vocab_.egress_ips) +
                              " egress IPs per region), found " +
                              (value.is_number() ? value.dump() : describe(value)));
        return static_cast<int>(n);
    }

    const TimelineVocabulary& vocab_;
    const JsonValidator& v_;
};

}  // namespace

Timeline parseTimeline(const json& value, const Ptr& at, const TimelineVocabulary& vocabulary,
                       const JsonValidator& validator) {
    return TimelineParser(vocabulary, validator).parse(value, at);
}

}  // namespace taillab
