#include "text_table.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "commands.h"

namespace taillab::cli {

Format parseFormat(const std::string& text) {
    if (text == "csv") return Format::Csv;
    if (text == "json") return Format::Json;
    if (text == "md") return Format::Markdown;
    throw UsageError{"--format expects csv, json or md, found '" + text + "'"};
}

std::string formatNumber(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return nlohmann::json(x).dump();
}

std::string join(const std::vector<std::string>& items, const char* separator) {
    std::string s;
    for (const auto& item : items) s += (s.empty() ? "" : separator) + item;
    return s;
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string csvLine(const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t k = 0; k < cells.size(); ++k) {
        if (k > 0) out += ',';
        out += csvField(cells[k]);
    }
    return out + "\n";
}

std::string markdownCell(const std::string& s) {
    std::string cell;
    for (char c : s) {
        if (c == '|') {
            cell += "\\|";
        } else if (c == '\n' || c == '\r') {
            cell += ' ';
        } else {
            cell += c;
        }
    }
    return cell;
}

std::string markdownLine(const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& c : cells) {
        out += ' ';
        out += markdownCell(c);
        out += " |";
    }
    return out + "\n";
}

std::string markdownRule(std::size_t columns, std::size_t leftAligned) {
    std::string out = "|";
    for (std::size_t k = 0; k < columns; ++k) out += k < leftAligned ? "---|" : "---:|";
    return out + "\n";
}

}  // namespace taillab::cli
