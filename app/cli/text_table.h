// Tables as the CLI writes them (sweep, compare): the output format, CSV and Markdown lines, and
// numbers in the form the result JSON of `taillab-cli run` uses.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace taillab::cli {

enum class Format { Csv, Json, Markdown };

// "csv", "json" or "md"; throws UsageError naming --format otherwise.
Format parseFormat(const std::string& text);

// The shortest text that reads back as the same double, as the result JSON writes it; "nan",
// "inf" and "-inf" for what JSON cannot hold.
std::string formatNumber(double x);

std::string join(const std::vector<std::string>& items, const char* separator);

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& s);
// The fields joined by commas, with a newline.
std::string csvLine(const std::vector<std::string>& cells);

// A Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdownCell(const std::string& s);
// "| a | b |" with a newline.
std::string markdownLine(const std::vector<std::string>& cells);
// The header rule: the first `leftAligned` columns "---", the others right-aligned "---:".
std::string markdownRule(std::size_t columns, std::size_t leftAligned);

}  // namespace taillab::cli
