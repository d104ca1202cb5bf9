// The gateway's query compiler: normalization, buckets, cache keys, classification.
#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gateway/compiler.h"
#include "base/rng.h"

namespace taillab::gateway {
namespace {

CompileInput baseInput(std::string_view query) {
    CompileInput in;
    in.endpoint = "search";
    in.region = "EU";
    in.lang = "en";
    in.mode = "web";
    in.query = query;
    in.max_results = 10;
    in.request_id = "req-1";
    in.include_media = false;
    return in;
}

std::uint64_t keyOf(const CompileInput& in) { return compileQuery(in).cache_key; }

// The message of the std::invalid_argument `f` throws, or "" if it throws nothing.
template <typename F>
std::string invalidArgumentMessage(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

// ---- normalization -------------------------------------------------------------------------

TEST(GatewayCompilerNormalize, FullWidthLigatureAndCaseFoldingMeetTheAsciiSpelling) {
    EXPECT_EQ(normalizeQuery("\xEF\xBC\xA1\xEF\xBC\xB0\xEF\xBC\xA9"), "api");  // "ＡＰＩ"
    EXPECT_EQ(normalizeQuery("API"), "api");
    EXPECT_EQ(normalizeQuery("Stra\xC3\x9F"
                             "e"),
              "strasse");  // "Straße": full folding, ß -> ss
    EXPECT_EQ(normalizeQuery("STRASSE"), "strasse");
    EXPECT_EQ(normalizeQuery("\xEF\xAC\x81le"), "file");  // "ﬁle"
    EXPECT_EQ(normalizeQuery("\xE2\x85\xA2"), "iii");     // Roman numeral three, NFKC
    // Composed and decomposed "é" are one query.
    EXPECT_EQ(normalizeQuery("caf\xC3\xA9"), normalizeQuery("cafe\xCC\x81"));
    EXPECT_EQ(normalizeQuery("Caf\xC3\x89"), "caf\xC3\xA9");
}

TEST(GatewayCompilerNormalize, UnicodeWhitespaceRunsCollapseToOneSpaceAndAreTrimmed) {
    EXPECT_EQ(normalizeQuery("  hello \t\n world  "), "hello world");
    // NO-BREAK SPACE, IDEOGRAPHIC SPACE, LINE SEPARATOR, NEXT LINE, EM SPACE.
    EXPECT_EQ(normalizeQuery("a\xC2\xA0"
                             "b\xE3\x80\x80"
                             "c\xE2\x80\xA8"
                             "d\xC2\x85"
                             "e\xE2\x80\x83 f"),
              "a b c d e f");
    // ZERO WIDTH SPACE is not white space but a default-ignorable: it disappears.
    EXPECT_EQ(normalizeQuery("fo\xE2\x80\x8Bo"), "foo");
    EXPECT_EQ(normalizeQuery(" \t \xE3\x80\x80 "), "");
    EXPECT_EQ(normalizeQuery(""), "");
}

TEST(GatewayCompilerNormalize, TrackingParamsAreStrippedOthersKeptInOrder) {
    EXPECT_EQ(normalizeQuery("https://ex.com/p?a=1&utm_source=x&b=2&gclid=9&c=3"),
              "https://ex.com/p?a=1&b=2&c=3");
    // Every listed name, any utm_*, any case; a now-empty '?' goes.
    EXPECT_EQ(normalizeQuery("see http://ex.com/x?UTM_Medium=m&utm_campaign=c&fbclid=1&msclkid=2"
                             "&mc_cid=3&mc_eid=4&yclid=5&_ga=6&ref_src=7&igshid=8 now"),
              "see http://ex.com/x now");
    // Names that merely resemble tracking ones are kept.
    EXPECT_EQ(normalizeQuery("https://ex.com/?utm=1&gclid_x=2&ref=3&ga=4"),
              "https://ex.com/?utm=1&gclid_x=2&ref=3&ga=4");
    // The fragment survives; a URL ends at a quote; a wrapping parenthesis is not part of it.
    EXPECT_EQ(normalizeQuery("https://ex.com/a?utm_id=1#top"), "https://ex.com/a#top");
    EXPECT_EQ(normalizeQuery("(https://ex.com/a?q=1&utm_term=z)"), "(https://ex.com/a?q=1)");
    EXPECT_EQ(normalizeQuery("\"https://ex.com/?fbclid=1\""), "\"https://ex.com/\"");
    // Not a URL: left alone.
    EXPECT_EQ(normalizeQuery("ftp://ex.com/?utm_source=1"), "ftp://ex.com/?utm_source=1");
}

TEST(GatewayCompilerNormalize, OperatorsAreSortedAfterTheFreeTerms) {
    EXPECT_EQ(normalizeQuery("site:b.com foo site:a.com"), "foo site:a.com site:b.com");
    EXPECT_EQ(normalizeQuery("foo site:a.com site:b.com"), "foo site:a.com site:b.com");
    EXPECT_EQ(normalizeQuery("filetype:PDF -site:x.org Rust Lang:DE intitle:book inurl:docs"),
              "rust -site:x.org filetype:pdf intitle:book inurl:docs lang:de");
    // Free terms keep their order; duplicate operators collapse.
    EXPECT_EQ(normalizeQuery("zeta site:a.com alpha site:a.com"), "zeta alpha site:a.com");
    // An operator's quoted phrase value travels with it.
    EXPECT_EQ(normalizeQuery("intitle:\"Big Data\" spark"), "spark intitle:\"big data\"");
    // Inside a phrase, "site:" is text; an unknown name or an empty value is not an operator.
    EXPECT_EQ(normalizeQuery("\"site:b.com rocks\" site:a.com"), "\"site:b.com rocks\" site:a.com");
    EXPECT_EQ(normalizeQuery("site: foo"), "site: foo");
    EXPECT_EQ(normalizeQuery("note:x foo"), "note:x foo");
    // A URL inside an operator is stripped as well.
    EXPECT_EQ(normalizeQuery("inurl:https://a.com/?utm_source=1&k=v foo"),
              "foo inurl:https://a.com/?k=v");
}

TEST(GatewayCompilerNormalize, QuotesPairUpCurlyQuotesCountAndAnUnpairedQuoteGoes) {
    EXPECT_EQ(normalizeQuery("\xE2\x80\x9CHello World\xE2\x80\x9D"), "\"hello world\"");
    EXPECT_EQ(normalizeQuery("\xEF\xBC\x82x y\xEF\xBC\x82"), "\"x y\"");  // full-width quotes
    EXPECT_EQ(normalizeQuery("site:a.com \"foo"), "foo site:a.com");
    EXPECT_EQ(normalizeQuery("\"a b\" c \" site:x.com"), "\"a b\" c site:x.com");
}

TEST(GatewayCompilerNormalize, InvalidUtf8ThrowsNamingTheByteOffset) {
    const std::vector<std::pair<std::string, std::size_t>> cases{
        {std::string("ab\xFF"
                     "cd"),
         2},                                   // never valid
        {std::string("abc\xC3"), 3},           // truncated 2-byte
        {std::string("x\xC0\xAF"), 1},         // overlong '/'
        {std::string("ok \xED\xA0\x80"), 3},   // surrogate U+D800
        {std::string("\xF4\x90\x80\x80"), 0},  // above U+10FFFF
        {std::string("\xE2\x82"), 0},          // truncated 3-byte
        {std::string("caf\xC3\xA9 \x80"), 6},  // stray continuation after valid é
    };
    for (const auto& [bytes, offset] : cases) {
        EXPECT_EQ(invalidUtf8Offset(bytes), offset);
        const std::string msg = invalidArgumentMessage([&] { normalizeQuery(bytes); });
        EXPECT_NE(msg.find("byte offset " + std::to_string(offset)), std::string::npos) << msg;
    }
    EXPECT_EQ(invalidUtf8Offset("plain caf\xC3\xA9 \xF0\x9F\x98\x80"), std::nullopt);
    const std::string via_compile =
        invalidArgumentMessage([] { compileQuery(baseInput("q\xFE")); });
    EXPECT_NE(via_compile.find("byte offset 1"), std::string::npos) << via_compile;
}

TEST(GatewayCompilerNormalize, IsAFixedPoint) {
    const std::vector<std::string> samples{
        "site:b.com Foo \"A  B\" intitle:\"x y\" https://e.com/?utm_source=1&a=2",
        "\xE2\x80\x9C"
        "caf\xC3\xA9\xE2\x80\x9D -site:Z.org",
        "a\"b site:x c\"", "(https://ex.com/a?q=1&utm_term=z)", "e\"\xCC\x81 x"};
    for (const auto& s : samples) {
        const std::string once = normalizeQuery(s);
        EXPECT_EQ(normalizeQuery(once), once) << s;
    }
    // Random strings over a hostile alphabet: quotes, operators, combining marks, URL pieces.
    const std::vector<std::string> alphabet{" ",
                                            "\"",
                                            "\xE2\x80\x9C",
                                            "site:",
                                            "-site:a.com",
                                            "intitle:",
                                            "a",
                                            "E",
                                            "\xCC\x81",
                                            "\xC3\x9F",
                                            "\xEF\xAC\x81",
                                            "https://",
                                            "x.com/",
                                            "?",
                                            "&",
                                            "utm_source=1",
                                            "k=v",
                                            "#",
                                            "(",
                                            ")",
                                            "\xE3\x80\x80",
                                            "\t",
                                            "\xCD\x85",
                                            "2024",
                                            "$"};
    Rng rng(42, "test/gateway/normalize-fixed-point");
    for (int i = 0; i < 3000; ++i) {
        std::string s;
        const int len = 1 + static_cast<int>(rng.below(14));
        for (int k = 0; k < len; ++k) s += alphabet[rng.below(alphabet.size())];
        const std::string once = normalizeQuery(s);
        ASSERT_EQ(normalizeQuery(once), once) << "input: " << s;
        ASSERT_EQ(invalidUtf8Offset(once), std::nullopt);
        ASSERT_TRUE(once.empty() || (once.front() != ' ' && once.back() != ' '));
        ASSERT_EQ(once.find("  "), std::string::npos);
    }
}

TEST(GatewayCompilerNormalize, StripTrackingParamsByItself) {
    EXPECT_EQ(stripTrackingParams("https://a.com/p?x=1&&utm_a=2&y"), "https://a.com/p?x=1&y");
    EXPECT_EQ(stripTrackingParams("https://a.com/p?"), "https://a.com/p");
    EXPECT_EQ(stripTrackingParams("https://a.com/p#f?utm_source=1"),
              "https://a.com/p#f?utm_source=1");
    EXPECT_TRUE(isTrackingParam("utm_"));
    EXPECT_TRUE(isTrackingParam("GCLID"));
    EXPECT_FALSE(isTrackingParam("utmx"));
    EXPECT_FALSE(isTrackingParam(""));
}

// ---- buckets and keys ----------------------------------------------------------------------

TEST(GatewayCompilerBucket, BucketsAndRange) {
    for (int n = 1; n <= 10; ++n) EXPECT_EQ(maxResultsBucket(n), 10) << n;
    for (int n = 11; n <= 20; ++n) EXPECT_EQ(maxResultsBucket(n), 20) << n;
    for (int n = 21; n <= 50; ++n) EXPECT_EQ(maxResultsBucket(n), 50) << n;
    for (int n : {0, -1, 51, 1000}) {
        const std::string msg = invalidArgumentMessage([n] { maxResultsBucket(n); });
        EXPECT_NE(msg.find("must be an integer from 1 to 50"), std::string::npos) << n << ": " << msg;
    }
    // The buckets cover the range that every reader of a request holds max_results to, exactly.
    for (int n = kMaxResultsLowest - 2; n <= kMaxResultsHighest + 2; ++n) {
        if (maxResultsInRange(n))
            EXPECT_GE(maxResultsBucket(n), n);
        else
            EXPECT_THROW(maxResultsBucket(n), std::invalid_argument) << n;
    }
    CompileInput in = baseInput("foo");
    in.max_results = 0;
    EXPECT_THROW(compileQuery(in), std::invalid_argument);
    in.max_results = 17;
    EXPECT_EQ(compileQuery(in).fetch_count, 20);
}

TEST(GatewayCompilerKey, EquivalentSpellingsShareAKey) {
    const std::vector<std::pair<std::string, std::string>> same{
        {"\xEF\xBC\xA1\xEF\xBC\xB0\xEF\xBC\xA9 docs", "api docs"},
        {"Stra\xC3\x9F"
         "e",
         "STRASSE"},
        {"\xEF\xAC\x81nd", "find"},
        {"  Foo\t\tBAR ", "foo bar"},
        {"site:b.com foo site:a.com", "foo site:a.com site:b.com"},
        {"https://ex.com/?id=7&utm_source=news", "https://ex.com/?id=7"},
    };
    for (const auto& [a, b] : same) EXPECT_EQ(keyOf(baseInput(a)), keyOf(baseInput(b))) << a;
    EXPECT_NE(keyOf(baseInput("https://ex.com/?id=7")), keyOf(baseInput("https://ex.com/?id=8")));
    EXPECT_NE(keyOf(baseInput("foo bar")), keyOf(baseInput("bar foo")));  // free terms keep order
}

TEST(GatewayCompilerKey, RequestIdAndMaxResultsWithinABucketDoNotChangeIt) {
    CompileInput a = baseInput("rust async"), b = a;
    b.request_id = "a-completely-different-request";
    EXPECT_EQ(keyOf(a), keyOf(b));
    for (int n : {1, 5, 8, 10}) {
        b.max_results = n;
        EXPECT_EQ(keyOf(a), keyOf(b)) << n;
    }
    a.max_results = 11;
    b.max_results = 20;
    EXPECT_EQ(keyOf(a), keyOf(b));
    b.max_results = 21;
    EXPECT_NE(keyOf(a), keyOf(b));
}

TEST(GatewayCompilerKey, EveryResultChangingFieldChangesIt) {
    const CompileInput base = baseInput("rust async");
    std::set<std::uint64_t> keys{keyOf(base)};
    const auto add = [&](CompileInput in, const char* what) {
        EXPECT_TRUE(keys.insert(keyOf(in)).second) << what << " did not change the key";
    };
    CompileInput in = base;
    in.max_results = 20, add(in, "bucket 20");
    in.max_results = 50, add(in, "bucket 50");
    in = base, in.region = "US", add(in, "region");
    in = base, in.lang = "de", add(in, "lang");
    in = base, in.mode = "news", add(in, "mode");
    in = base, in.include_media = true, add(in, "include_media");
    in = base, in.endpoint = "images", add(in, "endpoint");
    in = base, in.query = "rust sync", add(in, "query");
    // Fields cannot run into each other.
    CompileInput x = base, y = base;
    x.region = "EUe", x.lang = "n";
    y.region = "EU", y.lang = "en";
    EXPECT_NE(keyOf(x), keyOf(y));
    x = base, y = base;
    x.region = std::string_view("EU\0en", 5), x.lang = "";
    EXPECT_NE(keyOf(x), keyOf(y));
}

TEST(GatewayCompilerKey, CompileQueryFoldsTheSameFieldsAsFoldCacheKey) {
    CompileInput in = baseInput("Latest  RUST release site:blog.rust-lang.org");
    in.max_results = 13;
    in.include_media = true;
    const CompiledQuery q = compileQuery(in);
    EXPECT_EQ(q.normalized, "latest rust release site:blog.rust-lang.org");
    EXPECT_EQ(q.cache_key, foldCacheKey(in.endpoint, in.region, in.lang, hashText(q.normalized), 20,
                                        in.mode, true));
    EXPECT_NE(q.cache_key, foldCacheKey(in.endpoint, in.region, in.lang, hashText(q.normalized), 20,
                                        in.mode, false));
    EXPECT_EQ(q.fetch_count, 20);
    EXPECT_EQ(q.query_class, QueryClass::News);
    EXPECT_TRUE(q.zero_results_allowed);
    // Synthetic query hashes, as the simulator uses them: distinct in, distinct out.
    std::set<std::uint64_t> keys;
    for (std::uint64_t h = 0; h < 5000; ++h)
        keys.insert(foldCacheKey("search", "EU", "en", h, 10, "web", false));
    EXPECT_EQ(keys.size(), 5000u);
}

// The simulator's two-step fold gives the compiler's key, and every field of the key separates
// keys: small query hashes (as the simulator's probes use) under every combination of endpoint,
// region, lang, bucket, mode and media, 2 x 3 x 2 x 3 x 2 x 2 x 500 keys, all distinct.
TEST(GatewayCompilerKey, TwoStepFoldMatchesAndEveryFieldSeparates) {
    std::set<std::uint64_t> keys;
    std::size_t n = 0;
    for (std::string_view endpoint : {"/search/lite", "/search/fast"})
        for (std::string_view region : {"EU", "US", "APAC"})
            for (std::string_view lang : {"en", "de"})
                for (std::string_view mode : {"web", "news"})
                    for (bool media : {false, true}) {
                        const CacheKeyPrefix prefix = cacheKeyPrefix(endpoint, region, lang, mode, media);
                        for (int bucket : {10, 20, 50})
                            for (std::uint64_t h = 0; h < 500; ++h) {
                                const std::uint64_t key = foldCacheKey(prefix, h, bucket);
                                ASSERT_EQ(key, foldCacheKey(endpoint, region, lang, h, bucket, mode, media));
                                keys.insert(key);
                                ++n;
                            }
                    }
    EXPECT_EQ(keys.size(), n);
}

TEST(GatewayCompilerKey, HashTextIsStableAndMixesWell) {
    EXPECT_EQ(hashText("api"), hashText(std::string("api")));
    EXPECT_NE(hashText("api"), hashText("apj"));
    EXPECT_NE(hashText(""), hashText(std::string_view("\0", 1)));
    // One flipped input bit flips about half the output bits (finalizer avalanche).
    double total = 0;
    int n = 0;
    for (int i = 0; i < 200; ++i) {
        std::string s = "query number " + std::to_string(i);
        const std::uint64_t h = hashText(s);
        s[0] ^= 0x01;
        total += std::popcount(h ^ hashText(s));
        ++n;
    }
    EXPECT_NEAR(total / n, 32.0, 3.0);
}

TEST(GatewayCompilerKey, EmptyQueryIsRejected) {
    EXPECT_THROW(compileQuery(baseInput("   \xE2\x80\x8B ")), std::invalid_argument);
}

TEST(GatewayCompilerKey, ZeroResultsAllowedForSiteAndExactPhrase) {
    EXPECT_TRUE(compileQuery(baseInput("foo site:a.com")).zero_results_allowed);
    EXPECT_TRUE(compileQuery(baseInput("\"exact phrase here\"")).zero_results_allowed);
    EXPECT_TRUE(compileQuery(baseInput("\xE2\x80\x9C"
                                       "curly phrase\xE2\x80\x9D"))
                    .zero_results_allowed);
    EXPECT_TRUE(compileQuery(baseInput("spark intitle:\"big data\"")).zero_results_allowed);
    EXPECT_FALSE(compileQuery(baseInput("foo -site:a.com")).zero_results_allowed);
    EXPECT_FALSE(compileQuery(baseInput("plain words")).zero_results_allowed);
    EXPECT_FALSE(compileQuery(baseInput("\"\" foo")).zero_results_allowed);
    EXPECT_FALSE(compileQuery(baseInput("unpaired \" quote")).zero_results_allowed);
    // An unpaired quote is dropped, so this is a plain site: query.
    EXPECT_EQ(compileQuery(baseInput("\"site:a.com")).normalized, "site:a.com");
    EXPECT_TRUE(compileQuery(baseInput("\"site:a.com")).zero_results_allowed);
    // Inside a phrase, "site:" is text, but the phrase itself allows zero results.
    EXPECT_TRUE(zeroResultsAllowed("\"site:a.com\""));
    EXPECT_FALSE(zeroResultsAllowed("site: foo"));
}

// ---- classification ------------------------------------------------------------------------

struct ClassCase {
    const char* query;
    QueryClass expected;
};

void expectClasses(const std::vector<ClassCase>& cases) {
    for (const auto& c : cases) {
        const std::string n = normalizeQuery(c.query);
        EXPECT_EQ(kClassNames[static_cast<int>(classifyQuery(n))],
                  kClassNames[static_cast<int>(c.expected)])
            << c.query;
    }
}

TEST(GatewayCompilerClassify, News) {
    expectClasses({
        {"election results", QueryClass::News},
        {"BREAKING earthquake", QueryClass::News},
        {"champions league score", QueryClass::News},
        {"weather today", QueryClass::News},
        {"apple event 2025", QueryClass::News},
        {"what happened on monday in the markets", QueryClass::News},
        {"stock market this week", QueryClass::News},
        {"live", QueryClass::News},
        {"news", QueryClass::News},
        {"world cup 2026!", QueryClass::News},
    });
}

TEST(GatewayCompilerClassify, Product) {
    expectClasses({
        {"iphone 15 price", QueryClass::Product},
        {"laptop under $500", QueryClass::Product},
        {"headphones 200 eur", QueryClass::Product},
        {"usd99 keyboard", QueryClass::Product},
        {"\xE2\x82\xAC"
         "30 shoes",
         QueryClass::Product},  // "€30 shoes"
        {"postgres vs mysql", QueryClass::Product},
        {"python 3.11", QueryClass::Product},
        {"kubernetes v1.29 changelog", QueryClass::Product},
        {"best cheapest flights", QueryClass::Product},
        {"dyson v15 review", QueryClass::Product},
    });
}

TEST(GatewayCompilerClassify, LongTail) {
    expectClasses({
        {"how do i reverse a linked list", QueryClass::LongTail},
        {"why is the sky blue", QueryClass::LongTail},
        {"does green tea help sleep", QueryClass::LongTail},
        {"recipe for gluten free bread with yeast and honey", QueryClass::LongTail},
    });
}

TEST(GatewayCompilerClassify, Navigational) {
    expectClasses({
        {"github.com", QueryClass::Navigational},
        {"https://docs.python.org/3/", QueryClass::Navigational},
        {"facebook", QueryClass::Navigational},
        {"gmail login", QueryClass::Navigational},
        {"chase bank sign in page", QueryClass::Navigational},
        {"louvre museum official site", QueryClass::Navigational},
        {"site:example.com", QueryClass::Navigational},
    });
}

TEST(GatewayCompilerClassify, Evergreen) {
    expectClasses({
        {"photosynthesis light reactions", QueryClass::Evergreen},
        {"what is", QueryClass::Evergreen},  // a question word: not navigational
        {"history of the roman empire", QueryClass::Evergreen},
        {"how to tie", QueryClass::Evergreen},
        {"", QueryClass::Evergreen},
        {"-site:a.com", QueryClass::Evergreen},
    });
}

TEST(GatewayCompilerClassify, ConflictsFailTowardFresh) {
    expectClasses({
        // News beats Product.
        {"latest iphone price", QueryClass::News},
        {"tesla stock price today", QueryClass::News},
        // Product beats LongTail.
        {"how much does the cheapest flight to tokyo cost", QueryClass::Product},
        {"which laptop should i buy for programming", QueryClass::Product},
        // News beats LongTail.
        {"why did the market fall so much on friday", QueryClass::News},
        // LongTail beats Navigational ("login" in a long question).
        {"how can i reset my netflix login password on tv", QueryClass::LongTail},
        // News beats Navigational.
        {"cnn.com live", QueryClass::News},
        {"bbc news", QueryClass::News},
    });
    // A year or a news word hidden in an operator does not count; one in the free terms does.
    EXPECT_EQ(classifyQuery(normalizeQuery("tax forms for small firms inurl:2024 filetype:pdf")),
              QueryClass::Evergreen);
    EXPECT_EQ(classifyQuery(normalizeQuery("tax forms for small firms 2024 filetype:pdf")),
              QueryClass::News);
}

TEST(GatewayCompilerClassify, WordsAreMatchedWholeNotAsSubstrings) {
    expectClasses({
        {"newspaper archive of ships", QueryClass::Evergreen},  // not "news"
        {"nowhere man lyrics", QueryClass::Evergreen},          // not "now"
        {"prices", QueryClass::Product},
        {"1999 film noir classics", QueryClass::Evergreen},    // not a 20xx year
        {"isbn 9780131103627 lookup", QueryClass::Evergreen},  // 13 digits, not a year
    });
}

}  // namespace
}  // namespace taillab::gateway
