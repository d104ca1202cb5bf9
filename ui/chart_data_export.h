// A chart's data as text: CSV (one block per series, rows "series,role,x,y", blocks separated by
// a blank line under one header; then, when the chart shows a run's timeline, a blank line and a
// section of its own with rows "annotation,kind,x0,x1", x1 empty for an instant) and JSON (the
// chart, its series, its "annotations" when there are any, and the run it came from). Plain
// functions of a Chart, so tests can parse what they write.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "knobs/knob.h"
#include "labs/lab_result.h"
#include "plots/export_caption.h"

namespace taillab::ui {

// A column beside x and y that says what each point is where x and y do not: the lane a strip
// lies on (y is only its index), the hedge delay a sweep's point ran at (the chart labels each
// point with it). values[s][i] is series s's point i, a number or a name; a point without one is
// written empty (CSV) or null (JSON).
struct PointColumn {
    std::string name;  // "lane", "hedge_delay_ms": the CSV column and the JSON field of each series
    std::vector<std::vector<nlohmann::ordered_json>> values;
};

// The x axis's label as the data holds x. A percentile chart's x is the quantile, 0.99 for
// p99, which its axis reads in percent ("99%" under "Percentile"): CSV and JSON label it
// "Quantile (0 to 1; 0.99 is p99)", so a number is never called a percentile it is not.
std::string exportedXLabel(const Chart& chart);
// `caption` (exportCaption), when given, opens the file as '#' comment lines, with the axes and
// their units (csvTitleLine); readers skip lines that start with '#'. `chartColumn`: every row
// starts with the chart's id (header "chart,series,role,x,y"), so that rows of several charts in
// one file keep apart series of the same name. A NaN y (a gap: a window not rated) is written
// as an empty field. Each of `columns` adds a column after y ("series,role,x,y,lane").
std::string chartToCsv(const Chart& chart, const std::vector<Annotation>& annotations = {},
                       const std::string& caption = {}, bool chartColumn = false,
                       const std::vector<PointColumn>& columns = {});
// The section chartToCsv ends with: a header "annotation,kind,x0,x1" and a row an annotation
// (x1 empty for an instant).
std::string annotationsToCsv(const std::vector<Annotation>& annotations);
// "# <title>; x: <x label>; y: <y label with its unit>\n": what a chart's CSV says of it.
std::string csvTitleLine(const Chart& chart);
// RFC 4180: quoted when the field holds a comma, quote or line break.
std::string csvField(const std::string& s);
// The shortest text that reads back as the same double; "" for NaN.
std::string csvNumber(double v);
// A number for JSON: a whole one as an integer (250, not 250.0), others as they are.
nlohmann::ordered_json jsonNumber(double v);
// The line every exported chart carries: "<scenario> · seed <n> · <each knob that differs from
// the reference, as label = value (scenario: value)> · TailLab <version>", or "the scenario's
// knobs" when none does. `now` and `reference` are knob objects (Params::toJson()); the
// reference is what the scenario itself has in force (its first knobs, with the changes its own
// timeline has made by then: those are no one's edits). A knob of `specs` goes by its label and
// its values as the knob panel writes them (knobValueText: "Hedge budget = 20 % (scenario:
// 7.5 %)"); another by its key and its value as a scenario file writes it.
ExportCaption exportCaption(const std::string& scenario, std::uint64_t seed,
                            const nlohmann::ordered_json& now, const nlohmann::ordered_json& reference,
                            const std::string& version, const std::vector<KnobSpec>& specs = {});
// `result` supplies the context (lab, scenario, seed, parameters); may be null. `annotations`
// are those drawn on the chart, in its x units. Each of `columns` adds a field to every series,
// an array beside "x" and "y".
nlohmann::ordered_json chartToJson(const Chart& chart, const LabResult* result,
                                   const std::vector<Annotation>& annotations = {},
                                   const std::vector<PointColumn>& columns = {});
// Writes text to a file atomically (io/atomic_file.h): on failure, false, and an existing file
// is left as it was.
bool writeTextFile(const std::string& path, const std::string& text);

}  // namespace taillab::ui
