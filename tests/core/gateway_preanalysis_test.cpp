// QueryPreanalysis: the compiler's work that the simulation's drawing thread does for the
// gateway's. Every hint it gives must be what the gateway would have worked out itself.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "gateway/compiler.h"
#include "gateway/compiler_memo.h"
#include "gateway/gateway_types.h"
#include "gateway_day.h"
#include "gateway_sim/query_preanalysis.h"
#include "workload/workload.h"

namespace taillab::gateway {
namespace {

RequestSpec arrival(const std::string& text, std::uint32_t customer = 0, int max_results = 10) {
    RequestSpec r;
    r.text = text.data();
    r.text_len = static_cast<std::uint16_t>(text.size());
    r.customer = customer;
    r.max_results = static_cast<std::uint8_t>(max_results);
    return r;
}

void expectSameAnalysis(const AnalyzedQuery& a, const AnalyzedQuery& b, const std::string& text) {
    EXPECT_EQ(a.normalized, b.normalized) << text;
    EXPECT_EQ(a.normalized_hash, b.normalized_hash) << text;
    EXPECT_EQ(a.query_class, b.query_class) << text;
    EXPECT_EQ(a.zero_results_allowed, b.zero_results_allowed) << text;
}

// Two hours of the week's traffic: every arrival gets its text's hash, and every text the
// gateway would analyse is analysed once, when it first arrives, exactly as analyzeQuery does.
TEST(GatewayPreanalysis, AnalysesEachTextOnceAsTheCompilerDoes) {
    const Params p = test::gatewayDay(0.3);
    Workload workload(p, 11);
    QueryPreanalysis pre(std::size_t{1} << 20);
    std::vector<AnalyzedQuery> analyses;
    std::set<std::string> seen;
    std::size_t hinted = 0, unknownKeys = 0;
    for (int h = 8; h < 10; ++h) {
        std::vector<RequestSpec> hour;
        workload.generateHour(h, hour);
        pre.annotate(hour, analyses);
        for (const RequestSpec& r : hour) {
            const std::string text(r.query());
            EXPECT_EQ(r.text_hash, CompilerMemo::hashOf(text));
            if (r.customer == kUnknownCustomer) {
                ++unknownKeys;
                EXPECT_EQ(r.analysis, 0u) << "the gateway never analyses an unknown key's query";
                continue;
            }
            const bool first = seen.insert(text).second;
            EXPECT_EQ(r.analysis != 0, first) << text;
            if (r.analysis == 0) continue;
            ++hinted;
            ASSERT_LE(r.analysis, analyses.size());
            AnalyzedQuery expected;
            analyzeQuery(text, expected);
            expectSameAnalysis(analyses[r.analysis - 1], expected, text);
        }
    }
    EXPECT_EQ(pre.analysed(), hinted);
    EXPECT_GT(hinted, 1000u);
    EXPECT_LT(hinted, seen.size() + 1);
    EXPECT_GT(unknownKeys, 0u);
}

// The mirror forgets texts as the gateway's memo does, oldest first: with room for one, a text
// that returns after another is analysed again, one that repeats at once is not.
TEST(GatewayPreanalysis, ForgetsAsTheMemoDoes) {
    const std::string a = "Weather in Paris", b = "how to bake bread";
    std::vector<RequestSpec> hour{arrival(a), arrival(a), arrival(b), arrival(a)};
    QueryPreanalysis pre(1);
    std::vector<AnalyzedQuery> analyses;
    pre.annotate(hour, analyses);
    EXPECT_EQ(hour[0].analysis, 1u);
    EXPECT_EQ(hour[1].analysis, 0u);
    EXPECT_EQ(hour[2].analysis, 2u);
    EXPECT_EQ(hour[3].analysis, 3u);
    EXPECT_EQ(analyses[0].normalized, "weather in paris");
    EXPECT_EQ(analyses[1].normalized, "how to bake bread");
}

// What the gateway analyses for itself gets no hint: a text it refuses (a 400), and a request it
// refuses before the compiler (max_results out of range).
TEST(GatewayPreanalysis, LeavesTheGatewaysOwnRefusalsToIt) {
    const std::string blank = "   ", text = "news this week", bad = "\xff\xfe";
    std::vector<RequestSpec> hour{arrival(blank), arrival(bad), arrival(text, 0, 0),
                                  arrival(text)};
    QueryPreanalysis pre(16);
    std::vector<AnalyzedQuery> analyses;
    pre.annotate(hour, analyses);
    EXPECT_EQ(hour[0].analysis, 0u);
    EXPECT_EQ(hour[1].analysis, 0u);
    EXPECT_EQ(hour[2].analysis, 0u);
    EXPECT_EQ(hour[3].analysis, 1u);
    EXPECT_EQ(pre.analysed(), 1u);
}

// A memo given the analysis files it as its own: the same facts and normalized text as when it
// analyses the text itself, and a later lookup hits.
TEST(GatewayPreanalysis, MemoFilesAGivenAnalysisAsItsOwn) {
    for (const std::string text : {"  Official Site  of ACME ", "iphone 15 price $999",
                                   "site:example.com \"exact phrase\"", "Grüße aus Köln"}) {
        AnalyzedQuery given;
        analyzeQuery(text, given);
        CompilerMemo own(8), filed(8);
        const std::uint64_t h = CompilerMemo::hashOf(text);
        const CompilerMemo::Ref a = own.find(text, h);
        const CompilerMemo::Ref b = filed.find(text, h, &given);
        EXPECT_EQ(a.query_class, b.query_class) << text;
        EXPECT_EQ(a.zero_results_allowed, b.zero_results_allowed) << text;
        EXPECT_EQ(a.normalized_hash, b.normalized_hash) << text;
        EXPECT_EQ(a.normalized_is_raw, b.normalized_is_raw) << text;
        EXPECT_EQ(own.normalized(a, text), filed.normalized(b, text)) << text;
        filed.find(text, h);
        EXPECT_EQ(filed.hits(), 1u);
        EXPECT_EQ(filed.misses(), 1u);
    }
}

}  // namespace
}  // namespace taillab::gateway
