// classifyQuery and zeroResultsAllowed over views of the text: the rules of compiler.h, as
// classifyQueryReference reads them, without a std::string per word. Every word the rules name
// (the word sets of compiler_detail.h, and the halves of "this week", "log in", "sign in",
// "official site") is found in a compile-time perfect hash of its first eight bytes, its ninth
// and its length.
#include <algorithm>

#include "gateway/compiler.h"
#include "gateway/compiler_detail.h"

namespace taillab::gateway::detail {
namespace {

// What a word is to the rules; a word may be several things. The first word of each two-word
// rule has the bit just below its second's, so (flags << 1) & next_flags finds the pairs.
enum WordFlag : std::uint16_t {
    kNews = 1 << 0,
    kProduct = 1 << 1,
    kCurrencyCode = 1 << 2,
    kQuestion = 1 << 3,
    kNavigational = 1 << 4,
    kThis = 1 << 5,           // "this" (week)
    kWeek = 1 << 6,           // (this) "week"
    kLogOrSign = 1 << 7,      // "log", "sign" (in)
    kIn = 1 << 8,             // (log, sign) "in"
    kOfficial = 1 << 9,       // "official" (site, website)
    kSiteOrWebsite = 1 << 10  // (official) "site", "website"
};
static_assert(kThis << 1 == kWeek && kLogOrSign << 1 == kIn && kOfficial << 1 == kSiteOrWebsite);

// The keywords, found by a perfect hash: a multiplier chosen at compile time sends each to a
// slot of its own, so a lookup is one probe and a comparison, with no branch on the word.
constexpr std::size_t kMaxKeyword = 9;
constexpr std::size_t kMaxKeywords = 96;
constexpr int kSlotBits = 9;
constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;

struct Keyword {
    std::uint64_t head = 0;   // the first eight bytes, little-endian, zero-padded
    std::uint32_t tail = 0;   // size << 8 | the ninth byte (0 when shorter); 0 matches no word
    std::uint16_t flags = 0;  // WordFlag
};

constexpr std::uint32_t tailOf(std::size_t size, unsigned char ninth) {
    return static_cast<std::uint32_t>(std::min<std::size_t>(size, 0xFFFFFF)) << 8 | ninth;
}

constexpr std::size_t slotOf(std::uint64_t head, std::uint32_t tail, std::uint64_t multiplier) {
    return static_cast<std::size_t>(((head ^ (std::uint64_t{tail} << 40)) * multiplier) >>
                                    (64 - kSlotBits));
}

struct KeywordTable {
    std::array<Keyword, kMaxKeywords> keys{};  // keys[0] matches nothing
    std::array<std::uint8_t, kSlots> slots{};  // index into keys, 0 for none
    std::uint64_t multiplier = 0;
};

constexpr KeywordTable buildKeywordTable() {
    KeywordTable table;
    std::size_t n = 1;
    const auto add = [&](std::string_view w, std::uint16_t flag) {
        if (w.empty() || w.size() > kMaxKeyword) throw "keyword longer than kMaxKeyword";
        Keyword k;
        for (std::size_t i = 0; i < std::min<std::size_t>(w.size(), 8); ++i)
            k.head |= std::uint64_t{static_cast<unsigned char>(w[i])} << (8 * i);
        k.tail = tailOf(w.size(), w.size() > 8 ? static_cast<unsigned char>(w[8]) : 0);
        for (std::size_t i = 1; i < n; ++i)
            if (table.keys[i].head == k.head && table.keys[i].tail == k.tail) {
                table.keys[i].flags |= flag;
                return;
            }
        if (n == kMaxKeywords) throw "more keywords than kMaxKeywords";
        k.flags = flag;
        table.keys[n++] = k;
    };
    for (std::string_view w : kNewsWords) add(w, kNews);
    for (std::string_view w : kProductWords) add(w, kProduct);
    for (std::string_view w : kCurrencyCodes) add(w, kCurrencyCode);
    for (std::string_view w : kQuestionWords) add(w, kQuestion);
    for (std::string_view w : kNavigationalWords) add(w, kNavigational);
    add("this", kThis);
    add("week", kWeek);
    add("log", kLogOrSign);
    add("sign", kLogOrSign);
    add("in", kIn);
    add("official", kOfficial);
    add("site", kSiteOrWebsite);
    add("website", kSiteOrWebsite);

    for (std::uint64_t attempt = 1; attempt < 100000; ++attempt) {
        const std::uint64_t multiplier =
            ((attempt * 0x9e3779b97f4a7c15ULL) ^ ((attempt * 0xbf58476d1ce4e5b9ULL) >> 29)) | 1;
        std::array<std::uint8_t, kSlots> slots{};
        bool distinct = true;
        for (std::size_t i = 1; i < n && distinct; ++i) {
            std::uint8_t& slot = slots[slotOf(table.keys[i].head, table.keys[i].tail, multiplier)];
            distinct = slot == 0;
            slot = static_cast<std::uint8_t>(i);
        }
        if (distinct) {
            table.slots = slots;
            table.multiplier = multiplier;
            return table;
        }
    }
    throw "no perfect hash multiplier found";
}

constexpr KeywordTable kKeywords = buildKeywordTable();

// The keyword flags of `w`. Reads eight bytes from w.data(), whatever w.size(): the caller pads.
std::uint16_t wordFlags(std::string_view w) {
    const std::size_t n = w.size();
    const std::uint64_t head =
        loadLe64(w.data()) & (~0ULL >> (8 * (8 - std::min<std::size_t>(n, 8))));
    const std::uint32_t tail = tailOf(n, n > 8 ? static_cast<unsigned char>(w[8]) : 0);
    const Keyword& k = kKeywords.keys[kKeywords.slots[slotOf(head, tail, kKeywords.multiplier)]];
    // A mask rather than a branch: whether a word is a keyword is not predictable.
    const std::uint64_t differs = (k.head ^ head) | (k.tail ^ tail);
    return static_cast<std::uint16_t>(k.flags & (0u - static_cast<unsigned>(differs == 0)));
}

// Splits `text` on ASCII spaces into free terms and operators as the reference's parseWords
// does and calls onFree(word) for each free term in order.
struct Walk {
    bool site = false;         // an operator starts with "site:"
    std::uint8_t classes = 0;  // ByteClass, ORed over every word
};

template <typename OnFree>
Walk walkWords(std::string_view text, OnFree&& onFree) {
    WordScanner scanner(text);
    Walk walk;
    bool in_phrase = false;
    for (ScannedWord w; scanner.next(w);) {
        walk.classes |= w.classes;
        if (!in_phrase && (w.classes & kColonByte) && isOperatorWord(w.text)) {
            walk.site = walk.site || w.text.starts_with("site:");
            for (bool open = w.odd_quotes; open;) {
                ScannedWord more;
                if (!scanner.next(more)) break;
                walk.classes |= more.classes;
                open = !more.odd_quotes;
            }
            continue;
        }
        if (w.odd_quotes) in_phrase = !in_phrase;
        onFree(w);
    }
    return walk;
}

// A free term, trimmed and ASCII-lowercased, with what its neighbours need to know.
struct Term {
    const char* data;
    std::uint32_t size;
    std::uint16_t flags;   // WordFlag
    std::uint8_t classes;  // ByteClass of the untrimmed word: trimming removes only ASCII
                           // punctuation, '¡' and '¿', never a digit or a currency sign
    bool digit;
    std::string_view view() const { return {data, size}; }
};

constexpr std::size_t kInlineTerms = maxWords(kInlineQueryBytes);

// "usd5", "5usd": a currency code glued to an amount.
bool isCodeWithAmount(std::string_view w) {
    if (w.size() <= 3) return false;
    return ((wordFlags(w.substr(0, 3)) & kCurrencyCode) && isAmount(w.substr(3))) ||
           ((wordFlags(w.substr(w.size() - 3)) & kCurrencyCode) &&
            isAmount(w.substr(0, w.size() - 3)));
}

}  // namespace

QueryFacts analyzeNormalized(std::string_view text) {
    // The rules compare words in ASCII lowercase: terms are read from a lowercased copy, padded
    // so that wordFlags may read past the last one.
    constexpr std::size_t kPadding = 8;
    ScratchArray<char, kInlineQueryBytes + kPadding> lower(text.size() + kPadding);
    std::transform(text.begin(), text.end(), lower.data(), asciiFold);
    std::fill_n(lower.data() + text.size(), kPadding, '\0');

    ScratchArray<Term, kInlineTerms> terms(maxWords(text.size()));
    std::size_t n = 0;
    bool year = false;
    const Walk walk = walkWords(text, [&](const ScannedWord& raw) {
        const bool digit = raw.classes & kDigitByte;
        year = year || (digit && hasYear(raw.text));
        const std::string_view w = trimPunctuation(
            std::string_view(lower.data() + (raw.text.data() - text.data()), raw.text.size()));
        if (!w.empty())
            terms[n++] = Term{w.data(), static_cast<std::uint32_t>(w.size()), wordFlags(w),
                              raw.classes, digit};
    });

    // The word-set rules are ORs of flags; only a word with a digit, a '$' or a non-ASCII byte
    // needs more than its flags and its neighbours' (amounts, versions, currency symbols).
    std::uint16_t flags = 0, pairs = 0;
    bool product = false;
    for (std::size_t i = 0; i < n; ++i) {
        const Term& t = terms[i];
        const bool last = i + 1 == n;
        const std::uint16_t next = last ? 0 : terms[i + 1].flags;
        const bool neighbour_digit = (i > 0 && terms[i - 1].digit) || (!last && terms[i + 1].digit);
        flags |= t.flags;
        pairs |= static_cast<std::uint16_t>(t.flags << 1) & next;
        product = product || ((t.flags & kCurrencyCode) && neighbour_digit);
        if (!product && (t.digit || (t.classes & (kDollarByte | kNonAsciiByte)))) {
            const std::string_view w = t.view();
            const bool with_amount = t.digit && isCodeWithAmount(w);
            const bool symbol =
                (t.classes & kNonAsciiByte) ? hasCurrencySymbol(w) : (t.classes & kDollarByte) != 0;
            product = (t.digit && isVersion(w)) || with_amount ||
                      (symbol && (t.digit || neighbour_digit));
        }
    }
    const bool news = year || (flags & kNews) || (pairs & kWeek);
    product = product || (flags & kProduct);
    const bool long_tail = n >= 7 || (n >= 5 && (terms[0].flags & kQuestion));
    const bool navigational = (flags & kNavigational) || (pairs & (kIn | kSiteOrWebsite)) ||
                              (n == 1 && looksLikeDomain(terms[0].view())) ||
                              ((n == 1 || n == 2) && !(flags & kQuestion)) || (n == 0 && walk.site);

    QueryFacts facts;
    facts.query_class = news           ? QueryClass::News
                        : product      ? QueryClass::Product
                        : long_tail    ? QueryClass::LongTail
                        : navigational ? QueryClass::Navigational
                                       : QueryClass::Evergreen;
    facts.zero_results_allowed =
        walk.site || ((walk.classes & kQuoteByte) && hasNonEmptyPhrase(text));
    return facts;
}

}  // namespace taillab::gateway::detail
