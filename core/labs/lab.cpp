#include "labs/lab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "labs/lab_common.h"
#include "scenario/json_locate.h"
#include "scenario/json_validator.h"

namespace taillab {

LabResult Lab::run(const Params& params, const Timeline& timeline, std::uint64_t seed,
                   RunControl& control, const PartialSink& partial) const {
    if (!timeline.empty())
        throw TimelineError("/timeline", "lab '" + id() + "' applies no timeline");
    return run(params, seed, control, partial);
}

std::vector<std::string> figureNamesOf(const LabResult& r) {
    std::vector<std::string> names;
    names.reserve(r.figures.size());
    for (const auto& [name, value] : r.figures) names.push_back(name);
    return names;
}

std::vector<std::string> timeChartIdsOf(const LabResult& r) {
    std::vector<std::string> ids;
    for (const Chart& c : r.charts)
        if (c.kind == ChartKind::Time) ids.push_back(c.id);
    return ids;
}

namespace {

std::string quoted(const std::string& s) {
    std::string out = "'";
    out += elideText(s);
    out += '\'';
    return out;
}

// A knob's largest value as a reason quotes it: "10,000,000", "3,600 s", "10,000,000 samples"
// (the unit when it is not the knob's own name).
std::string knobMaximum(const KnobSpec& k) {
    std::string out;
    if (k.max == std::round(k.max) && std::abs(k.max) < 9e18) {
        out = groupedCount(std::llround(k.max));
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", k.max);
        out = buf;
    }
    if (!k.unit.empty() && k.unit != k.key) out += " " + k.unit;
    return out;
}

}  // namespace

void noteAdviceBeyondKnobs(LabResult& r, const std::vector<KnobSpec>& knobs) {
    for (Check& c : r.checks) {
        std::string beyond;
        for (const KnobAdvice& a : c.advice) {
            const auto k = std::find_if(knobs.begin(), knobs.end(),
                                        [&](const KnobSpec& s) { return s.key == a.knob; });
            if (k == knobs.end())
                throw std::logic_error("check '" + c.name + "' advises knob '" + a.knob +
                                       "', which its lab does not have");
            if (a.value > k->max)
                beyond += (beyond.empty() ? "" : " and ") +
                          ("the " + knobMaximum(*k) + " the " + k->key + " knob allows");
        }
        if (beyond.empty()) continue;
        // The reason the check is undecided, or the source of a claim that left points out.
        std::string& text = c.inconclusive.empty() ? c.source : c.inconclusive;
        text += " — above " + beyond;
        if (!c.inconclusive.empty()) text += ", so no run here decides it";
    }
}

std::string unknownFigureMessage(const std::string& lab, const std::string& name,
                                 const std::vector<std::string>& known, const std::string& where) {
    std::string out = "lab '" + lab + "' reports no figure " + quoted(name) + " " + where;
    out += didYouMean(name, known);
    // All of a short list; a dozen of a long one.
    const std::size_t kListed = known.size() <= 20 ? known.size() : 12;
    out += " (it reports ";
    if (known.empty()) out += "none";
    for (std::size_t i = 0; i < std::min(known.size(), kListed); ++i)
        out += (i == 0 ? "" : ", ") + known[i];
    if (known.size() > kListed)
        out += ", ... and " + std::to_string(known.size() - kListed) +
               " more; `taillab-cli run` lists them all under \"figures\"";
    return out + ")";
}

}  // namespace taillab
