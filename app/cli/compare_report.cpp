// Builds the comparison; the three output forms are in compare_format.cpp.
#include "compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "base/format.h"

namespace taillab::cli {
namespace {

using ojson = nlohmann::ordered_json;

// Parameters as (dotted name, value) pairs in the file's order; nested objects are walked.
void flatten(const ojson& node, const std::string& prefix,
             std::vector<std::pair<std::string, ojson>>& out) {
    for (const auto& [key, value] : node.items()) {
        const std::string name = prefix.empty() ? key : prefix + "." + key;
        if (value.is_object() && !value.empty()) {
            flatten(value, name, out);
        } else {
            out.emplace_back(name, value);
        }
    }
}

template <class T>
const T* findNamed(const std::vector<std::pair<std::string, T>>& items, const std::string& name) {
    for (const auto& [k, v] : items)
        if (k == name) return &v;
    return nullptr;
}

template <class T>
std::vector<std::string> namesOf(const std::vector<std::pair<std::string, T>>& items) {
    std::vector<std::string> names;
    for (const auto& [k, v] : items) names.push_back(k);
    return names;
}

// A's names in A's order, then the names only B has, in B's order; each name once.
std::vector<std::string> unionNames(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b) {
    std::vector<std::string> names;
    for (const auto* side : {&a, &b})
        for (const auto& name : *side)
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    return names;
}

// Checks paired by name and occurrence (the k-th check named X in A with the k-th in B), in
// A's order, then B's unpaired checks in B's order.
std::vector<CheckRow> checkRows(const ComparedRun& a, const ComparedRun& b) {
    std::vector<CheckRow> rows;
    std::vector<bool> paired(b.checks.size(), false);
    for (const auto& [name, pass] : a.checks) {
        CheckRow row{name, pass, std::nullopt};
        for (std::size_t k = 0; k < b.checks.size(); ++k) {
            if (paired[k] || b.checks[k].first != name) continue;
            paired[k] = true;
            row.b = b.checks[k].second;
            break;
        }
        rows.push_back(std::move(row));
    }
    for (std::size_t k = 0; k < b.checks.size(); ++k)
        if (!paired[k]) rows.push_back({b.checks[k].first, std::nullopt, b.checks[k].second});
    return rows;
}

std::vector<ParameterDiff> parameterDiffs(const ComparedRun& a, const ComparedRun& b) {
    std::vector<std::pair<std::string, ojson>> pa, pb;
    flatten(a.parameters, "", pa);
    flatten(b.parameters, "", pb);
    std::vector<ParameterDiff> out;
    // The seed first: runs that differ in it differ by chance as well as by the rest.
    if (a.seed != b.seed) out.push_back({"seed", ojson(a.seed), ojson(b.seed)});
    for (const auto& name : unionNames(namesOf(pa), namesOf(pb))) {
        const ojson* va = findNamed(pa, name);
        const ojson* vb = findNamed(pb, name);
        if (va && vb && *va == *vb) continue;
        ParameterDiff d{name, std::nullopt, std::nullopt};
        if (va) d.a = *va;
        if (vb) d.b = *vb;
        out.push_back(std::move(d));
    }
    return out;
}

const TimeChart* findChart(const ComparedRun& run, const std::string& id) {
    for (const auto& c : run.timeCharts)
        if (c.id == id) return &c;
    return nullptr;
}

// A series' values by x (the first value at each x).
std::map<double, std::optional<double>> byX(const TimeChart* chart, const std::string& name) {
    std::map<double, std::optional<double>> out;
    if (!chart) return out;
    for (const auto& s : chart->series) {
        if (s.name != name) continue;
        for (std::size_t i = 0; i < s.x.size(); ++i) out.emplace(s.x[i], s.y[i]);
        break;
    }
    return out;
}

// A chart's x values over all its series, sorted, without repeats.
std::vector<double> gridOf(const TimeChart* chart) {
    std::vector<double> x;
    if (!chart) return x;
    for (const auto& s : chart->series) x.insert(x.end(), s.x.begin(), s.x.end());
    std::sort(x.begin(), x.end());
    x.erase(std::unique(x.begin(), x.end()), x.end());
    return x;
}

// The spacing of a run's points: the most common gap between two of them (a window; the last
// may be shorter, and a window with no point makes one gap longer), or nullopt with fewer than two.
std::optional<double> spacingOf(const std::vector<double>& x) {
    std::map<double, int> gaps;
    for (std::size_t i = 1; i < x.size(); ++i)
        if (const double d = x[i] - x[i - 1]; d > 0) ++gaps[std::round(d * 1e9) / 1e9];
    std::optional<double> step;
    int most = 0;
    for (const auto& [gap, n] : gaps)
        if (n > most) step = gap, most = n;
    return step;
}

// Points at one x stand for the same window only when both runs' windows have one width. Runs of
// other lengths share their windows (a shorter last one, or a window with no answers and so no
// point, changes nothing); runs with another window_s do not. Empty when they match, else why.
std::string windowsDiffer(const std::vector<double>& a, const std::vector<double>& b,
                          const std::string& xLabel) {
    const std::optional<double> sa = spacingOf(a), sb = spacingOf(b);
    if (!sa || !sb || std::abs(*sa - *sb) <= 1e-9 * std::max(*sa, *sb)) return {};
    char text[160];
    std::snprintf(text, sizeof text, "A's points are %.6g apart, B's %.6g", *sa, *sb);
    return std::string(text) + (xLabel.empty() ? "" : " (" + xLabel + ")") +
           ": they stand for windows of other widths, so B - A is left out";
}

// An event as a scenario file writes it, without its label, flattened: "at", "until", "phase",
// a knob it sets by the knob's name, a fault's keys as "fault.effect", "fault.target.engine".
std::vector<std::pair<std::string, ojson>> eventKeys(const TimelineEvent& e,
                                                     const std::vector<KnobSpec>& knobs) {
    ojson written = timelineToJson(Timeline{{e}}, knobs).at(0);
    written.erase("label");
    std::vector<std::pair<std::string, ojson>> keys;
    flatten(written, "", keys);
    for (auto& [name, value] : keys)
        if (name.starts_with("set.")) name.erase(0, 4);
    return keys;
}

// A value of an event's key for reading: a time as the run's calendar writes it, a number as
// typed, a choice by name.
std::string eventValueText(const std::string& name, const std::optional<ojson>& v, bool knob,
                           int weekday) {
    if (!v) return name == "until" ? "end of run" : knob ? "not set" : "none";
    if ((name == "at" || name == "until") && v->is_number())
        return formatRunTime(v->get<double>(), weekday);
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number()) return taillab::formatNumber(v->get<double>());
    return v->dump();
}

// What differs between two events, key by key, in A's order, then the keys only B has.
std::vector<EventChange> eventChanges(const TimelineEvent& ea, const ComparedRun& a,
                                      const TimelineEvent& eb, const ComparedRun& b) {
    const auto ka = eventKeys(ea, a.timelineVocabulary.knobs);
    const auto kb = eventKeys(eb, b.timelineVocabulary.knobs);
    std::vector<EventChange> out;
    for (const auto& name : unionNames(namesOf(ka), namesOf(kb))) {
        const ojson* va = findNamed(ka, name);
        const ojson* vb = findNamed(kb, name);
        if (va && vb && *va == *vb) continue;
        EventChange c{name, std::nullopt, std::nullopt, {}};
        if (va) c.a = *va;
        if (vb) c.b = *vb;
        const bool knob = !ea.set.empty();
        c.text = name + " " + eventValueText(name, c.a, knob, a.timelineVocabulary.start_weekday) +
                 " -> " + eventValueText(name, c.b, knob, b.timelineVocabulary.start_weekday);
        out.push_back(std::move(c));
    }
    return out;
}

// A knob change, a fault or a phase: only events of one kind are one event changed.
int eventKind(const TimelineEvent& e) { return e.fault ? 1 : e.phase.empty() ? 0 : 2; }

// Which of B's events is A's i-th (nullopt: none). First the events that do the same (both
// timelines are in time order, and such events share their time); then, of the rest, those of
// one kind at one index in their files: the same event, changed (`--b-set timeline.3.at=...`).
// Any other event is one side's alone.
std::vector<std::optional<std::size_t>> pairEvents(const Timeline& ta, const Timeline& tb) {
    const auto& ea = ta.events;
    const auto& eb = tb.events;
    std::vector<std::optional<std::size_t>> match(ea.size());
    std::vector<bool> taken(eb.size(), false);
    for (std::size_t i = 0, from = 0; i < ea.size(); ++i) {
        while (from < eb.size() && eb[from].at_s < ea[i].at_s) ++from;
        for (std::size_t j = from; j < eb.size() && eb[j].at_s == ea[i].at_s; ++j)
            if (!taken[j] && sameEffect(ea[i], eb[j])) {
                match[i] = j;
                taken[j] = true;
                break;
            }
    }
    std::map<std::size_t, std::size_t> byIndex;  // B's unpaired events by their index in B's file
    for (std::size_t j = 0; j < eb.size(); ++j)
        if (!taken[j]) byIndex.emplace(fileIndex(eb[j]).value_or(j), j);
    for (std::size_t i = 0; i < ea.size(); ++i) {
        if (match[i]) continue;
        const auto it = byIndex.find(fileIndex(ea[i]).value_or(i));
        if (it == byIndex.end() || eventKind(eb[it->second]) != eventKind(ea[i])) continue;
        match[i] = it->second;
        byIndex.erase(it);
    }
    return match;
}

// The timelines' events that differ, in time order: changed, one side's alone, or relabelled.
void diffTimelines(const ComparedRun& a, const ComparedRun& b, Comparison& c) {
    const auto& ea = a.timeline.events;
    const auto& eb = b.timeline.events;
    const auto match = pairEvents(a.timeline, b.timeline);
    // A label the event's values would generate follows them: its change is theirs.
    auto custom = [](const TimelineEvent& e, const ComparedRun& run) {
        return e.label != defaultLabel(e, run.timelineVocabulary.knobs);
    };
    std::vector<TimelineDiff> all;
    std::vector<bool> paired(eb.size(), false);
    for (std::size_t i = 0; i < ea.size(); ++i) {
        TimelineDiff d;
        d.a = fileIndex(ea[i]).value_or(i);
        d.atS = ea[i].at_s;
        d.at = formatRunTime(ea[i].at_s, a.timelineVocabulary.start_weekday);
        d.aLabel = ea[i].label;
        if (match[i]) {
            const TimelineEvent& other = eb[*match[i]];
            paired[*match[i]] = true;
            d.b = fileIndex(other).value_or(*match[i]);
            d.bLabel = other.label;
            d.labelsDiffer = d.aLabel != d.bLabel && (custom(ea[i], a) || custom(other, b));
            if (!sameEffect(ea[i], other)) {
                d.changes = eventChanges(ea[i], a, other, b);
                // Not expected (both are read from what a file writes), but never a silent same.
                if (d.changes.empty()) d.changes.push_back({"event", {}, {}, "the events differ"});
            }
            if (d.changes.empty() && !d.labelsDiffer) continue;
        }
        all.push_back(std::move(d));
    }
    for (std::size_t j = 0; j < eb.size(); ++j) {
        if (paired[j]) continue;
        TimelineDiff d;
        d.b = fileIndex(eb[j]).value_or(j);
        d.atS = eb[j].at_s;
        d.at = formatRunTime(eb[j].at_s, b.timelineVocabulary.start_weekday);
        d.bLabel = eb[j].label;
        all.push_back(std::move(d));
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const TimelineDiff& x, const TimelineDiff& y) { return x.atS < y.atS; });
    for (auto& d : all) (d.sameEffect() ? c.relabelled : c.timeline).push_back(std::move(d));
}

SeriesTable seriesTable(const std::string& id, const ComparedRun& a, const ComparedRun& b) {
    const TimeChart* ca = findChart(a, id);
    const TimeChart* cb = findChart(b, id);
    const TimeChart& first = ca ? *ca : *cb;
    SeriesTable t{id, first.title, first.xLabel, first.yLabel, {}, {}, {}};
    std::vector<std::string> na, nb;
    for (const TimeChart* c : {ca, cb}) {
        if (!c) continue;
        for (const auto& s : c->series) {
            (c == ca ? na : nb).push_back(s.name);
            t.x.insert(t.x.end(), s.x.begin(), s.x.end());
        }
    }
    std::sort(t.x.begin(), t.x.end());
    t.x.erase(std::unique(t.x.begin(), t.x.end()), t.x.end());
    for (const auto& name : unionNames(na, nb)) {
        SeriesColumns col{name, {}, {}};
        const auto va = byX(ca, name);
        const auto vb = byX(cb, name);
        for (const double x : t.x) {
            const auto ia = va.find(x);
            const auto ib = vb.find(x);
            col.a.push_back(ia == va.end() ? std::nullopt : ia->second);
            col.b.push_back(ib == vb.end() ? std::nullopt : ib->second);
        }
        t.series.push_back(std::move(col));
    }
    t.windowsDiffer = windowsDiffer(gridOf(ca), gridOf(cb), first.xLabel);
    return t;
}

}  // namespace

std::string TimelineDiff::text() const {
    const std::string index = a && b && *a != *b ? "timeline[" + std::to_string(*a) + "] in A, [" +
                                                       std::to_string(*b) + "] in B"
                                                 : "timeline[" + std::to_string(a ? *a : *b) + "]";
    const std::string label = a ? aLabel : bLabel;
    const std::string relabel = "label '" + aLabel + "' -> '" + bLabel + "'";
    if (sameEffect()) return index + " (" + at + "): " + relabel;
    std::string text = index + " (" + at + ", '" + label + "'): ";
    if (!b) return text + "only in A";
    if (!a) return text + "only in B";
    for (std::size_t k = 0; k < changes.size(); ++k) text += (k ? "; " : "") + changes[k].text;
    return labelsDiffer ? text + "; " + relabel : text;
}

std::optional<double> FigureRow::difference() const {
    if (!a || !b) return std::nullopt;
    return *b - *a;
}

std::optional<double> FigureRow::relative() const {
    if (!a || !b || *a == 0) return std::nullopt;
    return (*b - *a) / std::abs(*a);
}

Comparison makeComparison(CompareSide sideA, const ComparedRun& a, CompareSide sideB,
                          const ComparedRun& b, const std::vector<std::string>& charts) {
    Comparison c;
    c.a = std::move(sideA);
    c.b = std::move(sideB);
    c.parameters = parameterDiffs(a, b);
    // Two runs can share every parameter and differ in their timelines (a fault, a knob changed
    // at 10:30): that difference is as much the comparison's as a parameter's. Events compare by
    // what they do: a label only names one on the charts.
    c.hasTimeline =
        !a.timeline.empty() || !b.timeline.empty() || a.timelineUnknown || b.timelineUnknown;
    if (a.timelineUnknown || b.timelineUnknown) {
        const bool both = a.timelineUnknown && b.timelineUnknown;
        c.timelineUnknown = std::string(both                ? "A and B are result files"
                                        : a.timelineUnknown ? "A is a result file"
                                                            : "B is a result file") +
                            " from before results recorded the timeline they ran (" +
                            (both ? "they have only the marks on their charts"
                                  : "it has only the marks on its charts") +
                            ", which name the events but not what they set): write " +
                            (both ? "them" : "it") +
                            " again with taillab-cli run --out to compare timelines";
    } else {
        diffTimelines(a, b, c);
    }
    for (const auto& name : unionNames(namesOf(a.figures), namesOf(b.figures))) {
        const auto* fa = findNamed(a.figures, name);
        const auto* fb = findNamed(b.figures, name);
        c.figures.push_back({name, fa ? *fa : std::nullopt, fb ? *fb : std::nullopt});
    }
    c.checks = checkRows(a, b);
    for (const auto& id : charts)
        if (findChart(a, id) || findChart(b, id)) c.series.push_back(seriesTable(id, a, b));
    return c;
}

}  // namespace taillab::cli
