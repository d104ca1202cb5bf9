#include "chart_data_export.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <cmath>
#include <system_error>

#include "io/atomic_file.h"
#include "knob_editor.h"

namespace taillab::ui {
namespace {

std::string number(double v) { return csvNumber(v); }

// Series s's point i of `column`: null when it has none.
nlohmann::ordered_json pointValue(const PointColumn& column, std::size_t s, std::size_t i) {
    if (s >= column.values.size() || i >= column.values[s].size()) return nullptr;
    return column.values[s][i];
}

std::string csvValue(const nlohmann::ordered_json& v) {
    if (v.is_number()) return number(v.get<double>());
    if (v.is_string()) return csvField(v.get<std::string>());
    if (v.is_null()) return {};
    return csvField(v.dump());
}

}  // namespace

std::string csvNumber(double v) {
    if (std::isnan(v)) return {};
    char buffer[64];
    const auto r = std::to_chars(buffer, buffer + sizeof(buffer), v);
    return std::string(buffer, r.ptr);
}

nlohmann::ordered_json jsonNumber(double v) {
    if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 9007199254740992.0)
        return static_cast<std::int64_t>(v);
    return v;
}

// RFC 4180: quote when the field holds a comma, quote or line break; double inner quotes.
std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csvTitleLine(const Chart& chart) {
    return "# " + chart.title + "; x: " + exportedXLabel(chart) + "; y: " + chart.y_label + "\n";
}

// A knob value as a scenario file writes it: numbers short, strings bare.
std::string knobText(const nlohmann::ordered_json& v) {
    if (v.is_number()) return number(v.get<double>());
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

ExportCaption exportCaption(const std::string& scenario, std::uint64_t seed,
                            const nlohmann::ordered_json& now, const nlohmann::ordered_json& reference,
                            const std::string& version, const std::vector<KnobSpec>& specs) {
    ExportCaption c;
    c.lead = QString::fromStdString(scenario.empty() ? std::string("unsaved scenario") : scenario) +
             QString::fromUtf8(" · seed ") + QString::number(seed);
    c.none = QStringLiteral("the scenario's knobs");
    c.tail = QStringLiteral("TailLab ") + QString::fromStdString(version);
    if (!now.is_object()) return c;
    for (const auto& [key, value] : now.items()) {
        const bool inReference = reference.is_object() && reference.contains(key);
        if (inReference && reference.at(key) == value) continue;
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const KnobSpec& s) { return s.key == key; });
        // As the panel writes it; a value the knob would refuse, as the file has it.
        auto text = [&](const nlohmann::ordered_json& v) {
            if (spec != specs.end()) {
                try {
                    return knobValueText(*spec, knobValueFromJson(*spec, v));
                } catch (const std::invalid_argument&) {
                }
            }
            return QString::fromStdString(knobText(v));
        };
        const QString name = spec != specs.end() ? QString::fromStdString(spec->label) : QString::fromStdString(key);
        c.items << QString("%1 = %2 (scenario: %3)")
                       .arg(name, text(value), inReference ? text(reference.at(key)) : QStringLiteral("unset"));
    }
    return c;
}

std::string exportedXLabel(const Chart& chart) {
    if (chart.kind == ChartKind::Percentile) return "Quantile (0 to 1; 0.99 is p99)";
    return chart.x_label;
}

std::string chartToCsv(const Chart& chart, const std::vector<Annotation>& annotations,
                       const std::string& caption, bool chartColumn,
                       const std::vector<PointColumn>& columns) {
    std::string out;
    if (!caption.empty()) {
        out += "# " + caption + "\n";
        out += csvTitleLine(chart);
    }
    out += chartColumn ? "chart,series,role,x,y" : "series,role,x,y";
    for (const PointColumn& c : columns) {
        out += ',';
        out += csvField(c.name);
    }
    out += "\n";
    bool first = true;
    for (std::size_t k = 0; k < chart.series.size(); ++k) {
        const Series& s = chart.series[k];
        if (!first) out += "\n";
        first = false;
        const std::string name = (chartColumn ? csvField(chart.id) + "," : std::string()) + csvField(s.name);
        const std::string role = seriesRoleName(s.role);
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            out += name + "," + role + "," + number(s.x[i]) + "," + number(s.y[i]);
            for (const PointColumn& c : columns) {
                out += ',';
                out += csvValue(pointValue(c, k, i));
            }
            out += "\n";
        }
    }
    if (!annotations.empty()) {
        out += '\n';
        out += annotationsToCsv(annotations);
    }
    return out;
}

std::string annotationsToCsv(const std::vector<Annotation>& annotations) {
    std::string out = "annotation,kind,x0,x1\n";
    for (const Annotation& a : annotations)
        out += csvField(a.label) + "," + csvField(a.kind) + "," + number(a.x0) + "," +
               (a.x1 ? number(*a.x1) : std::string()) + "\n";
    return out;
}

nlohmann::ordered_json chartToJson(const Chart& chart, const LabResult* result,
                                   const std::vector<Annotation>& annotations,
                                   const std::vector<PointColumn>& columns) {
    nlohmann::ordered_json j;
    if (result) {
        j["lab"] = result->lab;
        j["scenario"] = result->scenario;
        j["seed"] = result->seed;
        j["parameters"] = result->parameters;
    }
    nlohmann::ordered_json fields = toJson(chart);  // alive for the loop: items() is a view
    for (auto& [key, value] : fields.items()) j[key] = std::move(value);
    if (j.contains("x_label")) j["x_label"] = exportedXLabel(chart);
    for (const PointColumn& c : columns)
        for (std::size_t k = 0; k < chart.series.size(); ++k) {
            nlohmann::ordered_json values = nlohmann::ordered_json::array();
            for (std::size_t i = 0; i < chart.series[k].x.size(); ++i) values.push_back(pointValue(c, k, i));
            j["series"][k][c.name] = std::move(values);
        }
    if (!annotations.empty()) j["annotations"] = toJson(annotations);
    return j;
}

bool writeTextFile(const std::string& path, const std::string& text) {
    try {
        writeFileAtomically(path, text);
        return true;
    } catch (const std::system_error&) {
        return false;
    }
}

}  // namespace taillab::ui
