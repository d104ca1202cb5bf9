#include "labs/lab_result.h"

#include <cmath>
#include <cstdio>

#include "labs/lab_common.h"

namespace taillab {

Check makeCheck(std::string name, double simulated, double expected, double tolerance,
                bool relative, std::string source) {
    Check c{std::move(name),   simulated, expected, tolerance, relative,
            std::move(source), false,     {},       {},        {}};
    const double allowed = relative ? tolerance * std::abs(expected) : tolerance;
    c.pass = std::isfinite(simulated) && std::abs(simulated - expected) <= allowed;
    return c;
}

Verdict verdictOf(const Check& c) {
    if (!c.not_applicable.empty()) return Verdict::NotApplicable;
    if (!c.inconclusive.empty()) return Verdict::Inconclusive;
    return c.pass ? Verdict::Pass : Verdict::Fail;
}

const char* verdictName(Verdict v) {
    switch (v) {
        case Verdict::Pass: return "pass";
        case Verdict::Fail: return "fail";
        case Verdict::Inconclusive: return "inconclusive";
        case Verdict::NotApplicable: return "not applicable";
    }
    return "";
}

CheckTally tallyChecks(const std::vector<Check>& checks) {
    CheckTally t;
    for (const Check& c : checks) {
        switch (verdictOf(c)) {
            case Verdict::Pass: ++t.passed; break;
            case Verdict::Fail: ++t.failed; break;
            case Verdict::Inconclusive: ++t.inconclusive; break;
            case Verdict::NotApplicable: ++t.not_applicable; break;
        }
    }
    return t;
}

bool toleranceUnbounded(const Check& c) {
    if (!std::isfinite(c.tolerance)) return true;
    if (c.relative) return c.tolerance > kUnboundedToleranceShare;
    return c.closed_form != 0 && c.tolerance > kUnboundedToleranceShare * std::abs(c.closed_form);
}

double toleranceShare(const Check& c) {
    if (c.relative) return c.tolerance;
    if (c.closed_form != 0) return c.tolerance / std::abs(c.closed_form);
    return c.tolerance > 0 ? INFINITY : 0.0;
}

void requireResolution(Check& c, const std::string& whatWouldDecide,
                       std::vector<KnobAdvice> advice) {
    if (c.closed_form == 0 || !c.applies()) return;
    const double share = toleranceShare(c);
    if (share <= kMaxToleranceShare) return;
    char why[160];
    std::snprintf(why, sizeof why,
                  share < 1 ? "too few samples to decide: the tolerance is %.1f%% of the expected "
                              "value (a check decides at %.0f%% or less); "
                            : "too few samples to decide: the tolerance is %.0f%% of the expected "
                              "value (a check decides at %.0f%% or less); ",
                  100 * share, 100 * kMaxToleranceShare);
    c.inconclusive = why + whatWouldDecide;
    c.advice = std::move(advice);
}

RunAdvice runAtLeast(std::int64_t n, const RunKnob& knob) {
    return {"run at least " + groupedCount(n) + " " + knob.words,
            {{knob.key, static_cast<double>(n)}}};
}

std::optional<std::int64_t> samplesToDecide(const Check& c, std::int64_t n, double sePart) {
    const double expected = std::abs(c.closed_form);
    const double tolerance = c.relative ? c.tolerance * expected : c.tolerance;
    const double target = kMaxToleranceShare * expected - (tolerance - sePart);
    if (!(target > 0) || !std::isfinite(sePart) || sePart < 0) return std::nullopt;
    const double ratio = sePart / target;
    const double needed = std::ceil(static_cast<double>(n) * ratio * ratio);
    if (!(needed < 9e18)) return std::nullopt;
    return static_cast<std::int64_t>(needed);
}

void requireSampleResolution(Check& c, std::int64_t n, double sePart, const RunKnob& knob) {
    const std::optional<std::int64_t> samples = samplesToDecide(c, n, sePart);
    if (!samples) return requireResolution(c, kNoSampleSizeDecides);
    requireResolution(c, runAtLeast(*samples, knob));
}

Check makeClaim(std::string name, double simulated, Bound bound, double threshold, bool holds,
                std::string source) {
    if (bound == Bound::Within) throw std::logic_error("a claim is one-sided: " + name);
    Check c{std::move(name),   simulated, threshold, 0.0, false,
            std::move(source), holds,     {},        {},  {}, bound};
    return c;
}

const char* boundSymbol(Bound b) {
    switch (b) {
        case Bound::Within: return "\u00b1";
        case Bound::AtLeast: return "\u2265";
        case Bound::AtMost: return "\u2264";
        case Bound::Above: return ">";
        case Bound::Below: return "<";
        case Bound::Equal: return "=";
    }
    return "";
}

const char* boundName(Bound b) {
    switch (b) {
        case Bound::Within: return "within";
        case Bound::AtLeast: return "at_least";
        case Bound::AtMost: return "at_most";
        case Bound::Above: return "above";
        case Bound::Below: return "below";
        case Bound::Equal: return "equal";
    }
    return "";
}

void checkRecordedInRange(LabResult& r, std::int64_t outOfRange, const std::string& what) {
    if (outOfRange == 0) return;
    r.checks.push_back(makeClaim("every sample within its histogram's range (" + what + ")",
                                 static_cast<double>(outOfRange), Bound::Equal, 0, false,
                                 "invariant: samples outside the range were dropped, so the "
                                 "percentiles read from the histogram are wrong"));
}

bool LabResult::allChecksPass() const {
    for (const auto& c : checks)
        if (c.failed()) return false;
    return true;
}

const Chart* LabResult::chart(const std::string& id) const {
    for (const auto& c : charts)
        if (c.id == id) return &c;
    return nullptr;
}

const HdrHistogram* LabResult::distribution(const std::string& name) const {
    for (const auto& d : distributions)
        if (d.name == name) return &d.histogram;
    return nullptr;
}

std::optional<double> LabResult::figure(const std::string& name) const {
    for (const auto& [k, v] : figures)
        if (k == name) return v;
    return std::nullopt;
}

std::vector<double> ninesGrid(double max_nines, int points_per_nine) {
    std::vector<double> grid;
    const int n = static_cast<int>(std::lround(max_nines * points_per_nine));
    for (int i = 0; i <= n; ++i) {
        const double nines = static_cast<double>(i) / points_per_nine;
        grid.push_back(1.0 - std::pow(10.0, -nines));
    }
    return grid;
}

Series percentileSeries(std::string name, const HdrHistogram& h, double max_nines) {
    Series s{std::move(name), SeriesRole::Simulated, {}, {}};
    if (h.empty()) return s;
    const double resolvable = 1.0 - 1.0 / static_cast<double>(h.totalCount());
    std::vector<double> percents;
    for (double p : ninesGrid(max_nines)) {
        if (p > resolvable && !s.x.empty()) break;
        s.x.push_back(p);
        percents.push_back(p * 100.0);
    }
    // One walk over the buckets for every point (the gateway view redraws this per frame).
    std::vector<std::int64_t> us(percents.size());
    h.valuesAtPercentiles(percents, us);
    for (std::int64_t v : us) s.y.push_back(static_cast<double>(v) / 1000.0);
    return s;
}

Series closedFormPercentileSeries(std::string name, const std::function<double(double)>& quantile,
                                  double max_nines) {
    Series s{std::move(name), SeriesRole::ClosedForm, {}, {}};
    for (double p : ninesGrid(max_nines)) {
        const double q = quantile(p);
        if (!std::isfinite(q)) continue;
        s.x.push_back(p);
        s.y.push_back(q);
    }
    return s;
}

nlohmann::ordered_json summarize(const HdrHistogram& h) {
    auto ms = [](std::int64_t us) { return static_cast<double>(us) / 1000.0; };
    nlohmann::ordered_json j;
    j["count"] = h.totalCount();
    j["min_ms"] = ms(h.min());
    j["mean_ms"] = std::round(h.mean()) / 1000.0;
    j["p50_ms"] = ms(h.valueAtPercentile(50));
    j["p90_ms"] = ms(h.valueAtPercentile(90));
    j["p99_ms"] = ms(h.valueAtPercentile(99));
    j["p99_9_ms"] = ms(h.valueAtPercentile(99.9));
    j["p99_99_ms"] = ms(h.valueAtPercentile(99.99));
    j["max_ms"] = ms(h.max());
    if (h.outOfRangeCount() > 0) j["out_of_range"] = h.outOfRangeCount();
    return j;
}

const char* seriesRoleName(SeriesRole r) {
    switch (r) {
        case SeriesRole::Simulated: return "simulated";
        case SeriesRole::ClosedForm: return "closed_form";
        case SeriesRole::Published: return "published";
        case SeriesRole::Reference: return "reference";
    }
    return "simulated";
}

const char* chartKindName(ChartKind k) {
    switch (k) {
        case ChartKind::Percentile: return "percentile";
        case ChartKind::XY: return "xy";
        case ChartKind::Time: return "time";
    }
    return "xy";
}

nlohmann::ordered_json toJson(const Chart& c) {
    nlohmann::ordered_json j;
    j["id"] = c.id;
    j["title"] = c.title;
    j["kind"] = chartKindName(c.kind);
    j["x_label"] = c.x_label;
    j["y_label"] = c.y_label;
    j["log_x"] = c.log_x;
    j["log_y"] = c.log_y;
    j["series"] = nlohmann::ordered_json::array();
    for (const auto& s : c.series) {
        nlohmann::ordered_json js;
        js["name"] = s.name;
        js["role"] = seriesRoleName(s.role);
        js["x"] = s.x;
        js["y"] = s.y;
        j["series"].push_back(std::move(js));
    }
    return j;
}

nlohmann::ordered_json toJson(const std::vector<Annotation>& annotations) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const Annotation& a : annotations) {
        nlohmann::ordered_json ja;
        ja["x0"] = a.x0;
        if (a.x1) ja["x1"] = *a.x1;
        ja["kind"] = a.kind;
        ja["label"] = a.label;
        j.push_back(std::move(ja));
    }
    return j;
}

nlohmann::ordered_json toJson(const LabResult& r) {
    nlohmann::ordered_json j;
    j["scenario"] = r.scenario;
    j["lab"] = r.lab;
    j["seed"] = r.seed;
    j["parameters"] = r.parameters;
    if (r.cancelled) j["cancelled"] = true;
    if (r.progress < 1.0) j["progress"] = r.progress;
    if (!r.notes.empty()) j["notes"] = r.notes;
    j["summary"] = nlohmann::ordered_json::object();
    for (const auto& d : r.distributions) j["summary"][d.name] = summarize(d.histogram);
    j["figures"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r.figures) j["figures"][k] = v;
    j["series"] = nlohmann::ordered_json::array();
    j["charts"] = nlohmann::ordered_json::array();
    for (const auto& c : r.charts) {
        (c.kind == ChartKind::Time ? j["series"] : j["charts"]).push_back(toJson(c));
    }
    j["checks"] = nlohmann::ordered_json::array();
    for (const auto& c : r.checks) {
        nlohmann::ordered_json jc;
        jc["name"] = c.name;
        jc["simulated"] = c.simulated;
        jc["closed_form"] = c.closed_form;
        // A claim's side of it (two-sided checks, the most, write none: their results keep
        // their bytes).
        if (c.bound != Bound::Within) jc["bound"] = boundName(c.bound);
        // An unbounded tolerance is null, and `pass` says only what a check decided: null when
        // it is inconclusive or not applicable (`verdict` and the reason say which).
        jc["tolerance"] = toleranceUnbounded(c) ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(c.tolerance);
        jc["tolerance_kind"] = c.relative ? "relative" : "absolute";
        jc["source"] = c.source;
        jc["pass"] = c.applies() ? nlohmann::ordered_json(c.pass) : nlohmann::ordered_json(nullptr);
        jc["verdict"] = verdictName(verdictOf(c));
        if (!c.not_applicable.empty()) jc["not_applicable"] = c.not_applicable;
        if (!c.inconclusive.empty()) jc["inconclusive"] = c.inconclusive;
        j["checks"].push_back(std::move(jc));
    }
    j["all_checks_pass"] = r.allChecksPass();
    if (!r.annotations.empty()) j["annotations"] = toJson(r.annotations);
    if (!r.timeline.is_null()) j["timeline"] = r.timeline;
    return j;
}

}  // namespace taillab
