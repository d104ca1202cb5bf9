// Random queries for testing the query compiler: a grammar of what its rules look at, and
// random UTF-8 of the code points that matter to normalization.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

#include "base/rng.h"
#include "base/utf8.h"

namespace taillab::gateway {

// Random ASCII queries from a grammar of what the rules look at: rule words and near misses,
// operators (with phrase values, empty values, unknown names), quotes, URLs with tracking and
// other parameters, fragments and brackets, domains, digits, years, prices, versions,
// punctuation, mixed case, and runs of every ASCII white space, sometimes no space at all.
class QueryGrammar {
  public:
    explicit QueryGrammar(Rng& rng) : rng_(rng) {}

    std::string query() {
        std::string q = rng_.below(8) == 0 ? space() : "";
        const std::size_t pieces = 1 + rng_.below(10);
        for (std::size_t i = 0; i < pieces; ++i) {
            if (i > 0) q += rng_.below(12) == 0 ? "" : space();
            q += piece();
        }
        if (rng_.below(8) == 0) q += space();
        // Mixed case: none, some, or all of the letters upper case.
        const std::uint64_t upper_in_16 = pick<std::uint64_t>({0, 0, 1, 4, 8, 16});
        for (char& c : q)
            if (c >= 'a' && c <= 'z' && rng_.below(16) < upper_in_16) c = static_cast<char>(c - 32);
        return q;
    }

  private:
    template <typename T>
    T pick(std::initializer_list<T> options) {
        return options.begin()[rng_.below(options.size())];
    }
    std::string_view pick(std::initializer_list<std::string_view> options) {
        return pick<std::string_view>(options);
    }

    std::string space() {
        std::string s(1 + rng_.below(3) * rng_.below(2), ' ');
        for (char& c : s) c = pick<char>({' ', ' ', ' ', '\t', '\n', '\v', '\f', '\r'});
        return s;
    }

    std::string word() {
        if (rng_.below(4) == 0) {
            std::string w(1 + rng_.below(12), 'a');
            for (char& c : w) c = static_cast<char>('a' + rng_.below(26));
            return w;
        }
        return std::string(
            pick({"the",      "of",        "rust",     "python",    "recipe",     "weather",
                  "museum",   "flights",   "tokyo",    "today",     "tonight",    "yesterday",
                  "tomorrow", "latest",    "breaking", "live",      "news",       "now",
                  "score",    "scores",    "election", "elections", "monday",     "wednesday",
                  "sunday",   "headlines", "price",    "prices",    "pricing",    "cost",
                  "cheap",    "cheapest",  "buy",      "deal",      "discount",   "coupon",
                  "vs",       "versus",    "review",   "reviews",   "usd",        "eur",
                  "gbp",      "jpy",       "inr",      "krw",       "how",        "why",
                  "what",     "which",     "who",      "where",     "can",        "should",
                  "is",       "do",        "does",     "will",      "login",      "signin",
                  "homepage", "this",      "week",     "log",       "sign",       "in",
                  "official", "site",      "website",  "newsy",     "wednesdays", "wednesdax",
                  "headline", "cheapests", "usda",     "pricey",    "inn",        "thisweek",
                  "logs",     "officials", "websites", "nowhere",   "newspaper",  "v",
                  "a",        "i"}));
    }

    std::string number() {
        switch (rng_.below(9)) {
            case 0:
                return std::to_string(rng_.below(100));
            case 1:
                return std::to_string(1990 + rng_.below(120));  // years, and near misses
            case 2:
                return std::to_string(rng_.below(100000000000ULL));
            case 3:
                return "$" + std::to_string(rng_.below(1000));
            case 4:
                return std::to_string(rng_.below(1000)) +
                       std::string(pick({"usd", "eur", "$", ".99"}));
            case 5:
                return std::string(pick({"usd", "gbp", "chf", "abc"})) +
                       std::to_string(rng_.below(500));
            case 6:
                return "v" + std::to_string(rng_.below(20)) + (rng_.below(2) ? ".2" : "");
            case 7:
                return std::string(
                    pick({"3.11", "1.", ".5", "1..2", "2.0.1", "1,299.00", "v", "v.1"}));
            default:
                return std::string(pick({"2024", "2099", "20245", "x2024y", "1999", "2100"}));
        }
    }

    std::string url() {
        std::string u(pick({"http://", "https://", "HTTPS://", "ftp://", "https:/"}));
        u += pick({"ex.com", "a.io", "docs.python.org", "x.co.uk", "localhost:8080"});
        u += pick({"", "/", "/p", "/a/b.html"});
        if (rng_.below(4) != 0) {
            u += '?';
            const std::size_t params = rng_.below(5);
            for (std::size_t i = 0; i < params; ++i) {
                if (i > 0) u += pick({"&", "&", "&&"});
                u += pick({"utm_source=x", "UTM_Medium=m", "utm_=1", "gclid=9", "fbclid", "_ga=6",
                           "igshid=8", "a=1", "id=7", "ref=3", "utmx=1", "gclid_x=2", "k=v", ""});
            }
        }
        if (rng_.below(5) == 0) u += pick({"#top", "#f?utm_source=1", "#"});
        if (rng_.below(4) == 0) u += pick({"http://b.com/?utm_id=1", "\"x", ">y", "(z)"});
        switch (rng_.below(8)) {
            case 0:
                return "(" + u + ")";
            case 1:
                return "[" + u + "]";
            case 2:
                return "<" + u + ">";
            case 3:
                return "\"" + u + "\"";
            case 4:
                return "see:" + u;
            default:
                return u;
        }
    }

    std::string operatorWord() {
        std::string op(pick({"site:", "-site:", "filetype:", "ext:", "lang:", "inurl:", "intitle:",
                             "intext:", "-intitle:", "Site:", "note:", "sitex:", "site"}));
        switch (rng_.below(6)) {
            case 0:
                return op + std::string(pick({"a.com", "b.org", "blog.rust-lang.org", "x"}));
            case 1:
                return op + "\"" + word() + space() + word() + (rng_.below(3) ? "\"" : "");
            case 2:
                return op;
            case 3:
                return op + url();
            case 4:
                return op + number();
            default:
                return op + word();
        }
    }

    std::string piece() {
        switch (rng_.below(16)) {
            case 0:
            case 1:
                return operatorWord();
            case 2:
                return url();
            case 3:
                return std::string(
                    pick({"github.com", "a.io/x", "x.co.uk", "-a.com", "a..b", ".com"}));
            case 4:
            case 5:
                return number();
            case 6:
                return "\"";
            case 7:
                return "\"" + word();
            case 8:
                return word() + "\"";
            case 9:
                return std::string(pick({"!", "?", ",", ".", ";", ":", "(", ")", "[", "]", "{", "}",
                                         "<", ">", "'", "-", "&", "#", "$"})) +
                       word();
            case 10:
                return word() +
                       std::string(pick({"!", "?", ",", ".", "'s", ")", ":", "...", "?!"}));
            case 11:
                return std::string(1, static_cast<char>(rng_.below(128)));
            default:
                return word();
        }
    }

    Rng& rng_;
};

// Random code points that matter to normalization: ASCII, Latin-1 (NO-BREAK SPACE, NEL, sharp s,
// inverted marks, currency signs), combining marks, curly and full-width quotes, Unicode spaces,
// default-ignorables, letters with compatibility forms, other currencies, emoji.
inline std::string randomUtf8(Rng& rng, std::size_t code_points) {
    static constexpr std::array<char32_t, 26> kNotable{
        0xA0,   0x85,   0xDF,   0xA1,   0xBF,   0xA3,   0xA5,    0x301,  0x345,
        0x201C, 0x201D, 0x201E, 0x201F, 0xFF02, 0x3000, 0x2028,  0x2003, 0x200B,
        0xAD,   0xFB01, 0x2162, 0xFF21, 0x20AC, 0x20B9, 0x1F600, 0x130};
    std::string s;
    for (std::size_t i = 0; i < code_points; ++i) {
        char32_t c;
        switch (rng.below(4)) {
            case 0:
                c = static_cast<char32_t>(rng.below(128));
                break;
            case 1:
                c = kNotable[rng.below(kNotable.size())];
                break;
            case 2:
                c = static_cast<char32_t>(0x80 + rng.below(0x780));
                break;
            default: {
                c = static_cast<char32_t>(rng.below(0x110000));
                if (c >= 0xD800 && c <= 0xDFFF) c = 'x';
            }
        }
        appendUtf8(s, static_cast<unsigned>(c));
    }
    return s;
}

// `n` random bytes drawn from the first `alphabet` byte values.
inline std::string randomBytes(Rng& rng, std::size_t n, unsigned alphabet = 256) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng.below(alphabet));
    return s;
}

}  // namespace taillab::gateway
