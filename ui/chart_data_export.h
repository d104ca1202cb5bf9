// A chart's data as text: CSV (one block per series, rows "series,role,x,y", blocks separated by
// a blank line under one header) and JSON (the chart, its series and the run it came from).
// Plain functions of a Chart, so tests can parse what they write.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "labs/lab_result.h"

namespace taillab::ui {

std::string chartToCsv(const Chart& chart);
// `result` supplies the context (lab, scenario, seed, parameters); may be null.
nlohmann::ordered_json chartToJson(const Chart& chart, const LabResult* result);
// Writes text to a file; false on failure.
bool writeTextFile(const std::string& path, const std::string& text);

}  // namespace taillab::ui
