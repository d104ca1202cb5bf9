// Numbers in messages read as people write them: the range a knob refuses a value for, a value
// found, a timeline's bound. Result files keep their own numbers (lab_result_test).
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "base/format.h"
#include "knobs/knob.h"

namespace taillab {
namespace {

// Whatever it prints reads back as the number it was given, to 15 significant digits, with no
// exponent between 1e-4 and 1e15.
TEST(FormatNumber, ReadsBackAsTheNumberWithoutAnExponentInTheUsualRange) {
    for (const double v : {0.0, 1.0, -5.0, 0.25, 1500.5, 1e7, 1e7 + 0.5, 123456789012.0, 0.001, 604800.0,
                           1e14, -3e9}) {
        const std::string text = formatNumber(v);
        EXPECT_EQ(text.find('e'), std::string::npos) << text;
        EXPECT_EQ(text.find(','), std::string::npos) << text;
        EXPECT_DOUBLE_EQ(std::strtod(text.c_str(), nullptr), v) << text;
    }
    // Far out of it an exponent is shorter than a row of zeros, and still reads back.
    for (const double v : {1e300, 1e-7, -2.5e20}) {
        const std::string text = formatNumber(v);
        EXPECT_NE(text.find('e'), std::string::npos) << text;
        EXPECT_DOUBLE_EQ(std::strtod(text.c_str(), nullptr), v) << text;
    }
    // Arithmetic's last-digit noise is not shown: 100 * 0.07 is 7.000000000000001.
    EXPECT_EQ(formatNumber(100 * 0.07), formatNumber(7));
}

// The message a scenario file or --set gets for a value out of a knob's range: its bounds and
// the value as typed, never 1e+07.
TEST(FormatNumber, AKnobRangeMessageWritesItsBoundsInFull) {
    const double max = 10'000'000, min = 1000;
    const KnobSpec spec = KnobSpec::integer("requests", "Requests", "requests", min, max, 20'000, "");
    const double tooMany = 10 * max;
    std::string message;
    try {
        knobValueFromJson(spec, nlohmann::json(tooMany));
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    const std::string range = "[" + std::to_string(static_cast<long long>(min)) + ", " +
                              std::to_string(static_cast<long long>(max)) + "] requests";
    EXPECT_NE(message.find(range), std::string::npos) << message;
    EXPECT_NE(message.find("found " + std::to_string(static_cast<long long>(tooMany))), std::string::npos)
        << message;
    EXPECT_EQ(message.find("e+"), std::string::npos) << message;

    Params params({spec});
    message.clear();
    try {
        params.set("requests", tooMany);
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    EXPECT_NE(message.find(std::to_string(static_cast<long long>(max)) + "], got"), std::string::npos)
        << message;
    EXPECT_EQ(message.find("e+"), std::string::npos) << message;
}

}  // namespace
}  // namespace taillab
