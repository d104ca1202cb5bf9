// The hot path's JSON writer: what it writes must read back, through a real JSON parser, as
// exactly what was written, for any bytes and any double.
#include "live/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
        if (valid) EXPECT_EQ(parsed.get<std::string>(), s);
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

TEST(JsonText, AnObjectWritesItsFieldsInOrder) {
    std::string out;
    JsonObjectWriter w(out);
    w.field("a", 1).field("b", "x").field("c", true).field("d", 0.5);
    w.raw("e") += "[]";
    w.close();
    EXPECT_EQ(out, R"({"a":1,"b":"x","c":true,"d":0.5,"e":[]})");
    EXPECT_EQ(json::parse(out)["d"], 0.5);
}

}  // namespace
}  // namespace taillab::live
