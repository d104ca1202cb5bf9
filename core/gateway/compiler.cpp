#include "gateway/compiler.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <vector>

#include "base/rng.h"

namespace taillab::gateway {
namespace {

constexpr std::size_t kMaxQueryBytes = std::size_t{64} << 20;

// ---- hashing -------------------------------------------------------------------------------

struct Fnv1a {
    std::uint64_t h = 0xcbf29ce484222325ull;
    void byte(unsigned char c) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    void bytes(std::string_view s) {
        for (unsigned char c : s) byte(c);
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) byte(static_cast<unsigned char>(v >> (8 * i)));
    }
    // Length, bytes, NUL: two different field lists never give the same stream.
    void field(std::string_view s) {
        u64(s.size());
        bytes(s);
        byte(0);
    }
};


// ---- small text helpers --------------------------------------------------------------------

char asciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool iequalsAscii(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (asciiLower(a[i]) != asciiLower(b[i])) return false;
    return true;
}

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view w) {
    return std::find(set.begin(), set.end(), w) != set.end();
}

std::size_t countQuotes(std::string_view s) { return std::count(s.begin(), s.end(), '"'); }

// ---- ICU -----------------------------------------------------------------------------------

// NFKC_Casefold, then curly double quotes to ASCII (they are stable under NFKC_Casefold, so the
// result is still a fixed point of this function).
std::string foldNfkcCasefold(std::string_view utf8) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
    if (U_FAILURE(status) || nfkc_cf == nullptr)
        throw std::runtime_error(std::string("ICU NFKC_Casefold data unavailable: ") +
                                 u_errorName(status));
    const icu::UnicodeString src = icu::UnicodeString::fromUTF8(
        icu::StringPiece(utf8.data(), static_cast<std::int32_t>(utf8.size())));
    icu::UnicodeString out = nfkc_cf->normalize(src, status);
    if (U_FAILURE(status))
        throw std::runtime_error(std::string("ICU normalization failed: ") + u_errorName(status));
    for (char16_t q : {u'\u201C', u'\u201D', u'\u201E', u'\u201F'})
        out.findAndReplace(icu::UnicodeString(q), icu::UnicodeString(u'"'));
    std::string result;
    out.toUTF8String(result);
    return result;
}

// Splits valid UTF-8 on runs of Unicode White_Space.
std::vector<std::string> splitUnicodeWhitespace(const std::string& s) {
    std::vector<std::string> words;
    const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
    const auto n = static_cast<std::int32_t>(s.size());
    std::int32_t i = 0, word_start = -1;
    while (i < n) {
        const std::int32_t at = i;
        UChar32 c;
        U8_NEXT(p, i, n, c);
        const bool space = c >= 0 && u_isUWhiteSpace(c);
        if (space && word_start >= 0) {
            words.emplace_back(s, word_start, at - word_start);
            word_start = -1;
        } else if (!space && word_start < 0) {
            word_start = at;
        }
    }
    if (word_start >= 0) words.emplace_back(s, word_start, n - word_start);
    return words;
}

bool hasCurrencySymbol(std::string_view w) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(w.data());
    const auto n = static_cast<std::int32_t>(std::min<std::size_t>(w.size(), INT32_MAX));
    std::int32_t i = 0;
    while (i < n) {
        UChar32 c;
        U8_NEXT(p, i, n, c);
        if (c >= 0 && u_charType(c) == U_CURRENCY_SYMBOL) return true;
    }
    return false;
}

// ---- URLs in words -------------------------------------------------------------------------

std::size_t findUrlStart(std::string_view w, std::size_t from) {
    const std::size_t a = w.find("http://", from);
    const std::size_t b = w.find("https://", from);
    return std::min(a, b);
}

// Strips tracking parameters in every http(s) URL inside one word. A URL ends at '"', '<', '>'
// or the end of the word; a closing ')' or ']' matching the character just before the URL is
// not part of it.
std::string stripUrlsInWord(std::string_view w) {
    std::string out;
    std::size_t pos = 0;
    while (pos < w.size()) {
        const std::size_t start = findUrlStart(w, pos);
        if (start == std::string_view::npos) {
            out.append(w.substr(pos));
            break;
        }
        out.append(w.substr(pos, start - pos));
        std::size_t end = start;
        while (end < w.size() && w[end] != '"' && w[end] != '<' && w[end] != '>') ++end;
        if (start > 0 && end > start) {
            const char open = w[start - 1];
            const char close = open == '(' ? ')' : open == '[' ? ']' : '\0';
            if (close != '\0' && w[end - 1] == close) --end;
        }
        out += stripTrackingParams(w.substr(start, end - start));
        pos = end;
    }
    return out;
}

// ---- operators and phrases -----------------------------------------------------------------

constexpr std::array<std::string_view, 7> kOperatorNames{"site",  "filetype", "ext",   "lang",
                                                         "inurl", "intitle",  "intext"};

// "[-]name:value" with a known name and a non-empty value.
bool isOperatorWord(std::string_view w) {
    if (!w.empty() && w.front() == '-') w.remove_prefix(1);
    const std::size_t colon = w.find(':');
    if (colon == std::string_view::npos || colon + 1 >= w.size()) return false;
    return contains(kOperatorNames, w.substr(0, colon));
}

struct Parsed {
    std::vector<std::string> free;  // free terms, in order (phrase words one by one)
    std::vector<std::string> ops;   // operators as written, a phrase value joined by spaces
};

Parsed parseWords(const std::vector<std::string>& words) {
    Parsed out;
    bool in_phrase = false;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (!in_phrase && isOperatorWord(w)) {
            std::string op = w;
            bool open = countQuotes(w) % 2 == 1;
            while (open && i + 1 < words.size()) {
                ++i;
                op += ' ';
                op += words[i];
                if (countQuotes(words[i]) % 2 == 1) open = false;
            }
            out.ops.push_back(std::move(op));
            continue;
        }
        if (countQuotes(w) % 2 == 1) in_phrase = !in_phrase;
        out.free.push_back(w);
    }
    return out;
}

std::vector<std::string> splitAsciiSpaces(std::string_view s) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && s[i] == ' ') ++i;
        const std::size_t start = i;
        while (i < s.size() && s[i] != ' ') ++i;
        if (i > start) words.emplace_back(s.substr(start, i - start));
    }
    return words;
}

// ---- classification ------------------------------------------------------------------------

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

// Trims surrounding ASCII punctuation (and '¡', '¿') and lowercases ASCII.
std::string trimPunctuation(std::string_view w) {
    constexpr std::string_view kPunct = "\"'()[]{}<>,.;:!?";
    for (bool changed = true; changed && !w.empty();) {
        changed = false;
        if (kPunct.find(w.front()) != std::string_view::npos) {
            w.remove_prefix(1);
            changed = true;
        } else if (w.starts_with("\xC2\xA1") || w.starts_with("\xC2\xBF")) {
            w.remove_prefix(2);
            changed = true;
        }
        if (!w.empty() && kPunct.find(w.back()) != std::string_view::npos) {
            w.remove_suffix(1);
            changed = true;
        }
    }
    std::string out(w);
    for (char& c : out) c = asciiLower(c);
    return out;
}

bool hasYear(std::string_view w) {
    std::size_t i = 0;
    while (i < w.size()) {
        if (!isDigit(w[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < w.size() && isDigit(w[i])) ++i;
        if (i - start == 4 && w[start] == '2' && w[start + 1] == '0') return true;
    }
    return false;
}

bool hasDigit(std::string_view w) { return std::any_of(w.begin(), w.end(), isDigit); }

// v1, v1.2, 3.11: 'v' and digits, or digits with at least one dot (each dot between digits).
bool isVersion(std::string_view w) {
    const bool v = !w.empty() && w.front() == 'v';
    if (v) w.remove_prefix(1);
    if (w.empty() || !isDigit(w.front()) || !isDigit(w.back())) return false;
    int dots = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        if (w[i] == '.') {
            if (!isDigit(w[i - 1])) return false;
            ++dots;
        } else if (!isDigit(w[i])) {
            return false;
        }
    }
    return v || dots > 0;
}

bool isAmount(std::string_view w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
        return isDigit(c) || c == '.' || c == ',';
    }) && hasDigit(w);
}

// A currency code alone ("usd") or glued to an amount ("usd5", "5usd").
bool isCurrencyCodeWord(std::string_view w, bool* with_amount) {
    *with_amount = false;
    if (contains(kCurrencyCodes, w)) return true;
    if (w.size() > 3 && contains(kCurrencyCodes, w.substr(0, 3)) && isAmount(w.substr(3)))
        return *with_amount = true;
    if (w.size() > 3 && contains(kCurrencyCodes, w.substr(w.size() - 3)) &&
        isAmount(w.substr(0, w.size() - 3)))
        return *with_amount = true;
    return false;
}

bool looksLikeDomain(std::string_view w) {
    if (w.starts_with("https://"))
        w.remove_prefix(8);
    else if (w.starts_with("http://"))
        w.remove_prefix(7);
    const std::size_t end = w.find_first_of("/?#:");
    const std::string_view host = w.substr(0, end);
    const std::size_t last_dot = host.rfind('.');
    if (last_dot == std::string_view::npos || last_dot == 0) return false;
    const std::string_view tld = host.substr(last_dot + 1);
    if (tld.size() < 2 || tld.size() > 24) return false;
    if (!std::all_of(tld.begin(), tld.end(), isAsciiLetter)) return false;
    // Every label before the TLD is non-empty and has no ASCII punctuation except '-'.
    std::size_t start = 0;
    while (start <= last_dot) {
        const std::size_t dot = host.find('.', start);
        const std::string_view label = host.substr(start, dot - start);
        if (label.empty()) return false;
        for (char c : label) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x80 && !isAsciiLetter(c) && !isDigit(c) && c != '-') return false;
        }
        start = dot + 1;
    }
    return true;
}

}  // namespace

// ---- public --------------------------------------------------------------------------------

std::optional<std::size_t> invalidUtf8Offset(std::string_view bytes) {
    const std::size_t n = bytes.size();
    std::size_t i = 0;
    while (i < n) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c == 0xE0) {
            len = 3, lo = 0xA0;  // no overlong 3-byte forms
        } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
            len = 3;
        } else if (c == 0xED) {
            len = 3, hi = 0x9F;  // no surrogates
        } else if (c == 0xF0) {
            len = 4, lo = 0x90;  // no overlong 4-byte forms
        } else if (c >= 0xF1 && c <= 0xF3) {
            len = 4;
        } else if (c == 0xF4) {
            len = 4, hi = 0x8F;  // nothing above U+10FFFF
        } else {
            return i;
        }
        if (n - i < len) return i;
        const auto second = static_cast<unsigned char>(bytes[i + 1]);
        if (second < lo || second > hi) return i;
        for (std::size_t k = 2; k < len; ++k) {
            const auto b = static_cast<unsigned char>(bytes[i + k]);
            if (b < 0x80 || b > 0xBF) return i;
        }
        i += len;
    }
    return std::nullopt;
}

bool isTrackingParam(std::string_view name) {
    static constexpr std::array<std::string_view, 9> kExact{
        "gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "yclid", "_ga", "ref_src", "igshid"};
    if (name.size() >= 4 && iequalsAscii(name.substr(0, 4), "utm_")) return true;
    return std::any_of(kExact.begin(), kExact.end(),
                       [&](std::string_view t) { return iequalsAscii(name, t); });
}

std::string stripTrackingParams(std::string_view url) {
    const std::size_t hash = url.find('#');
    const std::string_view before_fragment = url.substr(0, hash);
    const std::string_view fragment =
        hash == std::string_view::npos ? std::string_view{} : url.substr(hash);
    const std::size_t question = before_fragment.find('?');
    if (question == std::string_view::npos) return std::string(url);

    std::string kept;
    std::string_view query = before_fragment.substr(question + 1);
    while (true) {
        const std::size_t amp = query.find('&');
        const std::string_view piece = query.substr(0, amp);
        if (!piece.empty() && !isTrackingParam(piece.substr(0, piece.find('=')))) {
            if (!kept.empty()) kept += '&';
            kept += piece;
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    std::string out(before_fragment.substr(0, question));
    if (!kept.empty()) out += '?' + kept;
    out += fragment;
    return out;
}

std::string normalizeQuery(std::string_view utf8) {
    if (utf8.size() > kMaxQueryBytes)
        throw std::invalid_argument("normalizeQuery: query longer than 64 MiB (" +
                                    std::to_string(utf8.size()) + " bytes)");
    if (const auto bad = invalidUtf8Offset(utf8))
        throw std::invalid_argument("normalizeQuery: invalid UTF-8 at byte offset " +
                                    std::to_string(*bad));

    std::string folded = foldNfkcCasefold(utf8);
    // A quote without a partner is dropped; removing it may let a combining mark compose with
    // the character before it, hence the second pass.
    if (countQuotes(folded) % 2 == 1) {
        folded.erase(folded.rfind('"'), 1);
        folded = foldNfkcCasefold(folded);
    }

    std::vector<std::string> words = splitUnicodeWhitespace(folded);
    for (std::string& w : words) w = stripUrlsInWord(w);

    Parsed parsed = parseWords(words);
    std::sort(parsed.ops.begin(), parsed.ops.end());
    parsed.ops.erase(std::unique(parsed.ops.begin(), parsed.ops.end()), parsed.ops.end());

    std::string out;
    for (const auto* list : {&parsed.free, &parsed.ops}) {
        for (const std::string& w : *list) {
            if (!out.empty()) out += ' ';
            out += w;
        }
    }
    return out;
}

int maxResultsBucket(int n) {
    if (n >= 1 && n <= 10) return 10;
    if (n >= 11 && n <= 20) return 20;
    if (n >= 21 && n <= 50) return 50;
    throw std::invalid_argument("maxResults must be in 1..50, got " + std::to_string(n));
}

std::uint64_t hashText(std::string_view bytes) {
    Fnv1a f;
    f.bytes(bytes);
    return mix64(f.h);
}

CacheKeyPrefix cacheKeyPrefix(std::string_view endpoint, std::string_view region,
                              std::string_view lang, std::string_view mode, bool include_media) {
    Fnv1a f;
    f.field("v4");
    f.field(endpoint);
    f.field(region);
    f.field(lang);
    f.field(mode);
    f.byte(include_media ? 1 : 0);
    return CacheKeyPrefix{mix64(f.h)};
}

std::uint64_t foldCacheKey(CacheKeyPrefix prefix, std::uint64_t normalizedQueryHash, int bucket) {
    // mix64 is a bijection: for one prefix, distinct query hashes stay distinct before the
    // bucket goes in; the second mix spreads the bucket over every bit.
    const std::uint64_t query = mix64(prefix.state ^ normalizedQueryHash);
    return mix64(query + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(bucket));
}

std::uint64_t foldCacheKey(std::string_view endpoint, std::string_view region,
                           std::string_view lang, std::uint64_t normalizedQueryHash, int bucket,
                           std::string_view mode, bool include_media) {
    return foldCacheKey(cacheKeyPrefix(endpoint, region, lang, mode, include_media),
                        normalizedQueryHash, bucket);
}

QueryClass classifyQuery(std::string_view normalized) {
    const Parsed parsed = parseWords(splitAsciiSpaces(normalized));
    std::vector<std::string> words;  // free terms, trimmed, punctuation-only ones dropped
    bool year = false;
    for (const std::string& raw : parsed.free) {
        year = year || hasYear(raw);
        std::string w = trimPunctuation(raw);
        if (!w.empty()) words.push_back(std::move(w));
    }
    const std::size_t n = words.size();
    const auto at = [&](std::size_t i) -> std::string_view {
        return i < n ? std::string_view(words[i]) : std::string_view{};
    };

    bool news = year, product = false, navigational = false, question = false;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string_view w = words[i], next = at(i + 1);
        news = news || contains(kNewsWords, w) || (w == "this" && next == "week");

        bool code_with_amount = false;
        const bool symbol = hasCurrencySymbol(w);
        const bool code = isCurrencyCodeWord(w, &code_with_amount);
        const bool neighbour_digit = (i > 0 && hasDigit(words[i - 1])) || hasDigit(next);
        product = product || contains(kProductWords, w) || isVersion(w) || code_with_amount ||
                  (symbol && (hasDigit(w) || neighbour_digit)) || (code && neighbour_digit);

        navigational = navigational || contains(kNavigationalWords, w) ||
                       ((w == "log" || w == "sign") && next == "in") ||
                       (w == "official" && (next == "site" || next == "website"));
        question = question || contains(kQuestionWords, w);
    }
    const bool long_tail = n >= 7 || (n >= 5 && contains(kQuestionWords, at(0)));
    const bool site_only =
        n == 0 && std::any_of(parsed.ops.begin(), parsed.ops.end(),
                              [](const std::string& op) { return op.starts_with("site:"); });
    navigational = navigational || (n == 1 && looksLikeDomain(words[0])) ||
                   ((n == 1 || n == 2) && !question) || site_only;

    if (news) return QueryClass::News;
    if (product) return QueryClass::Product;
    if (long_tail) return QueryClass::LongTail;
    if (navigational) return QueryClass::Navigational;
    return QueryClass::Evergreen;
}

bool zeroResultsAllowed(std::string_view normalized) {
    const Parsed parsed = parseWords(splitAsciiSpaces(normalized));
    for (const std::string& op : parsed.ops)
        if (op.starts_with("site:")) return true;
    // A non-empty phrase: a pair of quotes (paired left to right) with a non-space between.
    std::size_t open = std::string_view::npos;
    for (std::size_t i = 0; i < normalized.size(); ++i) {
        if (normalized[i] != '"') continue;
        if (open == std::string_view::npos) {
            open = i;
            continue;
        }
        const std::string_view inside = normalized.substr(open + 1, i - open - 1);
        if (inside.find_first_not_of(' ') != std::string_view::npos) return true;
        open = std::string_view::npos;
    }
    return false;
}

CompiledQuery compileQuery(const CompileInput& in) {
    CompiledQuery out;
    out.normalized = normalizeQuery(in.query);
    if (out.normalized.empty())
        throw std::invalid_argument("compileQuery: the query is empty after normalization");
    out.fetch_count = maxResultsBucket(in.max_results);
    out.cache_key = foldCacheKey(in.endpoint, in.region, in.lang, hashText(out.normalized),
                                 out.fetch_count, in.mode, in.include_media);
    out.query_class = classifyQuery(out.normalized);
    out.zero_results_allowed = zeroResultsAllowed(out.normalized);
    return out;
}

}  // namespace taillab::gateway
