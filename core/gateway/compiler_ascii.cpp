// normalizeQuery for pure-ASCII input, without ICU and without a heap allocation per word.
//
// On ASCII, steps 1-5 of compiler.h are one pass: every byte is valid, NFKC_Casefold is A-Z to
// a-z (compiler_detail.h), White_Space is six bytes, and the unpaired quote of step 5 is the
// last '"' of the input when their count is odd, skipped by the pass. The pass writes the words,
// single-spaced, straight into the output. Only a word with a ':' can hold a URL (step 6) or be
// an operator (step 7), so a query without one is finished there; the others are rearranged
// through a scratch copy of the text.
#include <algorithm>

#include "gateway/compiler_detail.h"

namespace taillab::gateway::detail {
namespace {

// A word of the text being rearranged, and what steps 6 and 7 need to know about it.
struct Word {
    std::uint32_t begin;
    std::uint32_t size;
    bool colon;       // holds a ':': may be a URL or an operator
    bool odd_quotes;  // holds an odd number of '"': opens or closes a phrase
};

constexpr std::size_t kInlineWords = maxWords(kInlineQueryBytes);

// What the first pass writes for a byte: asciiFold, and ' ' for white space. A table rather than
// a condition, so that no branch depends on the bytes (a mispredicted one per word costs more
// than the rest of the pass).
constexpr std::array<char, 256> kWrittenByte = [] {
    std::array<char, 256> table{};
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        table[b] = isAsciiWhiteSpace(c) ? ' ' : asciiFold(c);
    }
    return table;
}();

std::string_view viewOf(const char* text, const Word& w) { return {text + w.begin, w.size}; }

// Steps 6-8 for a text (words single-spaced, as the first pass leaves it) with at least one ':':
// URLs stripped, operators sorted and de-duplicated after the free terms.
void arrangeWords(std::string& text) {
    // The words again, URLs stripped, into scratch space: they stay single-spaced, so an
    // operator whose phrase spans several words is one contiguous piece of it.
    ScratchArray<char, kInlineQueryBytes> clean(text.size());
    ScratchArray<Word, kInlineWords> words(maxWords(text.size()));
    std::size_t size = 0, n = 0;
    WordScanner scanner(text);
    for (ScannedWord w; scanner.next(w);) {
        Word& c = words[n++];
        c.colon = (w.classes & kColonByte) != 0;
        c.odd_quotes = w.odd_quotes;
        if (size > 0) clean[size++] = ' ';
        c.begin = static_cast<std::uint32_t>(size);
        if (c.colon && findUrlStart(w.text, 0) != std::string_view::npos) {
            c.size = static_cast<std::uint32_t>(stripUrlsInWordTo(w.text, clean.data() + size));
        } else {
            c.size = static_cast<std::uint32_t>(w.text.size());
            std::memcpy(clean.data() + size, w.text.data(), w.text.size());
        }
        size += c.size;
    }

    // Free terms and operators, as the reference's parseWords splits them.
    ScratchArray<Word, kInlineWords> terms(n), ops(n);
    std::size_t n_terms = 0, n_ops = 0;
    bool in_phrase = false;
    for (std::size_t k = 0; k < n; ++k) {
        const Word& w = words[k];
        if (!in_phrase && w.colon && isOperatorWord(viewOf(clean.data(), w))) {
            std::size_t last = k;
            for (bool open = w.odd_quotes; open && last + 1 < n;) open = !words[++last].odd_quotes;
            ops[n_ops++] =
                Word{w.begin, words[last].begin + words[last].size - w.begin, true, false};
            k = last;
            continue;
        }
        if (w.odd_quotes) in_phrase = !in_phrase;
        terms[n_terms++] = w;
    }

    text.clear();  // keeps its capacity, which the result (no longer than before) fits in
    if (n_ops == 0) {
        text.append(clean.data(), size);
        return;
    }
    const auto less = [&](const Word& a, const Word& b) {
        return viewOf(clean.data(), a) < viewOf(clean.data(), b);
    };
    const auto same = [&](const Word& a, const Word& b) {
        return viewOf(clean.data(), a) == viewOf(clean.data(), b);
    };
    std::sort(ops.data(), ops.data() + n_ops, less);
    n_ops =
        static_cast<std::size_t>(std::unique(ops.data(), ops.data() + n_ops, same) - ops.data());
    for (const auto& [list, count] : {std::pair{&terms, n_terms}, std::pair{&ops, n_ops}})
        for (std::size_t k = 0; k < count; ++k) {
            if (!text.empty()) text += ' ';
            text.append(viewOf(clean.data(), (*list)[k]));
        }
}

}  // namespace

void normalizeAscii(std::string_view ascii, std::string& out) {
    checkQuerySize(ascii.size());
    const auto quotes = std::count(ascii.begin(), ascii.end(), '"');
    const std::size_t skipped = quotes % 2 == 1 ? ascii.rfind('"') : ascii.size();

    // Without branches on the bytes: each is written (kWrittenByte), and the write position
    // advances unless the byte is white space after white space. Leading white space counts as
    // following white space; one trailing ' ' is dropped at the end.
    out.resize(ascii.size());
    char* text = out.data();
    std::size_t size = 0;
    bool after_space = true;
    std::uint8_t classes = 0;
    for (std::size_t i = 0; i < ascii.size(); ++i) {
        if (i == skipped) continue;
        const char c = ascii[i];
        const std::uint8_t cls = byteClass(c);
        const bool space = (cls & kWhiteSpaceByte) != 0;
        text[size] = kWrittenByte[static_cast<unsigned char>(c)];
        size += !(space && after_space);
        after_space = space;
        classes |= cls;
    }
    if (after_space && size > 0) --size;
    out.resize(size);
    if (classes & kColonByte) arrangeWords(out);
}

}  // namespace taillab::gateway::detail
