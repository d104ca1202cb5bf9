// The hot path's JSON writer: what it writes must read back, through a real JSON parser, as
// exactly what was written, for any bytes and any double.
#include "live/json_text.h"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>
#include <nlohmann/json.hpp>

#include "base/rng.h"

namespace taillab::live {
namespace {

using nlohmann::json;

std::string written(std::string_view s) {
    std::string out;
    appendJsonString(out, s);
    return out;
}

TEST(JsonText, EscapesWhatJsonRequiresAndNothingElse) {
    EXPECT_EQ(written("plain text, 100%"), R"("plain text, 100%")");
    EXPECT_EQ(written("say \"hi\" \\ there"), R"("say \"hi\" \\ there")");
    EXPECT_EQ(written("a\nb\tc\rd\be\ff"), R"("a\nb\tc\rd\be\ff")");
    EXPECT_EQ(written(std::string("nul\0x\x1f", 6)), R"("nul\u0000x\u001f")");
    EXPECT_EQ(written("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonText, BytesThatAreNotUtf8BecomeReplacementCharacters) {
    const std::string r = "\xef\xbf\xbd";
    EXPECT_EQ(written("a\xff" "b"), "\"a" + r + "b\"");
    EXPECT_EQ(written("\xc3"), "\"" + r + "\"");                      // truncated
    EXPECT_EQ(written("\xc0\xaf"), "\"" + r + r + "\"");              // overlong
    EXPECT_EQ(written("\xed\xa0\x80"), "\"" + r + r + r + "\"");      // a surrogate
    EXPECT_EQ(written("\xf4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // above U+10FFFF
}

TEST(JsonText, AnyBytesReadBackAsTheirValidPart) {
    Rng rng(7);
    for (int n = 0; n < 2000; ++n) {
        std::string s(rng.below(40), '\0');
        for (char& c : s) c = static_cast<char>(rng.below(256));
        const std::string text = written(s);
        json parsed;
        ASSERT_NO_THROW(parsed = json::parse(text)) << text;
        // Valid input reads back unchanged.
        bool valid = true;
        try {
            (void)json(s).dump();
        } catch (const json::type_error&) {
            valid = false;
        }
        if (valid) {
            EXPECT_EQ(parsed.get<std::string>(), s);
        }
    }
}

TEST(JsonText, NumbersReadBackExactly) {
    Rng rng(11);
    for (int n = 0; n < 5000; ++n) {
        const double v = std::ldexp(rng.uniform() - 0.5, static_cast<int>(rng.below(200)) - 100);
        std::string out;
        appendJsonNumber(out, v);
        EXPECT_EQ(json::parse(out).get<double>(), v) << out;
    }
    std::string out;
    appendJsonNumber(out, 12.346);
    EXPECT_EQ(out, "12.346");
    out.clear();
    appendJsonNumber(out, std::numeric_limits<double>::infinity());
    EXPECT_EQ(out, "null");
    out.clear();
    appendJsonNumber(out, std::int64_t{-42});
    EXPECT_EQ(out, "-42");
}

// Short decimals (scores, milliseconds) take a fast path; it must write what to_chars writes:
// the shortest form that reads back, for every decimal of up to three places in its range, at
// its edges, and for the doubles just beside them (which are not short and must fall back).
TEST(JsonText, ShortDecimalsAreWrittenAsToCharsWritesThem) {
    Rng rng(12);
    const auto same = [](double v) {
        std::string mine;
        appendJsonNumber(mine, v);
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        EXPECT_EQ(mine, std::string(buf, r.ptr)) << std::hexfloat << v;
    };
    constexpr double kScale[] = {1, 10, 100, 1000};
    for (int n = 0; n < 20000; ++n) {
        const int k = static_cast<int>(rng.below(4));
        const double v = static_cast<double>(rng.below(100'000'000)) / kScale[k] * (rng.below(2) ? 1 : -1);
        same(v);
        same(std::nextafter(v, 1e300));
        same(std::nextafter(v, -1e300));
    }
    for (const double v : {0.0, -0.0, 0.001, 0.0009999, 0.0011, 99999.999, 100000.0, 1e5 - 1e-9, 0.5, 0.99,
                           0.1 + 0.2, 1.005, 12.346, 5e-324, 1e300})
        same(v);
}

TEST(JsonText, AnObjectWritesItsFieldsInOrder) {
    std::string out;
    JsonObjectWriter w(out);
    w.field("a", 1).field("b", "x").field("c", true).field("d", 0.5);
    w.raw("e") += "[]";
    w.close();
    EXPECT_EQ(out, R"({"a":1,"b":"x","c":true,"d":0.5,"e":[]})");
    EXPECT_EQ(json::parse(out)["d"], 0.5);
}

// ---- readJson, against nlohmann's reader as the oracle ----------------------------------------

// Both readers' events as one line of text.
struct Recorder final : JsonEvents {
    std::string log;
    void null() override { log += "null "; }
    void boolean(bool v) override { log += v ? "true " : "false "; }
    void number(double v, std::string_view) override { appendJsonNumber(log += "num:", v), log += ' '; }
    void string(std::string_view v) override { appendJsonString(log += "str:", v), log += ' '; }
    void key(std::string_view k) override { appendJsonString(log += "key:", k), log += ' '; }
    void startObject() override { log += "{ "; }
    void endObject() override { log += "} "; }
    void startArray() override { log += "[ "; }
    void endArray() override { log += "] "; }
};

struct OracleRecorder final : nlohmann::json_sax<json> {
    Recorder r;
    bool null() override { return r.null(), true; }
    bool boolean(bool v) override { return r.boolean(v), true; }
    bool number_integer(number_integer_t v) override { return r.number(static_cast<double>(v), {}), true; }
    bool number_unsigned(number_unsigned_t v) override { return r.number(static_cast<double>(v), {}), true; }
    bool number_float(number_float_t v, const string_t&) override { return r.number(v, {}), true; }
    bool string(string_t& v) override { return r.string(v), true; }
    bool binary(binary_t&) override { return false; }
    bool start_object(std::size_t) override { return r.startObject(), true; }
    bool key(string_t& k) override { return r.key(k), true; }
    bool end_object() override { return r.endObject(), true; }
    bool start_array(std::size_t) override { return r.startArray(), true; }
    bool end_array() override { return r.endArray(), true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }
};

// Agrees with nlohmann on whether `text` is JSON and, when it is, on every event.
void expectSameAsOracle(const std::string& text) {
    Recorder mine;
    const std::optional<std::size_t> stop = readJson(text, mine);
    OracleRecorder oracle;
    const bool ok = json::sax_parse(text.begin(), text.end(), &oracle);
    ASSERT_EQ(!stop.has_value(), ok) << "text: " << text;
    if (ok) {
        EXPECT_EQ(mine.log, oracle.r.log) << "text: " << text;
    } else {
        EXPECT_GE(*stop, 1u);
        EXPECT_LE(*stop, text.size() + 1);
    }
}

TEST(JsonText, ReadsWhatJsonIsAndRefusesWhatItIsNot) {
    for (const char* ok : {R"({"a": [1, -2.5e3, 0, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]})",
                           "  [ ]  ", "{}", "0", "-0.0e-0", R"("\u0000")", "1e400", "-1e400", "1e-400",
                           "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]", "\"caf\xc3\xa9\""})
        expectSameAsOracle(ok);
    for (const char* bad : {"", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "1e", "+1", "tru", "nul",
                            "[1 2]", "{\"a\" 1}", "{1: 2}", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"",
                            "\"\\udc00\"", "\"\\ud83d\\u0041\"", "\"a\nb\"", "\"\xff\"", "\"\xc0\xaf\"",
                            "[] []", "NaN", "/* c */ 1", "'a'", "\xef\xbb\xbf{}"})
        expectSameAsOracle(bad);
    // Nesting on both sides of the levels the reader keeps in place (16), closed in order and not.
    for (const int depth : {15, 16, 17, 40}) {
        std::string open, close;
        for (int d = 0; d < depth; ++d) {
            open += d % 2 ? "[" : "{\"k\": ";
            close = (d % 2 ? "]" : "}") + close;
        }
        expectSameAsOracle(open + "1" + close);
        std::string swapped = close;
        std::swap(swapped.front(), swapped.back());
        expectSameAsOracle(open + "1" + swapped);
    }
    Recorder r;
    EXPECT_EQ(readJson("[1, x]", r), 5u);
    EXPECT_EQ(readJson("[1, 2", r), 6u);
}

// Numbers of up to 15 digits without an exponent take a short path; each must read as the very
// double from_chars reads (bit for bit, -0 included), on both sides of that path's limits.
TEST(JsonText, ShortNumbersReadAsFromCharsReadsThem) {
    struct Numbers final : JsonEvents {
        std::vector<double> seen;
        void null() override {}
        void boolean(bool) override {}
        void number(double v, std::string_view) override { seen.push_back(v); }
        void string(std::string_view) override {}
        void key(std::string_view) override {}
        void startObject() override {}
        void endObject() override {}
        void startArray() override {}
        void endArray() override {}
    };
    Rng rng(13);
    for (int n = 0; n < 20000; ++n) {
        // 1 to 17 digits in all: a whole part ("0", or no leading zero), maybe a fraction, and a
        // sign now and then.
        const int whole = 1 + static_cast<int>(rng.below(8));
        const int fraction = static_cast<int>(rng.below(static_cast<std::uint64_t>(18 - whole)));
        std::string literal = rng.below(4) == 0 ? "-" : "";
        for (int d = 0; d < whole; ++d)
            literal += static_cast<char>(d == 0 && whole > 1 ? '1' + rng.below(9) : '0' + rng.below(10));
        if (fraction > 0) literal += '.';
        for (int d = 0; d < fraction; ++d) literal += static_cast<char>('0' + rng.below(10));
        Numbers got;
        ASSERT_FALSE(readJson("[" + literal + "]", got).has_value()) << literal;
        ASSERT_EQ(got.seen.size(), 1u);
        const char* begin = literal.data();
        double want = 0;
        std::from_chars(begin, begin + literal.size(), want);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(got.seen[0]), std::bit_cast<std::uint64_t>(want)) << literal;
    }
}

// A string with no escape is handed over as a view of the text itself (nothing copied); one with
// an escape, as its unescaped bytes from the reader's own buffer.
TEST(JsonText, StringsWithoutEscapesAreViewsOfTheText) {
    struct Views final : JsonEvents {
        std::string_view text;
        std::vector<std::pair<std::string, bool>> seen;  // value, whether it views `text`
        void note(std::string_view v) {
            const std::less<const char*> before;
            const bool inside = !before(v.data(), text.data()) && !before(text.data() + text.size(), v.data() + v.size());
            seen.emplace_back(std::string(v), inside);
        }
        void null() override {}
        void boolean(bool) override {}
        void number(double, std::string_view) override {}
        void string(std::string_view v) override { note(v); }
        void key(std::string_view k) override { note(k); }
        void startObject() override {}
        void endObject() override {}
        void startArray() override {}
        void endArray() override {}
    };
    const std::string text = R"({"plain": "caf)" "\xc3\xa9" R"(", "esc\"aped": "a\nb\u00e9c", "tail": "x"})";
    Views v;
    v.text = text;
    ASSERT_FALSE(readJson(text, v).has_value());
    const std::vector<std::pair<std::string, bool>> want{{"plain", true},       {"caf\xc3\xa9", true},
                                                         {"esc\"aped", false}, {"a\nb\xc3\xa9" "c", false},
                                                         {"tail", true},        {"x", true}};
    EXPECT_EQ(v.seen, want);
}

// Plain runs are skipped eight bytes at a time: a byte that needs care must be found at every
// offset of a word, after any number of plain words, by the writer and by the reader.
TEST(JsonText, EveryByteThatNeedsCareIsFoundAtAnyOffset) {
    for (const std::string& special : std::vector<std::string>{"\"", "\\", "\n", "\x01", "\x1f", std::string(1, '\0'), "\x7f", " ",
                                      "\xc3\xa9", "\xf0\x9f\x98\x80", "\xff", "\xc3"}) {
        // Every length around the 8-byte words the scan takes, and each place in it (the tail
        // of a string is read as an overlapping word).
        for (std::size_t length = 0; length <= 41; ++length)
        for (std::size_t at = 0; at <= length; ++at) {
            std::string s(length, 'a');
            s.insert(at, special);
            const std::string text = written(s);
            json parsed;
            ASSERT_NO_THROW(parsed = json::parse(text)) << text;
            const bool valid = special != "\xff" && special != "\xc3";
            if (valid) {
                EXPECT_EQ(parsed.get<std::string>(), s) << at;
            }
            // The reader, on the writer's text and on the raw bytes when they are a JSON string.
            expectSameAsOracle(text);
            expectSameAsOracle("\"" + s + "\"");
        }
    }
}

TEST(JsonText, AgreesWithNlohmannOnMutatedPages) {
    const std::string page =
        R"({"page": "results", "echo": "00000000000000ff", "results": [)"
        R"({"title": "A \"quoted\" caf\u00e9", "url": "https://a.org/x?y=1", "snippet": "a\nb", "score": 0.9},)"
        R"({"title": "B", "url": "https://b.org/", "snippet": "b", "score": -1e-3, "extra": [null, true, {}]}]})";
    expectSameAsOracle(page);
    using namespace std::string_literals;
    const std::string alphabet = "{}[]\":,.-+eE0123456789 tfnul\\/\"ab\x80\xc3\xa9\x00\n"s;
    Rng rng(3);
    for (int n = 0; n < 20000; ++n) {
        std::string text = page;
        const int edits = 1 + static_cast<int>(rng.below(3));
        for (int e = 0; e < edits && !text.empty(); ++e) {
            const std::size_t at = rng.below(text.size());
            const char c = alphabet[rng.below(alphabet.size())];
            switch (rng.below(4)) {
                case 0: text[at] = c; break;
                case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
                case 2: text.erase(at, 1); break;
                default: text.resize(at); break;
            }
        }
        expectSameAsOracle(text);
        if (HasFatalFailure()) return;
    }
}

}  // namespace
}  // namespace taillab::live
