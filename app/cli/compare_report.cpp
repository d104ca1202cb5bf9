// Builds the comparison; the three output forms are in compare_format.cpp.
#include "compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

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

// A run's marks as they compare with another run's: a knob change by what it set ("hedge_budget
// -> 0.075"; its label also names the value before, which the other run's own parameters may
// make different), and a mark that lasts to the end of its run as open-ended (runs of other
// lengths end at other times).
std::vector<ComparedRun::Mark> comparableMarks(const ComparedRun& run) {
    double end = 0;
    for (const TimeChart& c : run.timeCharts)
        for (const auto& s : c.series)
            for (double x : s.x) end = std::max(end, x);
    std::vector<ComparedRun::Mark> out;
    for (ComparedRun::Mark m : run.timeline) {
        if (m.x1 && std::abs(*m.x1 - end) <= 1e-9 * std::max(1.0, end)) m.x1.reset();
        if (m.kind == "knob") {
            std::string label, part;
            std::istringstream parts(m.label);
            while (std::getline(parts, part, ',')) {
                const auto arrow = part.find(" -> ");
                const auto key = part.find_first_not_of(' ');
                const auto space = part.find(' ', key);
                if (arrow != std::string::npos && space != std::string::npos && space < arrow)
                    part = part.substr(key, space - key) + part.substr(arrow);
                label += (label.empty() ? "" : ",") + part;
            }
            m.label = label;
        }
        out.push_back(std::move(m));
    }
    return out;
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
    // at 10:30): that difference is as much the comparison's as a parameter's.
    c.hasTimeline = !a.timeline.empty() || !b.timeline.empty();
    const std::vector<ComparedRun::Mark> ka = comparableMarks(a), kb = comparableMarks(b);
    for (const auto& [label, run, mine, theirs] : {std::tuple{"A", &a, &ka, &kb}, std::tuple{"B", &b, &kb, &ka}})
        for (std::size_t i = 0; i < mine->size(); ++i)
            if (std::find(theirs->begin(), theirs->end(), (*mine)[i]) == theirs->end())
                c.timeline.push_back({label, run->timeline[i]});
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
