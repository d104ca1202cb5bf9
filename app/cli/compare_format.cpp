// The three forms of a comparison: md for reading (rounded numbers, units in the headers), csv
// and json for tools (numbers exact, as the result JSON writes them).
#include <cmath>
#include <cstdio>

#include "compare_report.h"
#include "text_table.h"

namespace taillab::cli {
namespace {

using ojson = nlohmann::ordered_json;

const char* const kMinus = "\u2212";  // the minus sign of the headers "B − A", "B−A <name>"

// How the side was given: the argument, with a scenario's overrides as they were typed.
std::string sourceText(const CompareSide& s) { return inputCommandLine(s.source, s.overrides); }

std::vector<std::string> figureHeader() {
    return {"figure", "A", "B", std::string("B ") + kMinus + " A",
            std::string("(B ") + kMinus + " A)/|A|"};
}

const char* kindText(const CompareSide& s) { return s.scenario ? "scenario" : "result file"; }

// A parameter value as text: strings bare, everything else as JSON.
std::string valueText(const std::optional<ojson>& v) {
    if (!v) return "";
    return v->is_string() ? v->get<std::string>() : v->dump();
}

std::string passText(const std::optional<CheckOutcome>& check) {
    if (!check) return "";
    if (!check->applies) return check->inconclusive ? "inconclusive" : "n/a";
    return check->pass ? "pass" : "fail";
}

std::optional<double> minus(const std::optional<double>& b, const std::optional<double>& a) {
    if (!a || !b) return std::nullopt;
    return *b - *a;
}

std::string exact(const std::optional<double>& x) { return x ? formatNumber(*x) : ""; }

// About `significant` digits, without exponents for everyday magnitudes: 0.63397, 1258.5,
// 1234568; integers as integers.
std::string readable(double x, int significant = 6) {
    if (!std::isfinite(x)) return formatNumber(x);
    if (x == 0) return "0";
    char buf[64];
    const double a = std::abs(x);
    if (a < 1e15 && x == std::trunc(x)) {
        std::snprintf(buf, sizeof buf, "%.0f", x);
    } else if (a >= 1e-4 && a < 1e15) {
        const int magnitude = static_cast<int>(std::floor(std::log10(a)));
        std::snprintf(buf, sizeof buf, "%.*f", std::max(0, significant - 1 - magnitude), x);
        std::string s = buf;
        if (s.find('.') != std::string::npos) {
            s.erase(s.find_last_not_of('0') + 1);
            if (s.back() == '.') s.pop_back();
        }
        return s;
    } else {
        std::snprintf(buf, sizeof buf, "%.*g", significant, x);
    }
    return buf;
}

std::string readable(const std::optional<double>& x) { return x ? readable(*x) : ""; }

// A parameter value for reading: numbers rounded as the figures are.
std::string readableValue(const std::optional<ojson>& v) {
    return v && v->is_number() ? readable(v->get<double>()) : valueText(v);
}

// A change with its sign: "+0.0042", "-12.5", "0".
std::string signedReadable(const std::optional<double>& x, int significant = 6) {
    if (!x) return "";
    std::string text = *x > 0 ? "+" : "";
    return text += readable(*x, significant);
}

// The unit at the end of an axis label, "Latency (ms)" -> "ms"; "" when there is none.
std::string unitOf(const std::string& label) {
    if (label.empty() || label.back() != ')') return "";
    const auto open = label.rfind('(');
    return open == std::string::npos ? "" : label.substr(open + 1, label.size() - open - 2);
}

// For each series, its three column names: "A <name>", "B <name>", "B−A <name>" (+ suffix).
void appendSeriesHeader(std::vector<std::string>& header, const SeriesTable& t,
                        const std::string& suffix) {
    for (const auto& s : t.series) {
        header.push_back("A " + s.name + suffix);
        header.push_back("B " + s.name + suffix);
        header.push_back(std::string("B") + kMinus + "A " + s.name + suffix);
    }
}

// For each series, its three cells at x[i]: A and B written by `value`, B − A by `change`.
template <class Value, class Change>
void appendSeriesCells(std::vector<std::string>& row, const SeriesTable& t, std::size_t i,
                       Value value, Change change) {
    for (const auto& s : t.series) {
        row.push_back(value(s.a[i]));
        row.push_back(value(s.b[i]));
        row.push_back(change(t.comparable() ? minus(s.b[i], s.a[i]) : std::nullopt));
    }
}

std::string markdownSeries(const SeriesTable& t) {
    const std::string unit = unitOf(t.yLabel);
    const std::string suffix = unit.empty() ? "" : " (" + unit + ")";
    std::vector<std::string> header{t.xLabel.empty() ? "x" : t.xLabel};
    appendSeriesHeader(header, t, suffix);
    std::string out = "## Series: " + t.chart + " (" + t.title + ")\n\n";
    if (!t.comparable()) out += "Note: " + t.windowsDiffer + ".\n\n";
    out += markdownLine(header) + markdownRule(header.size(), 0);
    for (std::size_t i = 0; i < t.x.size(); ++i) {
        std::vector<std::string> row{readable(t.x[i])};
        appendSeriesCells(
            row, t, i, [](const std::optional<double>& v) { return readable(v); },
            [](const std::optional<double>& d) { return signedReadable(d); });
        out += markdownLine(row);
    }
    return out;
}

}  // namespace

std::string comparisonMarkdown(const Comparison& c) {
    std::string out = "# Two runs of lab " + c.a.lab + "\n\n";
    for (const CompareSide* s : {&c.a, &c.b}) {
        out += "- " + s->label + ": `" + sourceText(*s) + "` (" + kindText(*s) + "): scenario " +
               s->scenarioName + ", seed " + std::to_string(s->seed) + "\n";
    }
    out += "\n## Parameters that differ\n\n";
    if (c.parameters.empty()) {
        out += "None.\n";
    } else {
        out += markdownLine({"parameter", "A", "B"}) + markdownRule(3, 1);
        for (const auto& p : c.parameters)
            out += markdownLine({p.name, readableValue(p.a), readableValue(p.b)});
    }
    if (c.hasTimeline) {
        out += "\n## Timeline that differs\n\n";
        if (!c.timelineUnknown.empty()) {
            out += "Not compared: " + c.timelineUnknown + ".\n";
        } else if (c.timeline.empty()) {
            out += "None.\n";
        } else {
            for (const auto& t : c.timeline) out += "- " + t.text() + "\n";
        }
        // A label names an event on the charts: noted, apart from what ran.
        if (!c.relabelled.empty()) {
            out += "\nLabels only (the events and so the runs are the same):\n\n";
            for (const auto& t : c.relabelled) out += "- " + t.text() + "\n";
        }
    }
    out += "\n## Figures\n\n";
    out += markdownLine(figureHeader());
    out += markdownRule(5, 1);
    for (const auto& f : c.figures) {
        const auto rel = f.relative();
        out += markdownLine({f.name, readable(f.a), readable(f.b), signedReadable(f.difference()),
                             rel ? signedReadable(100 * *rel, 3) + "%" : ""});
    }
    out += "\n## Checks\n\n";
    if (c.checks.empty()) {
        out += "Neither run has checks.\n";
    } else {
        out += markdownLine({"check", "A", "B"}) + markdownRule(3, 3);
        for (const auto& ch : c.checks)
            out += markdownLine({ch.name, passText(ch.a), passText(ch.b)});
    }
    for (const auto& t : c.series) {
        out += '\n';
        out += markdownSeries(t);
    }
    return out;
}

std::string comparisonCsv(const Comparison& c) {
    std::string out = csvLine({"side", "source", "kind", "lab", "scenario", "seed"});
    auto section = [&out](const std::vector<std::string>& header) {
        out += '\n';  // a blank line between sections, each with its own header
        out += csvLine(header);
    };
    for (const CompareSide* s : {&c.a, &c.b}) {
        out += csvLine({s->label, sourceText(*s), kindText(*s), s->lab, s->scenarioName,
                        std::to_string(s->seed)});
    }
    section({"parameter", "A", "B"});
    for (const auto& p : c.parameters) out += csvLine({p.name, valueText(p.a), valueText(p.b)});
    if (c.hasTimeline) {
        // A row per event that differs, then those whose labels alone do; none when the
        // timelines are not compared (the JSON form says why).
        section(
            {"timeline event A", "timeline event B", "at (s)", "label A", "label B", "differs"});
        auto index = [](const std::optional<std::size_t>& i) {
            return i ? std::to_string(*i) : "";
        };
        for (const auto* list : {&c.timeline, &c.relabelled})
            for (const auto& t : *list) {
                std::string differs = !t.b ? "only in A" : !t.a ? "only in B" : "";
                for (const auto& change : t.changes)
                    differs += (differs.empty() ? "" : "; ") + change.text;
                if (t.labelsDiffer) differs += differs.empty() ? "label" : "; label";
                out += csvLine(
                    {index(t.a), index(t.b), formatNumber(t.atS), t.aLabel, t.bLabel, differs});
            }
    }
    section(figureHeader());
    for (const auto& f : c.figures)
        out +=
            csvLine({f.name, exact(f.a), exact(f.b), exact(f.difference()), exact(f.relative())});
    section({"check", "A", "B"});
    for (const auto& ch : c.checks) out += csvLine({ch.name, passText(ch.a), passText(ch.b)});
    for (const auto& t : c.series) {
        // Each row names its chart, so several charts' sections stay apart.
        std::vector<std::string> header{"chart", "x"};
        appendSeriesHeader(header, t, "");
        section(header);
        for (std::size_t i = 0; i < t.x.size(); ++i) {
            std::vector<std::string> row{t.chart, formatNumber(t.x[i])};
            appendSeriesCells(row, t, i, exact, exact);
            out += csvLine(row);
        }
    }
    return out;
}

std::string comparisonJson(const Comparison& c) {
    auto number = [](const std::optional<double>& x) { return x ? ojson(*x) : ojson(nullptr); };
    ojson out;
    for (const CompareSide* s : {&c.a, &c.b}) {
        ojson side;
        side["source"] = s->source;
        side["kind"] = s->scenario ? "scenario" : "result";
        if (s->scenario) side["overrides"] = s->overrides;
        side["lab"] = s->lab;
        side["scenario"] = s->scenarioName;
        side["seed"] = s->seed;
        side["differing_parameters"] = ojson::object();
        for (const auto& p : c.parameters) {
            const auto& v = s == &c.a ? p.a : p.b;
            side["differing_parameters"][p.name] = v ? *v : ojson(nullptr);
        }
        out[s == &c.a ? "a" : "b"] = std::move(side);
    }
    if (c.hasTimeline) {
        auto diffJson = [](const TimelineDiff& t) {
            auto index = [](const std::optional<std::size_t>& i) {
                return i ? ojson(*i) : ojson(nullptr);
            };
            ojson changes = ojson::array();
            for (const auto& change : t.changes)
                changes.push_back({{"name", change.name},
                                   {"a", change.a ? *change.a : ojson(nullptr)},
                                   {"b", change.b ? *change.b : ojson(nullptr)}});
            return ojson{{"a_index", index(t.a)},
                         {"b_index", index(t.b)},
                         {"at_s", t.atS},
                         {"at", t.at},
                         {"a_label", t.a ? ojson(t.aLabel) : ojson(nullptr)},
                         {"b_label", t.b ? ojson(t.bLabel) : ojson(nullptr)},
                         {"changes", std::move(changes)},
                         {"labels_differ", t.labelsDiffer},
                         {"text", t.text()}};
        };
        ojson timeline;
        if (!c.timelineUnknown.empty()) timeline["not_compared"] = c.timelineUnknown;
        timeline["differences"] = ojson::array();
        for (const auto& t : c.timeline) timeline["differences"].push_back(diffJson(t));
        // Events that do the same under other labels: the same runs.
        timeline["labels_only"] = ojson::array();
        for (const auto& t : c.relabelled) timeline["labels_only"].push_back(diffJson(t));
        out["timeline"] = std::move(timeline);
    }
    out["figures"] = ojson::array();
    for (const auto& f : c.figures) {
        out["figures"].push_back({{"name", f.name},
                                  {"a", number(f.a)},
                                  {"b", number(f.b)},
                                  {"b_minus_a", number(f.difference())},
                                  {"relative_change", number(f.relative())}});
    }
    out["checks"] = ojson::array();
    for (const auto& ch : c.checks) {
        auto pass = [](const std::optional<CheckOutcome>& p) {
            return p && p->applies ? ojson(p->pass) : ojson(nullptr);
        };
        auto applies = [](const std::optional<CheckOutcome>& p) {
            return p ? ojson(p->applies) : ojson(nullptr);
        };
        out["checks"].push_back({{"name", ch.name},
                                 {"a_pass", pass(ch.a)},
                                 {"b_pass", pass(ch.b)},
                                 {"a_applies", applies(ch.a)},
                                 {"b_applies", applies(ch.b)}});
    }
    out["series"] = ojson::array();
    for (const auto& t : c.series) {
        ojson chart{{"chart", t.chart},    {"title", t.title}, {"x_label", t.xLabel},
                    {"y_label", t.yLabel}, {"x", t.x},         {"series", ojson::array()}};
        if (!t.comparable()) chart["windows_differ"] = t.windowsDiffer;
        for (const auto& s : t.series) {
            ojson a = ojson::array(), b = ojson::array(), d = ojson::array();
            for (std::size_t i = 0; i < t.x.size(); ++i) {
                a.push_back(number(s.a[i]));
                b.push_back(number(s.b[i]));
                d.push_back(number(t.comparable() ? minus(s.b[i], s.a[i]) : std::nullopt));
            }
            chart["series"].push_back({{"name", s.name}, {"a", a}, {"b", b}, {"b_minus_a", d}});
        }
        out["series"].push_back(std::move(chart));
    }
    return out.dump(2) + "\n";
}

}  // namespace taillab::cli
