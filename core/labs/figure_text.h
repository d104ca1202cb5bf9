// A lab figure's name in words, with its unit: what the figures table shows a person, while
// result files, `sweep --figures` and `expect` entries keep the stable identifiers.
//
//   "mean_time_d2_at_0_5"        -> "Mean time in system, d = 2, at load 50%" (mean service times)
//   "p999_ms_pxx_at_0_7"         -> "p99.9 with a hedge at the percentile delay, at load 70%" (ms)
//   "cache_hit_rate_news_live"   -> "Cache hit rate, news (live)" (%, value × 100)
//
// Shares are shown in percent, one unit for one idea, as the charts and checks show them. A
// name without an entry is still shown in words: underscores become spaces, "_ms" becomes the
// unit and "p999" reads "p99.9".
#pragma once

#include <string>
#include <string_view>

namespace taillab {

struct FigureText {
    std::string label;  // a sentence fragment, capitalised, without the unit
    std::string unit;   // "ms", "%", "requests", "mean service times", "×", or "" (a plain number)
    double scale = 1;   // the figure's value times scale reads in `unit`
    bool described = true;  // false: no entry, the label is the name turned into words
};

FigureText describeFigure(std::string_view name);

// "12.3 ms", "63.4%", "1,806 requests": value × scale in `unit`, rounded to what a reader needs
// (four significant digits, counts whole).
std::string formatFigure(const FigureText& text, double value);

}  // namespace taillab
