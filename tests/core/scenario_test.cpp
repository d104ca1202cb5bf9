// Scenario files: every mistake gets one clear error naming file, line, column, JSON path, what
// was expected and what was found.
#include <gtest/gtest.h>

#include <array>

#include "labs/lab.h"
#include "run/runner.h"
#include "scenario/json_locate.h"
#include "scenario/scenario.h"

namespace taillab {
namespace {

ScenarioError parseError(const std::string& text, const std::vector<std::string>& overrides = {}) {
    try {
        parseScenario(text, "bad.json", overrides);
    } catch (const ScenarioError& e) {
        return e;
    }
    ADD_FAILURE() << "expected a ScenarioError for:\n" << text;
    return ScenarioError("", std::nullopt, std::nullopt, "", "");
}

const char* kGood = R"({
  "schema_version": 1,
  "name": "fanout-test",
  "lab": "fanout",
  "seed": 7,
  "params": {"requests": 20000}
})";

TEST(Scenario, ParsesAValidFile) {
    const Scenario s = parseScenario(kGood, "good.json");
    EXPECT_EQ(s.name, "fanout-test");
    EXPECT_EQ(s.lab, "fanout");
    EXPECT_EQ(s.seed, 7u);
    EXPECT_EQ(s.params.integer("requests"), 20000);
    EXPECT_FALSE(s.title.empty());  // falls back to the lab's title
}

TEST(Scenario, SyntaxErrorNamesLineAndColumn) {
    const auto e = parseError("{\n  \"schema_version\": 1,\n  \"name\": \"x\" \"lab\": 3\n}");
    EXPECT_EQ(e.file(), "bad.json");
    ASSERT_TRUE(e.line());
    EXPECT_EQ(*e.line(), 3);
    ASSERT_TRUE(e.column());
    EXPECT_EQ(*e.column(), 15);
    EXPECT_NE(std::string(e.what()).find("bad.json:3:15"), std::string::npos) << e.what();
}

TEST(Scenario, UnknownTopLevelKeyIsAnErrorAtTheKey) {
    const auto e = parseError(
        "{\n  \"schema_version\": 1,\n  \"name\": \"x\",\n  \"lab\": \"fanout\",\n  \"sed\": 4\n}");
    EXPECT_EQ(e.path(), "/sed");
    EXPECT_EQ(e.line(), 5);
    EXPECT_EQ(e.column(), 3);
    EXPECT_NE(e.detail().find("unknown key 'sed'"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("seed"), std::string::npos) << "should list the allowed keys";
}

TEST(Scenario, UnknownKnobIsAnErrorNamingTheKnobs) {
    const auto e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "params": {"requestz": 5}})");
    EXPECT_EQ(e.path(), "/params/requestz");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 14);
    EXPECT_NE(e.detail().find("requests"), std::string::npos) << e.what();
    // A typo gets the suggestion an `expect` figure's typo gets, before the list of every knob.
    EXPECT_EQ(e.detail().rfind("unknown key 'requestz'; did you mean 'requests'? (expected one of: ", 0), 0u)
        << e.what();
}

// A name far from every knob gets no suggestion, only the list.
TEST(Scenario, AnUnknownKnobFarFromAnyGetsNoSuggestion) {
    const auto e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "params": {"zzzzzzzzzzzzzz": 5}})");
    EXPECT_EQ(e.detail().find("did you mean"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("(expected one of: "), std::string::npos) << e.what();
}

TEST(Scenario, WrongTypeSaysExpectedAndFound) {
    const auto e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "params": {"requests": "many"}})");
    EXPECT_EQ(e.path(), "/params/requests");
    // Worded as a number out of range is: the range and its unit, then what was found.
    EXPECT_NE(e.detail().find("expected a number in [1000, 10000000] requests, found string"), std::string::npos)
        << e.what();
    EXPECT_NE(e.detail().find("\"many\""), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 26);
}

TEST(Scenario, OutOfRangeAndFractionalIntegersAreRejected) {
    auto e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout", "params": {"requests": -5}})");
    EXPECT_NE(e.detail().find("expected a number in ["), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("-5"), std::string::npos) << e.what();
    e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout", "params": {"requests": 1500.5}})");
    EXPECT_NE(e.detail().find("whole number"), std::string::npos) << e.what();
}

TEST(Scenario, MissingAndUnknownLab) {
    auto e = parseError(R"({"schema_version": 1, "name": "x"})");
    EXPECT_NE(e.detail().find("missing required key 'lab'"), std::string::npos) << e.what();
    e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanot"})");
    EXPECT_EQ(e.path(), "/lab");
    EXPECT_NE(e.detail().find("fanout"), std::string::npos) << "should list the labs: " << e.what();
}

TEST(Scenario, SchemaVersionIsChecked) {
    const auto e = parseError(R"({"schema_version": 2, "name": "x", "lab": "fanout"})");
    EXPECT_EQ(e.path(), "/schema_version");
    EXPECT_NE(e.detail().find("unsupported schema version 2"), std::string::npos);
}

TEST(Scenario, BadNameAndNegativeSeed) {
    auto e = parseError(R"({"schema_version": 1, "name": "Has Space", "lab": "fanout"})");
    EXPECT_EQ(e.path(), "/name");
    e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout", "seed": -1})");
    EXPECT_EQ(e.path(), "/seed");
    EXPECT_NE(e.detail().find("non-negative integer"), std::string::npos);
}

TEST(Scenario, NotAnObject) {
    const auto e = parseError("[1, 2]");
    EXPECT_NE(e.detail().find("expected a JSON object"), std::string::npos);
}

TEST(Scenario, OverridesApplyAndAreValidatedLikeTheFile) {
    const Scenario s = parseScenario(kGood, "good.json", {"params.requests=30000", "seed=9"});
    EXPECT_EQ(s.params.integer("requests"), 30000);
    EXPECT_EQ(s.seed, 9u);
    const auto e = parseError(kGood, {"params.requests=oops"});
    EXPECT_EQ(e.path(), "/params/requests");
    EXPECT_NE(std::string(e.what()).find("--set params.requests"), std::string::npos) << e.what();
    const auto typo = parseError(kGood, {"params.requestz=5"});
    EXPECT_EQ(typo.path(), "/params/requestz");
    const auto malformed = parseError(kGood, {"params.requests"});
    EXPECT_NE(malformed.detail().find("dotted.path=value"), std::string::npos);
    // An empty object merges nothing into an object: refused, not passed over as a reset.
    const auto empty = parseError(kGood, {"params={}"});
    EXPECT_NE(empty.detail().find("{} sets nothing"), std::string::npos) << empty.what();
    // Where nothing was, an empty object is a value like any other (and judged as one).
    EXPECT_EQ(parseError(kGood, {"notes={}"}).path(), "/notes");
}

TEST(Scenario, ExpectationsAreValidated) {
    auto e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "expect": [{"figure": "slow_fraction", "value": 1}]})");
    EXPECT_EQ(e.path(), "/expect/0");
    EXPECT_NE(e.detail().find("tolerance"), std::string::npos);
    e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "expect": [{"figure": "slow_fraction", "at_leest": 1}]})");
    EXPECT_EQ(e.path(), "/expect/0/at_leest");
    e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "expect": [{"figure": "f", "at_least": 1}]})");
    EXPECT_EQ(e.path(), "/expect/0/figure");
    EXPECT_NE(e.detail().find("reports no figure 'f'"), std::string::npos) << e.detail();
}

TEST(Scenario, ExpectationOfAnUnknownFigureIsRefusedBeforeTheRun) {
    const std::string text = R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "params": {"requests": 20000},
  "expect": [{"figure": "no_such_figure", "at_least": 0}]})";
    EXPECT_THROW(parseScenario(text, "x.json"), ScenarioError);
    // A scenario built in code skips the parser: the run still never passes the unknown figure.
    Scenario s = parseScenario(text, "x.json", {"expect=[]"});
    Expectation e;
    e.figure = "no_such_figure";
    e.at_least = 0.0;
    s.expect.push_back(e);
    EXPECT_THROW(runScenario(s), std::logic_error);
}

// The figures a scenario quotes hold for its own knobs. Moved by --set (or in the GUI), they do
// not apply to the run: marked not applicable, naming the knob, neither passing nor failing;
// set back to the file's value, they apply again.
TEST(Scenario, QuotedFiguresDoNotApplyOnceTheKnobsMove) {
    const std::string text = R"({"schema_version": 1, "name": "x", "lab": "fanout",
  "params": {"backends": 20, "requests": 20000},
  "expect": [{"figure": "slow_fraction", "at_least": 0.99, "source": "published: made up"}]})";
    const auto expectChecks = [](const LabResult& r) {
        std::vector<Check> out;
        for (const auto& c : r.checks)
            if (c.source == "published: made up") out.push_back(c);
        return out;
    };
    const LabResult own = runScenario(parseScenario(text, "x.json"));
    ASSERT_EQ(expectChecks(own).size(), 1u);
    EXPECT_TRUE(expectChecks(own)[0].failed());
    EXPECT_FALSE(own.allChecksPass());

    const LabResult moved = runScenario(parseScenario(text, "x.json", {"params.backends=21"}));
    const std::vector<Check> movedChecks = expectChecks(moved);
    ASSERT_EQ(movedChecks.size(), 1u);
    const Check& c = movedChecks[0];
    EXPECT_FALSE(c.applies());
    EXPECT_FALSE(c.failed());
    EXPECT_FALSE(c.passed());
    EXPECT_NE(c.not_applicable.find("backends is 21 here, 20 in the scenario"), std::string::npos)
        << c.not_applicable;
    bool ownChecksPass = true;  // the lab's own checks, which still count
    for (const auto& k : moved.checks)
        if (k.source != "published: made up") ownChecksPass = ownChecksPass && k.pass;
    EXPECT_EQ(moved.allChecksPass(), ownChecksPass);
    EXPECT_EQ(toJson(moved).at("checks").back().at("not_applicable"), c.not_applicable);

    const LabResult same = runScenario(parseScenario(text, "x.json", {"params.backends=20"}));
    EXPECT_TRUE(expectChecks(same)[0].applies());

    // Saved with the moved knobs, the scenario leaves out what no longer applies.
    const Scenario s = parseScenario(text, "x.json", {"params.backends=21"});
    EXPECT_EQ(writeScenarioJson(s).find("expect"), std::string::npos);
    EXPECT_NE(writeScenarioJson(parseScenario(text, "x.json")).find("expect"), std::string::npos);
}

TEST(JsonTextProblem, NestingUpToTheLimitIsFineAndOneLevelMoreIsNot) {
    const auto nested = [](int depth) {
        return std::string(static_cast<std::size_t>(depth), '[') +
               std::string(static_cast<std::size_t>(depth), ']');
    };
    EXPECT_FALSE(findJsonTextProblem(nested(kMaxJsonDepth)));
    const auto p = findJsonTextProblem(nested(kMaxJsonDepth + 1));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->offset, static_cast<std::size_t>(kMaxJsonDepth));
    EXPECT_NE(p->message.find("nested deeper than 64"), std::string::npos);
    // Far deeper input is scanned without recursion.
    EXPECT_TRUE(findJsonTextProblem(nested(1'000'000)));
}

// The parser skips a UTF-8 byte-order mark; the scan must too, or it checks nothing after one.
TEST(JsonTextProblem, AByteOrderMarkIsSkippedAsTheParserSkipsIt) {
    const std::string bom = "\xEF\xBB\xBF";
    const auto deep = findJsonTextProblem(bom + std::string(100, '[') + std::string(100, ']'));
    ASSERT_TRUE(deep);
    EXPECT_EQ(deep->offset, 3u + kMaxJsonDepth);
    const auto twice = findJsonTextProblem(bom + R"({"k": 1, "k": 2})");
    ASSERT_TRUE(twice);
    EXPECT_EQ(twice->pointer, "/k");
    EXPECT_FALSE(findJsonTextProblem(bom + R"({"k": 1})"));
}

TEST(JsonTextProblem, DuplicateKeysNameBothPlacesAndCompareDecodedText) {
    const std::string text = "{\"a\": {\"k\": 1,\n  \"\\u006b\": 2}, \"b\": {\"k\": 3}}";
    const auto p = findJsonTextProblem(text);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->pointer, "/a/k");
    EXPECT_EQ(positionOfOffset(text, p->offset).line, 2);
    EXPECT_NE(p->message.find("first at line 1, column 8"), std::string::npos) << p->message;
    // The same key in two objects is fine, and so are keys that only look alike.
    EXPECT_FALSE(findJsonTextProblem(R"({"a": {"k": 1}, "b": {"k": 1, "K": 2, "k ": 3}})"));
}

TEST(JsonTextProblem, NumbersTooLargeForADoubleAreFoundWithTheirPath) {
    const auto p = findJsonTextProblem(R"({"x": [1, 2, -1e999]})");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->pointer, "/x/2");
    EXPECT_EQ(p->offset, 13u);
    EXPECT_FALSE(findJsonTextProblem(R"({"x": [1e308, 1e-999, 123456789012345678901234567890]})"));
}

// "\ud800" is JSON by its grammar but names no character (the parser refuses it, without saying
// why): found with its path, in a value or a key; a pair is one character.
TEST(JsonTextProblem, ALoneSurrogateEscapeIsFoundWithItsPath) {
    const auto p = findJsonTextProblem(R"({"x": ["ok", "a\uD800b"]})");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->pointer, "/x/1");
    EXPECT_EQ(p->offset, 15u);
    EXPECT_EQ(p->message, R"(a lone UTF-16 surrogate \uD800 is not a character)");
    const auto low = findJsonTextProblem(R"({"\udc00": 1})");
    ASSERT_TRUE(low);
    EXPECT_EQ(low->message, R"(a lone UTF-16 surrogate \udc00 is not a character)");
    EXPECT_FALSE(findJsonTextProblem(R"({"x": "\ud83c\udf0a", "\ud83d\ude00": 1})"));
    const auto reversed = findJsonTextProblem(R"(["\udf0a\ud83c"])");
    ASSERT_TRUE(reversed);
    EXPECT_EQ(reversed->offset, 2u);
}

TEST(JsonTextProblem, SyntaxErrorsAreLeftToTheParser) {
    for (const char* text : {"{", "[1,", "{\"a\" 1}", "{\"a\":1}}", "\"open", "", "nul"})
        EXPECT_FALSE(findJsonTextProblem(text)) << text;
}

TEST(Scenario, AnObjectOverrideMergesIntoTheObjectItReplaces) {
    const std::string text =
        R"({"schema_version": 1, "name": "x", "lab": "fanout", "params": {"backends": 50, "requests": 2000}})";
    const Scenario s = parseScenario(text, "x.json", {R"(params={"threshold_ms": 250})"});
    EXPECT_EQ(s.params.integer("backends"), 50);
    EXPECT_EQ(s.params.integer64("requests"), 2000);
    EXPECT_EQ(s.params.real("threshold_ms"), 250);
}

// Two overrides from one option that set one value: the last used to win without a word.
// Refused, naming the value and both overrides: the same path, one within the other, or a
// member of an object one of them merges. Overrides from different options layer (compare's
// --b-set over --set), and an object's other members merge as before.
TEST(Scenario, TwoOverridesOfOneValueFromOneOptionAreRefused) {
    const std::string text = R"({"schema_version": 1, "name": "x", "lab": "fanout"})";
    for (const auto& [first, second, value] :
         std::vector<std::array<std::string, 3>>{
             {"params.backends=5", "params.backends=6", "params.backends"},
             {"params.backends=5", "params.backends=5", "params.backends"},
             {R"(params={"backends": 5})", "params.backends=6", "params.backends"},
             {"params.backends=5", R"(params={"backends": 6, "requests": 2000})", "params.backends"},
             {R"(expect=[{"figure": "slow_fraction"}])", "expect.0.figure=p99_ms", "expect"},
             {"params.backends=5", "params=3", "params"},
             {"seed=3", "seed=4", "seed"}}) {
        const ScenarioError e = parseError(text, {"params.requests=1000", first, second});
        EXPECT_EQ(std::string(e.what()), "--set " + second + ": " + value + " is already set by --set " +
                                             first + ": give it once (else the last value would win "
                                             "without a word)");
    }
    const Scenario s = parseScenario(text, "x.json", {"params.backends=5", "params.backends=6"},
                                     {"--set", "--b-set"});
    EXPECT_EQ(s.params.integer("backends"), 6);
    EXPECT_THROW(parseScenario(text, "x.json", {"params.backends=5", "params.backends=6"},
                               {"--b-set", "--b-set"}),
                 ScenarioError);
    const Scenario merged =
        parseScenario(text, "x.json", {R"(params={"backends": 5})", "params.requests=1000"});
    EXPECT_EQ(merged.params.integer("backends"), 5);
    EXPECT_EQ(merged.params.integer64("requests"), 1000);
}

TEST(Scenario, OverridePathsWithEmptyComponentsAreRejected) {
    const std::string text = R"({"schema_version": 1, "name": "x", "lab": "fanout"})";
    for (const char* o : {"params.=5", ".params=5", "params..backends=5"}) {
        const ScenarioError e = parseError(text, {o});
        EXPECT_NE(std::string(e.what()).find("empty component"), std::string::npos) << e.what();
    }
}

TEST(Scenario, OverridesThatAreNotUtf8AreRejectedBeforeTheyReachAnyJson) {
    const std::string text = R"({"schema_version": 1, "name": "x", "lab": "fanout"})";
    // Truncated, stray, overlong (C0 90), a surrogate (ED A0 80), past U+10FFFF (F4 90 80 80).
    for (const char* o : {"seed=\xff", "notes=\xc3", "par\xe2ms.backends=5", "notes=a\xc0\x90",
                          "notes=\xed\xa0\x80", "notes=\xf4\x90\x80\x80"}) {
        const ScenarioError e = parseError(text, {o});
        EXPECT_NE(std::string(e.what()).find("not valid UTF-8"), std::string::npos) << e.what();
    }
    const std::string text2 = R"({"schema_version": 1, "name": "x", "lab": "fanout"})";
    EXPECT_EQ(parseScenario(text2, "x.json", {"notes=caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"}).notes,
              "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

// A timeline changed by --set is a what-if as moved knobs are: the figures the file quotes were
// measured with its own timeline, so they are marked not applicable, whichever event moved or
// when the timeline is gone; their names are checked against the file's own timeline.
TEST(Scenario, QuotedFiguresDoNotApplyOnceTheTimelineMoves) {
    const std::string file = std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/july-v3.json";
    const std::string text = readScenarioText(file);
    const Scenario own = parseScenario(text, file);
    ASSERT_FALSE(own.expect.empty());
    for (const char* o : {"timeline.7.set.standby_cpus=0", "timeline.5.fault.share=0.1", "timeline=[]"}) {
        const Scenario s = parseScenario(text, file, {o});
        EXPECT_FALSE(s.timeline == own.timeline) << o;
        LabResult r;  // no figures: checks that do not apply need none
        ASSERT_NO_THROW(appendExpectationChecks(s, r)) << o;
        ASSERT_FALSE(r.checks.empty());
        for (const Check& c : r.checks)
            EXPECT_NE(c.not_applicable.find("the timeline differs"), std::string::npos)
                << o << ": " << c.not_applicable;
        EXPECT_EQ(writeScenarioJson(s).find("\"expect\""), std::string::npos) << o;
    }
    // An override that leaves the timeline as the file has it changes nothing: the figures apply.
    // Nor does a label, which names an event on the charts and changes nothing in the run.
    for (const char* o : {"timeline.7.set.standby_cpus=69", "timeline.7.label=standby on",
                          "timeline.5.label=zone a lost", "timeline.6.label=SEV-1"}) {
        const Scenario same = parseScenario(text, file, {o});
        LabResult r;
        EXPECT_THROW(appendExpectationChecks(same, r), std::logic_error) << o;  // they need the figures
        EXPECT_NE(writeScenarioJson(same).find("\"expect\""), std::string::npos) << o;
        // Written and read back, it is the scenario it was, figures and all.
        EXPECT_TRUE(parseScenario(writeScenarioJson(same), file) == same) << o;
    }
    // A label changed beside a moved event: the timeline differs at the moved one.
    const Scenario both = parseScenario(text, file, {"timeline.5.label=zone a lost",
                                                     "timeline.7.set.standby_cpus=0"});
    LabResult r;
    ASSERT_NO_THROW(appendExpectationChecks(both, r));
    ASSERT_FALSE(r.checks.empty());
    EXPECT_NE(r.checks[0].not_applicable.find("the event at /timeline/7 differs"), std::string::npos)
        << r.checks[0].not_applicable;
}

// Writing a scenario over a file keeps the file's published figures only when it writes the same
// ones for the same knobs and timeline: a moved knob or a moved event loses them (the GUI asks
// first), and so does another scenario's copy written over it.
TEST(Scenario, KeepsTheFilesFiguresOnlyWithTheirKnobsAndTimeline) {
    const std::string file = std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/july-v3.json";
    const std::string text = readScenarioText(file);
    const Scenario there = parseScenario(text, file);
    ASSERT_FALSE(there.expect.empty());
    EXPECT_TRUE(keepsExpectationsOf(there, there));
    EXPECT_TRUE(keepsExpectationsOf(parseScenario(text, file, {"timeline.7.set.standby_cpus=69"}),
                                    there))
        << "an override that changes nothing";
    EXPECT_TRUE(keepsExpectationsOf(parseScenario(text, file, {"timeline.7.label=standby on"}),
                                    there))
        << "a new label";
    EXPECT_FALSE(keepsExpectationsOf(parseScenario(text, file, {"timeline.7.set.standby_cpus=0"}),
                                     there))
        << "a moved event";
    Scenario knobs = there;
    knobs.params.set("hedge_delay_ms", there.params.real("hedge_delay_ms") + 1);
    EXPECT_FALSE(keepsExpectationsOf(knobs, there)) << "a moved knob";
    const std::string other = std::string(TAILLAB_SOURCE_DIR) + "/scenarios/incidents/july-v4.json";
    EXPECT_FALSE(keepsExpectationsOf(loadScenarioFile(other), there)) << "another scenario";
    Scenario none = there;
    none.expect.clear();
    EXPECT_TRUE(keepsExpectationsOf(there, none)) << "nothing published to lose";
}

// The parser takes a NUL byte for the end of the text: whatever follows one would be dropped
// without a word. A NUL anywhere is an error at its own line and column.
TEST(Scenario, ANulByteAnywhereIsAnErrorAtItsPosition) {
    const std::string good =
        R"({"schema_version": 1, "name": "x", "lab": "fanout", "params": {"requests": 1000}})";
    const std::string nul(1, '\0');
    ScenarioError e = parseError(good + "\n  " + nul + R"( {"garbage": [)");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 3);
    EXPECT_NE(e.detail().find("NUL byte"), std::string::npos) << e.what();
    e = parseError(good + nul);
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.column(), static_cast<int>(good.size()) + 1);
    e = parseError(R"({"schema_version": 1, "name": "x", "lab": "fanout", "notes": "a)" + nul + "\"}");
    EXPECT_EQ(e.column(), 64);
    EXPECT_NE(e.detail().find("NUL byte"), std::string::npos) << e.what();
}

// A file saved as UTF-16 is named as such at its start, with or without its byte-order mark,
// in either byte order; not as a binary file's NUL byte.
TEST(Scenario, UTF16TextIsNamedAsSuch) {
    const std::string ascii = R"({"schema_version": 1, "name": "x", "lab": "fanout"})";
    auto utf16 = [&](bool little, std::string mark) {
        for (const char c : ascii) {
            if (!little) mark.push_back('\0');
            mark.push_back(c);
            if (little) mark.push_back('\0');
        }
        return mark;
    };
    for (const std::string& text : {utf16(true, "\xFF\xFE"), utf16(false, "\xFE\xFF"), utf16(true, ""),
                                    utf16(false, "")}) {
        const ScenarioError e = parseError(text);
        EXPECT_EQ(e.line(), 1);
        EXPECT_EQ(e.column(), 1);
        EXPECT_NE(e.detail().find("UTF-16"), std::string::npos) << e.what();
    }
}

// A UTF-8 byte-order mark is not part of the text a person sees: every error (a value's, a key's,
// a duplicate key's, a syntax error's) is where it is without one.
TEST(Scenario, AByteOrderMarkMovesNoErrorLocation) {
    const std::string bom = "\xEF\xBB\xBF";
    for (const std::string text : {
             R"({"schema_version": 1, "name": "x", "lab": "fanout", "params": {"backends": "many"}})",
             R"({"schema_version": 1, "name": "x", "lab": "fanout", "params": {"bogus": 1}})",
             R"({"schema_version": 1, "name": "x", "name": "y", "lab": "fanout"})",
             "{\"schema_version\": 1,\n \"name\": \"x\", \"name\": \"y\", \"lab\": \"fanout\"}",
             R"({"schema_version": 1, "name": "x" "lab": "fanout"})"}) {
        const ScenarioError plain = parseError(text), marked = parseError(bom + text);
        ASSERT_TRUE(plain.line()) << plain.what();
        EXPECT_EQ(marked.line(), plain.line()) << marked.what();
        EXPECT_EQ(marked.column(), plain.column()) << marked.what();
        EXPECT_EQ(marked.detail(), plain.detail());
    }
}

// JSON takes a carriage return for white space, as the scan and the parser do: a file with
// old-Mac line ends (CR alone) is valid, and its lines are counted as an editor shows them. A
// CR-LF pair is one line end.
TEST(Scenario, ACarriageReturnAloneEndsALine) {
    const std::string lines[] = {"{", R"(  "schema_version": 1,)", R"(  "name": "x",)",
                                 R"(  "lab": "fanout",)", R"(  "params": {"bogus": 1})", "}"};
    for (const std::string eol : {"\n", "\r", "\r\n"}) {
        std::string text;
        for (const std::string& l : lines) text += l + eol;
        const ScenarioError e = parseError(text);
        EXPECT_EQ(e.line(), 5) << e.what();
        EXPECT_EQ(e.column(), 14) << e.what();
        const ScenarioError twice = parseError("{\"a\": 1," + eol + " \"a\": 2}");
        EXPECT_EQ(twice.line(), 2) << twice.what();
        EXPECT_EQ(twice.column(), 2) << twice.what();
    }
}

// A column counts characters, as an editor's cursor does, not bytes: the same mistake after a
// two-byte, a three-byte and a four-byte character is at the same column as after an ASCII one.
TEST(Scenario, AColumnCountsCharactersNotBytes) {
    const auto at = [](const std::string& label) {
        return parseError(R"({"schema_version": 1, "name": "x", "title": ")" + label +
                          R"(", "lab": "fanout", "params": {"bogus": 1}})");
    };
    const ScenarioError ascii = at("ab");
    ASSERT_TRUE(ascii.column()) << ascii.what();
    for (const std::string label : {"\xC3\xBC" "b", "\xE6\x9D\xB1" "b", "\xF0\x9F\x98\x80" "b"}) {
        const ScenarioError e = at(label);
        EXPECT_EQ(e.line(), ascii.line()) << e.what();
        EXPECT_EQ(e.column(), ascii.column()) << e.what();
    }
    const std::string text = "{\"n\": \"\xC3\xBC\xC3\xBC\",\n \"\xE6\x9D\xB1\": 1}";
    const auto key = locateJson(text, nlohmann::json::json_pointer("/\xE6\x9D\xB1"), LocateTarget::Key);
    ASSERT_TRUE(key);
    EXPECT_EQ(key->line, 2);
    EXPECT_EQ(key->column, 2);
    EXPECT_EQ(positionOfOffset(text, text.find(',')).column, 11);  // after {"n": "üü", 10 characters
}

TEST(JsonLocate, FindsNestedValuesAndArrayElements) {
    const std::string text = "{\n \"a\": {\"b\": [10, {\"c\": true}]},\n \"d\": 1\n}";
    auto p = locateJson(text, nlohmann::json::json_pointer("/a/b/1/c"));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->line, 2);
    EXPECT_EQ(p->column, 24);
    p = locateJson(text, nlohmann::json::json_pointer("/d"), LocateTarget::Key);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->line, 3);
    EXPECT_EQ(p->column, 2);
    EXPECT_FALSE(locateJson(text, nlohmann::json::json_pointer("/zz")));
}

}  // namespace
}  // namespace taillab
