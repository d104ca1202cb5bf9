// Timeline events as people read them (labels, times) and as files hold them (JSON). The parser
// is in timeline_parse.cpp.
#include "scenario/timeline.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/format.h"

namespace taillab {
namespace {

constexpr std::array<std::string_view, 7> kEffectNames{
    "down", "slow", "invalid", "resets", "latency", "capacity_lost", "surge"};

const KnobSpec* findKnob(const std::vector<KnobSpec>& knobs, const std::string& key) {
    for (const auto& k : knobs)
        if (k.key == key) return &k;
    return nullptr;
}

std::string knobValueText(const KnobSpec* spec, double value) {
    if (!spec) return formatNumber(value);
    switch (spec->kind) {
        case KnobKind::Boolean:
            return value != 0 ? "on" : "off";
        case KnobKind::Choice: {
            const auto i = static_cast<std::size_t>(std::llround(value));
            return i < spec->choices.size() ? spec->choices[i] : formatNumber(value);
        }
        case KnobKind::Integer:
        case KnobKind::Real:
            return formatNumber(value);
    }
    return formatNumber(value);
}

nlohmann::ordered_json knobValueJson(const KnobSpec& spec, double value) {
    switch (spec.kind) {
        case KnobKind::Boolean:
            return value != 0;
        case KnobKind::Choice:
            return spec.choices.at(static_cast<std::size_t>(std::llround(value)));
        case KnobKind::Integer:
            return std::llround(value);
        case KnobKind::Real:
            return value;
    }
    return value;
}

std::string percent(double share) { return formatNumber(100 * share) + "%"; }

std::string effectText(const Fault& f) {
    switch (f.effect) {
        case FaultEffect::Down:
            return "down";
        case FaultEffect::Slow:
            if (f.median_ms && f.sigma)
                return "slow, lognormal median " + formatNumber(*f.median_ms) + " ms σ " +
                       formatNumber(*f.sigma);
            return "slow ×" + formatNumber(f.factor);
        case FaultEffect::Invalid:
            return "invalid answers " + percent(f.share);
        case FaultEffect::Resets:
            return "resets " + percent(f.share);
        case FaultEffect::Latency: {
            const std::string ms = formatNumber(f.add_ms);  // named: GCC 12 warns on "+" + a temporary
            return "+" + ms + " ms";
        }
        case FaultEffect::CapacityLost:
            return "capacity lost " + percent(f.share);
        case FaultEffect::Surge:
            return "surge ×" + formatNumber(f.factor);
    }
    return "";
}

std::string faultLabel(const Fault& f) {
    const FaultTarget& t = f.target;
    std::string who = f.effect == FaultEffect::Surge ? "traffic"
                      : t.engine                     ? *t.engine
                                                     : "all engines";
    std::vector<std::string> where;
    if (t.region) where.push_back(*t.region);
    if (t.provider) where.push_back("provider " + *t.provider);
    if (t.zone) where.push_back("zone " + *t.zone);
    if (t.egress_ip) where.push_back("egress IP " + std::to_string(*t.egress_ip));
    std::string label = who + " " + effectText(f);
    for (std::size_t i = 0; i < where.size(); ++i)
        label += (i == 0 ? " (" : ", ") + where[i] + (i + 1 == where.size() ? ")" : "");
    return label;
}

nlohmann::ordered_json faultJson(const Fault& f) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    const FaultTarget& t = f.target;
    if (!t.wholeFleet()) {
        nlohmann::ordered_json target = nlohmann::ordered_json::object();
        if (t.engine) target["engine"] = *t.engine;
        if (t.region) target["region"] = *t.region;
        if (t.provider) target["provider"] = *t.provider;
        if (t.zone) target["zone"] = *t.zone;
        if (t.egress_ip) target["egress_ip"] = *t.egress_ip;
        out["target"] = std::move(target);
    }
    out["effect"] = std::string(faultEffectName(f.effect));
    switch (f.effect) {
        case FaultEffect::Down:
            break;
        case FaultEffect::Slow:
            if (f.median_ms && f.sigma) {
                out["median_ms"] = *f.median_ms;
                out["sigma"] = *f.sigma;
            } else {
                out["factor"] = f.factor;
            }
            break;
        case FaultEffect::Invalid:
        case FaultEffect::Resets:
        case FaultEffect::CapacityLost:
            out["share"] = f.share;
            break;
        case FaultEffect::Latency:
            out["add_ms"] = f.add_ms;
            break;
        case FaultEffect::Surge:
            out["factor"] = f.factor;
            break;
    }
    return out;
}

}  // namespace

std::string_view faultEffectName(FaultEffect effect) {
    return kEffectNames.at(static_cast<std::size_t>(effect));
}

std::optional<FaultEffect> faultEffectFromName(std::string_view name) {
    for (std::size_t i = 0; i < kEffectNames.size(); ++i)
        if (kEffectNames[i] == name) return static_cast<FaultEffect>(i);
    return std::nullopt;
}

double Timeline::phaseEnd(std::size_t index, double end_s) const {
    const TimelineEvent& e = events[index];
    if (e.until_s) return *e.until_s;
    for (std::size_t i = index + 1; i < events.size(); ++i)
        if (!events[i].phase.empty()) return events[i].at_s;
    return end_s;
}

bool sameEffect(const TimelineEvent& a, const TimelineEvent& b) {
    return a.at_s == b.at_s && a.until_s == b.until_s && a.set == b.set && a.fault == b.fault &&
           a.phase == b.phase;
}

bool sameEffect(const Timeline& a, const Timeline& b) {
    return std::equal(a.events.begin(), a.events.end(), b.events.begin(), b.events.end(),
                      [](const TimelineEvent& x, const TimelineEvent& y) { return sameEffect(x, y); });
}

std::optional<std::size_t> fileIndex(const TimelineEvent& event) {
    constexpr std::string_view prefix = "/timeline/";
    const std::string& p = event.path;
    std::size_t i = 0;
    if (!p.starts_with(prefix)) return std::nullopt;
    const auto [end, ec] = std::from_chars(p.data() + prefix.size(), p.data() + p.size(), i);
    if (ec != std::errc() || end != p.data() + p.size()) return std::nullopt;
    return i;
}

std::string defaultLabel(const TimelineEvent& event, const std::vector<KnobSpec>& knobs) {
    if (event.fault) return faultLabel(*event.fault);
    if (!event.phase.empty()) return event.phase;
    std::string label;
    for (const auto& s : event.set)
        label += (label.empty() ? "" : ", ") + s.key + " " +
                 knobValueText(findKnob(knobs, s.key), s.value);
    return label;
}

std::vector<IneffectiveSetting> ineffectiveSettings(const Params& params,
                                                   const Timeline& timeline) {
    struct Found {
        std::size_t event, slot;  // the order they are reported in
        IneffectiveSetting setting;
    };
    std::vector<Found> found;
    auto note = [&](std::size_t event, std::size_t slot, std::string why) {
        const TimelineEvent& e = timeline.events[event];
        const std::string& key = e.set[slot].key;
        found.push_back({event, slot,
                         {e.path.empty() ? "\"" + e.label + "\" (" + key + ")" : e.path + "/set/" + key,
                          std::move(why)}});
    };
    // Settings of knobs unused when they came, by knob: each changes nothing unless the knobs
    // make it used before the knob is set again.
    struct Unused {
        std::size_t event, slot;
        std::string why;
    };
    std::map<std::string, Unused> unused;
    Params p = params;
    for (std::size_t i = 0; i < timeline.events.size(); ++i) {
        const TimelineEvent& e = timeline.events[i];
        if (e.set.empty()) continue;
        for (const KnobSetting& k : e.set)
            if (const auto it = unused.find(k.key); it != unused.end()) {
                note(it->second.event, it->second.slot, std::move(it->second.why));
                unused.erase(it);
            }
        std::vector<double> before;  // each knob's value when the event comes
        for (const KnobSetting& k : e.set) before.push_back(p.real(k.key));
        for (const KnobSetting& k : e.set) p.set(k.key, k.value);
        std::erase_if(unused, [&](const auto& u) { return p.used(u.first); });
        for (std::size_t slot = 0; slot < e.set.size(); ++slot) {
            const KnobSetting& k = e.set[slot];
            std::string why;
            if (before[slot] == k.value)
                note(i, slot, k.key + " is already " + knobValueText(p.spec(k.key), k.value) +
                                  " when the event comes");
            else if (!p.used(k.key, &why))
                unused[k.key] = {i, slot, k.key + " is " + why};
        }
    }
    for (auto& [key, u] : unused) note(u.event, u.slot, std::move(u.why));
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
        return a.event != b.event ? a.event < b.event : a.slot < b.slot;
    });
    std::vector<IneffectiveSetting> out;
    for (Found& f : found) out.push_back(std::move(f.setting));
    return out;
}

nlohmann::ordered_json timelineToJson(const Timeline& timeline,
                                      const std::vector<KnobSpec>& knobs) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& ev : timeline.events) {
        if (ev.fault.has_value() + !ev.set.empty() + !ev.phase.empty() != 1)
            throw std::invalid_argument("timeline event at " + formatNumber(ev.at_s) +
                                        " s needs exactly one of knob settings, a fault, a phase");
        nlohmann::ordered_json e = nlohmann::ordered_json::object();
        e["at"] = ev.at_s;
        if (ev.until_s) e["until"] = *ev.until_s;
        if (ev.fault) {
            e["fault"] = faultJson(*ev.fault);
        } else if (!ev.phase.empty()) {
            e["phase"] = ev.phase;
        } else {
            nlohmann::ordered_json set = nlohmann::ordered_json::object();
            for (const auto& s : ev.set) {
                const KnobSpec* spec = findKnob(knobs, s.key);
                if (!spec)
                    throw std::invalid_argument("timeline sets unknown knob '" + s.key + "'");
                set[s.key] = knobValueJson(*spec, s.value);
            }
            e["set"] = std::move(set);
        }
        e["label"] = ev.label;
        out.push_back(std::move(e));
    }
    return out;
}

std::string formatRunTime(double seconds, int start_weekday) {
    const long long ms = std::llround(std::max(0.0, seconds) * 1000);
    const long long day = ms / 86'400'000;
    const long long inDay = ms % 86'400'000;
    const int h = static_cast<int>(inDay / 3'600'000);
    const int m = static_cast<int>(inDay / 60'000 % 60);
    const int s = static_cast<int>(inDay / 1000 % 60);
    const int frac = static_cast<int>(inDay % 1000);
    char buffer[32];
    const char* weekday = kWeekdayNames[static_cast<std::size_t>((start_weekday + day) % 7)];
    if (frac != 0)
        std::snprintf(buffer, sizeof buffer, "%s %02d:%02d:%02d.%03d", weekday, h, m, s, frac);
    else if (s != 0)
        std::snprintf(buffer, sizeof buffer, "%s %02d:%02d:%02d", weekday, h, m, s);
    else
        std::snprintf(buffer, sizeof buffer, "%s %02d:%02d", weekday, h, m);
    return buffer;
}

}  // namespace taillab
