// The query compiler's insides, shared by its source files and reachable from tests. Not part of
// the gateway's API: callers use compiler.h.
//
// Two implementations of normalization and classification live side by side:
//   - the reference (compiler_reference.cpp): ICU on every call and a std::string per word,
//     written to read like compiler.h's rules. Non-ASCII queries are normalized by it, and tests
//     hold the fast path to it byte for byte;
//   - the fast path (compiler_ascii.cpp, query_classifier.cpp): pure-ASCII normalization without
//     ICU, and a classifier over views of the text, with no heap allocation per word.
// The word sets, word predicates and URL stripping below are shared, so each rule is written once.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "gateway/gateway_types.h"

namespace taillab::gateway::detail {

constexpr std::size_t kMaxQueryBytes = std::size_t{64} << 20;

// Throws normalizeQuery's std::invalid_argument for input longer than kMaxQueryBytes.
void checkQuerySize(std::size_t bytes);

// ---- the ICU reference ---------------------------------------------------------------------

// normalizeQuery as compiler.h specifies it, through ICU for any input (size and UTF-8 checks
// included).
std::string normalizeQueryReference(std::string_view utf8);
QueryClass classifyQueryReference(std::string_view normalized);
bool zeroResultsAllowedReference(std::string_view normalized);

// ICU's NFKC_Casefold of valid UTF-8 (step 3 alone), and ICU's White_Space property: what the
// ASCII fast path's per-byte rules are checked against.
std::string nfkcCasefold(std::string_view utf8);
bool isUnicodeWhiteSpace(char32_t c);

// ---- the ASCII fast path -------------------------------------------------------------------

// On ASCII, NFKC_Casefold maps A-Z to a-z and every other code point to itself (no ASCII code
// point has a compatibility mapping, is default-ignorable, or composes with another), and
// White_Space is TAB, LF, VT, FF, CR and SPACE. Tests check both against ICU.
constexpr char asciiFold(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
constexpr bool isAsciiWhiteSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool isAscii(std::string_view bytes);

// What the fast path needs to know about a byte, one table lookup for all of it.
enum ByteClass : std::uint8_t {
    kWhiteSpaceByte = 1 << 0,  // isAsciiWhiteSpace
    kDigitByte = 1 << 1,
    kColonByte = 1 << 2,
    kQuoteByte = 1 << 3,   // '"'
    kDollarByte = 1 << 4,  // '$', the only ASCII currency symbol (Unicode category Sc)
    kUpperByte = 1 << 5,   // A-Z
    kNonAsciiByte = 1 << 6,
    kTrimmedByte = 1 << 7,  // one of trimPunctuation's ASCII punctuation marks
};

constexpr std::array<std::uint8_t, 256> kByteClasses = [] {
    std::array<std::uint8_t, 256> table{};
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        int cls = 0;
        if (isAsciiWhiteSpace(c)) cls |= kWhiteSpaceByte;
        if (c >= '0' && c <= '9') cls |= kDigitByte;
        if (c == ':') cls |= kColonByte;
        if (c == '"') cls |= kQuoteByte;
        if (c == '$') cls |= kDollarByte;
        if (c >= 'A' && c <= 'Z') cls |= kUpperByte;
        if (b >= 0x80) cls |= kNonAsciiByte;
        if (std::string_view("\"'()[]{}<>,.;:!?").find(c) != std::string_view::npos)
            cls |= kTrimmedByte;
        table[b] = static_cast<std::uint8_t>(cls);
    }
    return table;
}();

constexpr std::uint8_t byteClass(char c) { return kByteClasses[static_cast<unsigned char>(c)]; }

// A word between ASCII spaces, with the classes of its bytes (ORed) and its quotes' parity.
struct ScannedWord {
    std::string_view text;
    std::uint8_t classes = 0;
    bool odd_quotes = false;
};

// Splits text on ASCII spaces, word by word.
class WordScanner {
  public:
    explicit WordScanner(std::string_view text) : text_(text) {}

    bool next(ScannedWord& w) {
        const std::size_t n = text_.size();
        while (i_ < n && text_[i_] == ' ') ++i_;
        if (i_ == n) return false;
        const std::size_t start = i_;
        std::uint8_t classes = 0;
        bool odd_quotes = false;
        for (; i_ < n && text_[i_] != ' '; ++i_) {
            const std::uint8_t c = byteClass(text_[i_]);
            classes |= c;
            odd_quotes = odd_quotes != ((c & kQuoteByte) != 0);
        }
        w = ScannedWord{text_.substr(start, i_ - start), classes, odd_quotes};
        return true;
    }

  private:
    std::string_view text_;
    std::size_t i_ = 0;
};

// normalizeQuery of pure-ASCII `ascii` into `out`, reusing its capacity (for input of up to 256
// bytes, no allocation once that capacity is large enough). Throws as normalizeQuery does for
// input longer than 64 MiB.
void normalizeAscii(std::string_view ascii, std::string& out);

struct QueryFacts {
    QueryClass query_class = QueryClass::Evergreen;
    bool zero_results_allowed = false;
};
// classifyQuery and zeroResultsAllowed of the same text, in one walk over its words.
QueryFacts analyzeNormalized(std::string_view normalized);

// Little-endian loads, whatever the host's byte order.
inline std::uint64_t loadLe64(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
}
inline std::uint32_t loadLe32(const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
    return v;
}

// ---- word sets (compiler.h's classification rules) -----------------------------------------

constexpr std::array<std::string_view, 7> kOperatorNames{"site",  "filetype", "ext",   "lang",
                                                         "inurl", "intitle",  "intext"};
constexpr std::array<std::string_view, 21> kNewsWords{
    "today",   "tonight",   "yesterday", "tomorrow", "latest",   "breaking",  "live",
    "news",    "now",       "score",     "scores",   "election", "elections", "monday",
    "tuesday", "wednesday", "thursday",  "friday",   "saturday", "sunday",    "headlines"};
constexpr std::array<std::string_view, 17> kProductWords{
    "price", "prices", "pricing",  "cost",   "costs", "cheap",  "cheaper", "cheapest", "buy",
    "deal",  "deals",  "discount", "coupon", "vs",    "versus", "review",  "reviews"};
constexpr std::array<std::string_view, 10> kCurrencyCodes{"usd", "eur", "gbp", "jpy", "cny",
                                                          "inr", "cad", "aud", "chf", "krw"};
constexpr std::array<std::string_view, 17> kQuestionWords{
    "how",    "why",   "what", "which", "who", "when", "where", "can", "could",
    "should", "would", "is",   "are",   "do",  "does", "did",   "will"};
constexpr std::array<std::string_view, 3> kNavigationalWords{"login", "signin", "homepage"};

// ---- word predicates (allocation-free, shared by both paths) -------------------------------

constexpr bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool hasDigit(std::string_view w);
// A run of exactly four digits from 2000 to 2099.
bool hasYear(std::string_view w);
// v1, v1.2, 3.11: 'v' and digits, or digits with at least one dot (each dot between digits).
bool isVersion(std::string_view w);
// Digits, '.' and ',' only, with at least one digit.
bool isAmount(std::string_view w);
// A code point of Unicode category Sc in `w` (ICU for non-ASCII bytes).
bool hasCurrencySymbol(std::string_view w);
// A dotted host whose last label is 2..24 ASCII letters, optionally after http(s)://.
bool looksLikeDomain(std::string_view w);
// `w` without surrounding ASCII punctuation (kTrimmedByte: "\"'()[]{}<>,.;:!?") and leading
// '¡' or '¿'.
inline std::string_view trimPunctuation(std::string_view w) {
    for (bool changed = true; changed && !w.empty();) {
        changed = false;
        if (byteClass(w.front()) & kTrimmedByte) {
            w.remove_prefix(1);
            changed = true;
        } else if (w.starts_with("\xC2\xA1") || w.starts_with("\xC2\xBF")) {
            w.remove_prefix(2);
            changed = true;
        }
        if (!w.empty() && (byteClass(w.back()) & kTrimmedByte)) {
            w.remove_suffix(1);
            changed = true;
        }
    }
    return w;
}
// Where an http:// or https:// URL starts in `w` at or after `from`, or npos.
std::size_t findUrlStart(std::string_view w, std::size_t from);
// "[-]name:value" with a name in kOperatorNames and a non-empty value.
bool isOperatorWord(std::string_view w);
// A pair of quotes (paired left to right) with a non-space between them.
bool hasNonEmptyPhrase(std::string_view text);

// ---- URLs ----------------------------------------------------------------------------------

// stripTrackingParams(url) written to `out`, which has room for url.size() bytes and does not
// overlap `url`. Returns the size written.
std::size_t stripTrackingParamsTo(std::string_view url, char* out);
// Tracking parameters stripped from every http(s) URL inside one word, written to `out` (room
// for w.size() bytes, no overlap). A URL ends at '"', '<', '>' or the end of the word; a closing
// ')' or ']' matching the character just before the URL is not part of it. Returns the size.
std::size_t stripUrlsInWordTo(std::string_view w, char* out);

// ---- scratch space -------------------------------------------------------------------------

// Queries up to this many bytes keep the fast path's scratch space on the stack.
constexpr std::size_t kInlineQueryBytes = 256;
// No more words than this fit in `bytes` bytes (one byte and one space each).
constexpr std::size_t maxWords(std::size_t bytes) { return bytes / 2 + 1; }

// An array of n elements, on the stack when n <= N (every query the week sends), on the heap
// once otherwise. Elements start uninitialized: T must be trivially default-constructible.
template <typename T, std::size_t N>
class ScratchArray {
  public:
    explicit ScratchArray(std::size_t n)
        : data_(n <= N ? inline_.data() : (heap_ = std::make_unique_for_overwrite<T[]>(n)).get()) {}
    ScratchArray(const ScratchArray&) = delete;
    ScratchArray& operator=(const ScratchArray&) = delete;

    T* data() { return data_; }
    T& operator[](std::size_t i) { return data_[i]; }

  private:
    std::array<T, N> inline_;
    std::unique_ptr<T[]> heap_;
    T* data_;
};

}  // namespace taillab::gateway::detail
