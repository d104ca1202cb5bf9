// The query compiler's reference path: ICU NFKC_Casefold on every call and a std::string per
// word, written to read like the rules in compiler.h. Non-ASCII queries are normalized here, and
// tests hold the fast path (compiler_ascii.cpp, query_classifier.cpp) to it byte for byte.
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "gateway/compiler.h"
#include "gateway/compiler_detail.h"

namespace taillab::gateway::detail {
namespace {

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view w) {
    return std::find(set.begin(), set.end(), w) != set.end();
}

std::size_t countQuotes(std::string_view s) { return std::count(s.begin(), s.end(), '"'); }

icu::UnicodeString nfkcCasefoldUtf16(std::string_view utf8) {
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
    return out;
}

// NFKC_Casefold, then curly double quotes to ASCII (they are stable under NFKC_Casefold, so the
// result is still a fixed point of this function).
std::string foldNfkcCasefold(std::string_view utf8) {
    icu::UnicodeString out = nfkcCasefoldUtf16(utf8);
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

std::string stripUrlsInWord(std::string_view w) {
    std::string out(w.size(), '\0');
    out.resize(stripUrlsInWordTo(w, out.data()));
    return out;
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

// trimPunctuation, then ASCII lowercase.
std::string trimAndLower(std::string_view w) {
    std::string out(trimPunctuation(w));
    for (char& c : out) c = asciiFold(c);
    return out;
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

}  // namespace

void checkQuerySize(std::size_t bytes) {
    if (bytes > kMaxQueryBytes)
        throw std::invalid_argument("longer than 64 MiB (" + std::to_string(bytes) + " bytes)");
}

std::string nfkcCasefold(std::string_view utf8) {
    std::string result;
    nfkcCasefoldUtf16(utf8).toUTF8String(result);
    return result;
}

bool isUnicodeWhiteSpace(char32_t c) { return u_isUWhiteSpace(static_cast<UChar32>(c)); }

std::string normalizeQueryReference(std::string_view utf8) {
    checkQuerySize(utf8.size());
    if (const auto bad = invalidUtf8Offset(utf8))
        throw std::invalid_argument("not valid UTF-8 at byte offset " + std::to_string(*bad));

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

QueryClass classifyQueryReference(std::string_view normalized) {
    const Parsed parsed = parseWords(splitAsciiSpaces(normalized));
    std::vector<std::string> words;  // free terms, trimmed, punctuation-only ones dropped
    bool year = false;
    for (const std::string& raw : parsed.free) {
        year = year || hasYear(raw);
        std::string w = trimAndLower(raw);
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

bool zeroResultsAllowedReference(std::string_view normalized) {
    const Parsed parsed = parseWords(splitAsciiSpaces(normalized));
    for (const std::string& op : parsed.ops)
        if (op.starts_with("site:")) return true;
    return hasNonEmptyPhrase(normalized);
}

}  // namespace taillab::gateway::detail
