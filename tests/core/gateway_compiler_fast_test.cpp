// The query compiler's fast path: the ASCII rules checked against ICU, analyzeQuery and the
// classifier held to the ICU reference byte for byte, and analysis without allocation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/rng.h"
#include "gateway/compiler.h"
#include "gateway/compiler_detail.h"
#include "query_grammar.h"

// Every allocation through operator new in this test binary is counted, so that a test can
// assert that a call allocated nothing. Every unaligned form is replaced, nothrow and array ones
// too: the library's defaults forward to operator new(size_t), but a sanitizer's do not, and an
// ASan build would then free with std::free what its own nothrow new allocated
// (std::stable_sort's temporary buffer) and report an alloc-dealloc mismatch. The count is
// atomic: the replacement serves the whole binary, whose sweep tests allocate on many threads.
namespace {
std::atomic<std::size_t> g_allocations{0};

void* countedAlloc(std::size_t size) noexcept {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

void* operator new(std::size_t size) {
    if (void* p = countedAlloc(size)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return countedAlloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return countedAlloc(size);
}
// GCC 12 takes free() inside a replacement operator delete for a mismatch with operator new.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace taillab::gateway {
namespace {

using namespace std::string_view_literals;

// A C-style spelling of `bytes`, for failure messages.
std::string escaped(std::string_view bytes) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out = "\"";
    for (char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7F && c != '"' && c != '\\') {
            out += c;
        } else {
            out += "\\x";
            out += kHex[u >> 4];
            out += kHex[u & 15];
        }
    }
    return out + "\"";
}

// What analyzeQuery gives, or the message it throws.
struct Analysis {
    std::string normalized, error;
    std::uint64_t hash = 0;
    QueryClass query_class = QueryClass::Evergreen;
    bool zero_results_allowed = false;
    bool operator==(const Analysis&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Analysis& a) {
    if (!a.error.empty()) return os << "error: " << a.error;
    return os << escaped(a.normalized) << " " << kClassNames[static_cast<int>(a.query_class)]
              << (a.zero_results_allowed ? " zero-results-allowed" : "");
}

Analysis viaReference(std::string_view raw) {
    Analysis a;
    try {
        a.normalized = detail::normalizeQueryReference(raw);
    } catch (const std::invalid_argument& e) {
        a.error = e.what();
        return a;
    }
    if (a.normalized.empty()) {
        a.error = "empty after normalization";
        return a;
    }
    a.hash = hashText(a.normalized);
    a.query_class = detail::classifyQueryReference(a.normalized);
    a.zero_results_allowed = detail::zeroResultsAllowedReference(a.normalized);
    return a;
}

// `reused` carries the previous query's buffer, as the gateway's would.
Analysis viaAnalyzeQuery(std::string_view raw, AnalyzedQuery& reused) {
    Analysis a;
    try {
        analyzeQuery(raw, reused);
    } catch (const std::invalid_argument& e) {
        a.error = e.what();
        return a;
    }
    a.normalized = reused.normalized;
    a.hash = reused.normalized_hash;
    a.query_class = reused.query_class;
    a.zero_results_allowed = reused.zero_results_allowed;
    return a;
}

// The fast path and the reference agree on `raw`: analyzeQuery's fields (or its error), and the
// classifier on `raw` itself taken as text, normalized or not.
void expectSameAsReference(std::string_view raw, AnalyzedQuery& reused) {
    ASSERT_EQ(viaAnalyzeQuery(raw, reused), viaReference(raw)) << "raw: " << escaped(raw);
    ASSERT_EQ(classifyQuery(raw), detail::classifyQueryReference(raw)) << "raw: " << escaped(raw);
    ASSERT_EQ(zeroResultsAllowed(raw), detail::zeroResultsAllowedReference(raw))
        << "raw: " << escaped(raw);
}

// ---- the ASCII rules against ICU -----------------------------------------------------------

TEST(GatewayCompilerAscii, NfkcCasefoldOfEveryAsciiCodePointIsAsciiFold) {
    for (int c = 0; c < 128; ++c) {
        const std::string one(1, static_cast<char>(c));
        EXPECT_EQ(detail::nfkcCasefold(one), std::string(1, detail::asciiFold(one[0]))) << c;
        EXPECT_EQ(detail::isUnicodeWhiteSpace(static_cast<char32_t>(c)),
                  detail::isAsciiWhiteSpace(one[0]))
            << c;
        EXPECT_EQ(detail::hasCurrencySymbol(one), c == '$') << c;
    }
}

TEST(GatewayCompilerAscii, NfkcCasefoldOfRandomAsciiStringsIsAsciiFold) {
    Rng rng(17, "test/gateway/ascii-nfkc");
    for (int i = 0; i < 20000; ++i) {
        const std::string s = randomBytes(rng, rng.below(65), 128);
        std::string folded = s;
        for (char& c : folded) c = detail::asciiFold(c);
        ASSERT_EQ(detail::nfkcCasefold(s), folded) << escaped(s);
    }
}

// ---- the fast path against the reference ---------------------------------------------------

// Every string of the compiler's own tests (gateway_compiler_test.cpp).
TEST(GatewayCompilerFastPath, MatchesTheReferenceOnEveryExistingTestString) {
    // clang-format off
    const std::vector<std::string_view> corpus{
        "search", "EU", "en", "web", "req-1", "", "\xEF\xBC\xA1\xEF\xBC\xB0\xEF\xBC\xA9", "api",
        "API", "Stra\xC3\x9F" "e", "strasse", "STRASSE", "\xEF\xAC\x81le", "file", "\xE2\x85\xA2",
        "iii", "caf\xC3\xA9", "cafe\xCC\x81", "Caf\xC3\x89", "  hello \t\n world  ", "hello world",
        "a\xC2\xA0" "b\xE3\x80\x80" "c\xE2\x80\xA8" "d\xC2\x85" "e\xE2\x80\x83 f", "a b c d e f",
        "fo\xE2\x80\x8Bo", "foo", " \t \xE3\x80\x80 ",
        "https://ex.com/p?a=1&utm_source=x&b=2&gclid=9&c=3", "https://ex.com/p?a=1&b=2&c=3",
        "see http://ex.com/x?UTM_Medium=m&utm_campaign=c&fbclid=1&msclkid=2"
        "&mc_cid=3&mc_eid=4&yclid=5&_ga=6&ref_src=7&igshid=8 now",
        "see http://ex.com/x now", "https://ex.com/?utm=1&gclid_x=2&ref=3&ga=4",
        "https://ex.com/a?utm_id=1#top", "https://ex.com/a#top",
        "(https://ex.com/a?q=1&utm_term=z)", "(https://ex.com/a?q=1)",
        "\"https://ex.com/?fbclid=1\"", "\"https://ex.com/\"", "ftp://ex.com/?utm_source=1",
        "site:b.com foo site:a.com", "foo site:a.com site:b.com",
        "filetype:PDF -site:x.org Rust Lang:DE intitle:book inurl:docs",
        "rust -site:x.org filetype:pdf intitle:book inurl:docs lang:de",
        "zeta site:a.com alpha site:a.com", "zeta alpha site:a.com", "intitle:\"Big Data\" spark",
        "spark intitle:\"big data\"", "\"site:b.com rocks\" site:a.com", "site: foo", "note:x foo",
        "inurl:https://a.com/?utm_source=1&k=v foo", "foo inurl:https://a.com/?k=v",
        "\xE2\x80\x9CHello World\xE2\x80\x9D", "\"hello world\"", "\xEF\xBC\x82x y\xEF\xBC\x82",
        "\"x y\"", "site:a.com \"foo", "foo site:a.com", "\"a b\" c \" site:x.com",
        "\"a b\" c site:x.com", "ab\xFF" "cd", "abc\xC3", "x\xC0\xAF", "ok \xED\xA0\x80",
        "\xF4\x90\x80\x80", "\xE2\x82", "caf\xC3\xA9 \x80", "byte offset ",
        "plain caf\xC3\xA9 \xF0\x9F\x98\x80", "q\xFE", "byte offset 1",
        "site:b.com Foo \"A  B\" intitle:\"x y\" https://e.com/?utm_source=1&a=2",
        "\xE2\x80\x9C" "caf\xC3\xA9\xE2\x80\x9D -site:Z.org", "a\"b site:x c\"", "e\"\xCC\x81 x",
        " ", "\"", "\xE2\x80\x9C", "site:", "-site:a.com", "intitle:", "a", "E", "\xCC\x81",
        "\xC3\x9F", "\xEF\xAC\x81", "https://", "x.com/", "?", "&", "utm_source=1", "k=v", "#", "(",
        ")", "\xE3\x80\x80", "\t", "\xCD\x85", "2024", "$", "test/gateway/normalize-fixed-point",
        "input: ", "  ", "https://a.com/p?x=1&&utm_a=2&y", "https://a.com/p?x=1&y",
        "https://a.com/p?", "https://a.com/p", "https://a.com/p#f?utm_source=1", "utm_", "GCLID",
        "utmx", "1..50", ": ", "\xEF\xBC\xA1\xEF\xBC\xB0\xEF\xBC\xA9 docs", "api docs",
        "\xEF\xAC\x81nd", "find", "  Foo\t\tBAR ", "foo bar",
        "https://ex.com/?id=7&utm_source=news", "https://ex.com/?id=7", "https://ex.com/?id=8",
        "bar foo", "rust async", "a-completely-different-request", " did not change the key",
        "bucket 20", "bucket 50", "US", "region", "de", "lang", "news", "mode", "include_media",
        "images", "endpoint", "rust sync", "query", "EUe", "n", "EU\x00" "en"sv,
        "Latest  RUST release site:blog.rust-lang.org",
        "latest rust release site:blog.rust-lang.org", "/search/lite", "/search/fast", "APAC",
        "apj", "\x00"sv, "query number ", "   \xE2\x80\x8B ", "\"exact phrase here\"",
        "\xE2\x80\x9C" "curly phrase\xE2\x80\x9D", "foo -site:a.com", "plain words", "\"\" foo",
        "unpaired \" quote", "\"site:a.com", "site:a.com", "\"site:a.com\"", "election results",
        "BREAKING earthquake", "champions league score", "weather today", "apple event 2025",
        "what happened on monday in the markets", "stock market this week", "live",
        "world cup 2026!", "iphone 15 price", "laptop under $500", "headphones 200 eur",
        "usd99 keyboard", "\xE2\x82\xAC" "30 shoes", "postgres vs mysql", "python 3.11",
        "kubernetes v1.29 changelog", "best cheapest flights", "dyson v15 review",
        "how do i reverse a linked list", "why is the sky blue", "does green tea help sleep",
        "recipe for gluten free bread with yeast and honey", "github.com",
        "https://docs.python.org/3/", "facebook", "gmail login", "chase bank sign in page",
        "louvre museum official site", "site:example.com", "photosynthesis light reactions",
        "what is", "history of the roman empire", "how to tie", "latest iphone price",
        "tesla stock price today", "how much does the cheapest flight to tokyo cost",
        "which laptop should i buy for programming", "why did the market fall so much on friday",
        "how can i reset my netflix login password on tv", "cnn.com live", "bbc news",
        "tax forms for small firms inurl:2024 filetype:pdf",
        "tax forms for small firms 2024 filetype:pdf", "newspaper archive of ships",
        "nowhere man lyrics", "prices", "1999 film noir classics", "isbn 9780131103627 lookup",
    };
    // clang-format on
    AnalyzedQuery reused;
    for (std::string_view raw : corpus) expectSameAsReference(raw, reused);
}

TEST(GatewayCompilerFastPath, MatchesTheReferenceOnGrammarQueries) {
    Rng rng(19, "test/gateway/fast-path-grammar");
    QueryGrammar grammar(rng);
    AnalyzedQuery reused;
    std::array<int, kClasses> classes{};
    int zero_results = 0, with_colon = 0;
    constexpr int kQueries = 300000;
    for (int i = 0; i < kQueries; ++i) {
        const std::string q = grammar.query();
        expectSameAsReference(q, reused);
        if (!reused.normalized.empty()) {
            ++classes[static_cast<int>(reused.query_class)];
            zero_results += reused.zero_results_allowed;
            with_colon += q.find(':') != std::string::npos;
        }
    }
    // The grammar reaches every rule: each class, both answers for zero results, and the
    // operator and URL steps (queries with a ':'), each in at least 2% of the queries.
    for (int c = 0; c < kClasses; ++c) EXPECT_GT(classes[c], kQueries / 50) << kClassNames[c];
    EXPECT_GT(zero_results, kQueries / 50);
    EXPECT_LT(zero_results, kQueries - kQueries / 50);
    EXPECT_GT(with_colon, kQueries / 50);
}

// Raw bytes: any byte (mostly invalid UTF-8: both must throw the same message), any ASCII byte
// (control characters included), valid UTF-8 of notable code points, and grammar queries with
// such code points spliced in.
TEST(GatewayCompilerFastPath, MatchesTheReferenceOnRandomBytes) {
    Rng rng(23, "test/gateway/fast-path-bytes");
    QueryGrammar grammar(rng);
    AnalyzedQuery reused;
    for (int i = 0; i < 40000; ++i) {
        expectSameAsReference(randomBytes(rng, rng.below(25)), reused);
        expectSameAsReference(randomBytes(rng, rng.below(41), 128), reused);
        expectSameAsReference(randomUtf8(rng, rng.below(16)), reused);
        std::string q = grammar.query();
        q.insert(rng.below(q.size() + 1), randomUtf8(rng, 1 + rng.below(2)));
        expectSameAsReference(q, reused);
    }
    // Queries longer than the stack scratch space (256 bytes).
    for (int i = 0; i < 3000; ++i) {
        std::string q;
        while (q.size() < 200 + rng.below(400)) q += grammar.query() + " ";
        expectSameAsReference(q, reused);
    }
}

// Up to 256 bytes, the fast path keeps its scratch space on the stack.
TEST(GatewayCompilerFastPath, AsciiQueriesAllocateNothingOnceTheBufferIsLargeEnough) {
    AnalyzedQuery out;
    out.normalized.reserve(512);
    const std::vector<std::string> queries{
        "Netflix Login",
        "photosynthesis light reactions Diagram",
        "iPhone 15 Pro Max price",
        "How do I reverse a linked list in Python",
        "rust  async tutorial site:docs.rs -site:reddit.com",
        "intitle:\"Big Data\" spark https://ex.com/?utm_source=x&id=7 \"unpaired",
        std::string(200, 'a') + " " + std::string(40, 'B') + " site:a.com"};  // 252 bytes
    for (const std::string& q : queries) {
        const std::size_t before = g_allocations.load();
        analyzeQuery(q, out);
        EXPECT_EQ(g_allocations.load(), before) << q;
    }
}

TEST(GatewayCompilerFastPath, ThrowsWhereCompileQueryDoes) {
    AnalyzedQuery out;
    EXPECT_THROW(analyzeQuery(" \t\n ", out), std::invalid_argument);
    EXPECT_THROW(analyzeQuery("\"", out), std::invalid_argument);
    try {
        analyzeQuery("ok \xED\xA0\x80", out);
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("byte offset 3"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace taillab::gateway
