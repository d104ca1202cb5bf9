// Figures in words: every figure a shipped scenario or any lab's choice reports has a label that
// is a phrase (no identifiers), with its unit; shares read in percent; numbers are rounded to
// four significant digits, counts whole with thousands separators.
#include <gtest/gtest.h>

#include <set>

#include "labs/figure_text.h"
#include "labs/lab.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

std::set<std::string> everyFigureName() {
    std::set<std::string> names;
    for (const std::string& file : findScenarioFiles(std::string(TAILLAB_SOURCE_DIR) + "/scenarios")) {
        const Scenario s = loadScenarioFile(file);
        for (const std::string& n : findLab(s.lab)->figureNames(s.params)) names.insert(n);
    }
    for (const auto& lab : allLabs()) {
        for (const KnobSpec& k : lab->knobs()) {
            if (k.choices.empty()) continue;
            for (std::size_t v = 0; v < k.choices.size(); ++v) {
                Params p = lab->defaultParams();
                p.set(k.key, static_cast<double>(v));
                try {
                    for (const std::string& n : lab->figureNames(p)) names.insert(n);
                } catch (const std::invalid_argument&) {
                    // A choice that contradicts the defaults: not a run anyone can make.
                }
            }
        }
    }
    return names;
}

TEST(FigureText, EveryReportedFigureReadsAsAPhraseWithItsUnit) {
    const std::set<std::string> names = everyFigureName();
    ASSERT_GT(names.size(), 300u);
    for (const std::string& name : names) {
        const FigureText t = describeFigure(name);
        EXPECT_TRUE(t.described) << name << " has no words of its own: " << t.label;
        EXPECT_EQ(t.label.find('_'), std::string::npos) << name << " -> " << t.label;
        EXPECT_NE(t.label, name);
        ASSERT_FALSE(t.label.empty()) << name;
        EXPECT_TRUE(std::isupper(static_cast<unsigned char>(t.label[0])) || t.label[0] == 'p')
            << t.label;
        if (name.size() > 3 && name.compare(name.size() - 3, 3, "_ms") == 0) {
            EXPECT_EQ(t.unit, "ms") << name;
        }
        if (t.unit == "%") {
            EXPECT_EQ(t.scale, 100) << name;
        }
    }
}

TEST(FigureText, FamiliesNameTheirParameters) {
    FigureText t = describeFigure("mean_time_d2_at_0_5");
    EXPECT_EQ(t.label, "Mean time in system, d = 2, at load 50 %");
    EXPECT_EQ(t.unit, "mean service times");
    EXPECT_EQ(describeFigure("predicted_mean_time_d1_at_0_95").label,
              "Mean time in system, d = 1, closed form, at load 95 %");
    EXPECT_EQ(describeFigure("p999_ms_pxx_at_0_7").label,
              "p99.9 with a hedge at the percentile delay, at load 70 %");
    EXPECT_EQ(describeFigure("p999_after_closed_form_ms").label, "p99.9 with the hedge, closed form");
    EXPECT_EQ(describeFigure("open_loop_p999_ms").label, "Open loop: p99.9");
    t = describeFigure("cache_hit_rate_news_live");
    EXPECT_EQ(t.label, "Cache hit rate, news (live)");
    EXPECT_EQ(t.unit, "%");
    EXPECT_EQ(describeFigure("outcome_deadline_missed").label, "Outcome: deadline missed");
    // A name nobody described still reads in words, and says so.
    t = describeFigure("new_thing_p999_ms");
    EXPECT_FALSE(t.described);
    EXPECT_EQ(t.label, "New thing p99.9");
    EXPECT_EQ(t.unit, "ms");
}

TEST(FigureText, ValuesAreRoundedAndCarryTheirUnit) {
    EXPECT_EQ(formatFigure(describeFigure("slow_fraction"), 0.25953), "25.95 %");
    EXPECT_EQ(formatFigure(describeFigure("per_backend_budget"), 0.00033495508), "0.03350 %");
    EXPECT_EQ(formatFigure(describeFigure("request_p99_ms"), 3487.743), "3,488 ms");
    EXPECT_EQ(formatFigure(describeFigure("backend_p50_ms"), 10.039), "10.04 ms");
    EXPECT_EQ(formatFigure(describeFigure("mean_time_d1_at_0_1"), 1.1159852), "1.116 mean service times");
    EXPECT_EQ(formatFigure(describeFigure("requests"), 159892), "159,892 requests");
    EXPECT_EQ(formatFigure(describeFigure("error_ms"), -46.772), "−46.77 ms");
    EXPECT_EQ(formatFigure(describeFigure("error_ratio"), 0.5051995), "0.5052 ×");
    EXPECT_EQ(formatFigure(describeFigure("outcome_shed"), 0), "0 requests");
    EXPECT_EQ(formatFigure(describeFigure("hedge_delay_ms"), std::nan("")), "—");
}

}  // namespace
}  // namespace taillab
