// Scenario timelines: times, knob changes, faults, order and labels. Every mistake is one error
// naming the file, the line and column of what is wrong, and its JSON path.
#include <gtest/gtest.h>

#include "timeline_support.h"

namespace taillab {
namespace {

using namespace test;

TEST(TimelineTimes, NumbersAreSecondsSinceTheStart) {
    EXPECT_EQ(only(R"({"at": 0, )" + kDown + "}").at_s, 0);
    EXPECT_EQ(only(R"({"at": 3600.25, )" + kDown + "}").at_s, 3600.25);
}

TEST(TimelineTimes, WeekdayTimesCountFromTheFirstDayOfTheRun) {
    EXPECT_EQ(only(R"({"at": "Tue 14:22", )" + kDown + "}").at_s, 86400 + 14 * 3600 + 22 * 60);
    EXPECT_EQ(only(R"({"at": "Mon 02:30:15", )" + kDown + "}").at_s, 2 * 3600 + 30 * 60 + 15);
    EXPECT_EQ(only(R"({"at": "Sun 23:59:59.5", )" + kDown + "}").at_s, 7 * 86400 - 0.5);
    // A run from Wednesday: Tuesday is its last day, Monday the one before.
    EXPECT_EQ(only(R"({"at": "Tue 10:00", )" + kDown + "}", R"({"start_day": "Wed"})").at_s,
              6 * 86400 + 36000);
    EXPECT_EQ(only(R"({"at": "Wed 00:00", )" + kDown + "}", R"({"start_day": "Wed"})").at_s, 0);
}

TEST(TimelineTimes, AShortRunFromFridayCoversFridayToSunday) {
    const std::string params = R"({"start_day": "Fri", "days": 3})";
    EXPECT_EQ(only(R"({"at": "Fri 00:00", )" + kDown + "}", params).at_s, 0);
    EXPECT_EQ(only(R"({"at": "Sat 01:00", )" + kDown + "}", params).at_s, 86400 + 3600);
    EXPECT_EQ(only(R"({"at": "Sun 23:59:59.999", )" + kDown + "}", params).at_s, 259199.999);
    expectError(R"({"at": "Mon 00:00", )" + kDown + "}", "\"Mon", "/timeline/0/at",
                "Mon is not within the run (the run covers Fri, Sat, Sun)", params);
    expectError(R"({"at": 259200, )" + kDown + "}", "259200", "/timeline/0/at",
                "expected seconds since the run's start in [0, 259200) (the run covers Fri, Sat, "
                "Sun), found 259200",
                params);
}

TEST(TimelineTimes, FractionsReadAsOneDecimalNumber) {
    EXPECT_EQ(only(R"({"at": "Mon 00:00:00.1", )" + kDown + "}").at_s, 0.1);
    EXPECT_EQ(only(R"({"at": "Tue 00:00:01.3", )" + kDown + "}").at_s, 86401.3);
    EXPECT_EQ(only(R"({"at": "Wed 13:07:42.123", )" + kDown + "}").at_s, 2 * 86400 + 47262.123);
    EXPECT_EQ(only(R"({"at": "Wed 13:07:42.05", )" + kDown + "}").at_s, 2 * 86400 + 47262.05);
}

// .fff is milliseconds: a fourth digit is refused where it is written, not rounded away.
TEST(TimelineTimes, AFractionOfMoreThanThreeDigitsIsAnError) {
    for (const char* fine : {"Mon 00:00:00.0001", "Wed 13:07:42.123456789", "Tue 14:22:05.1234567890"}) {
        SCOPED_TRACE(fine);
        expectError(R"({"at": ")" + std::string(fine) + R"(", )" + kDown + "}", std::string("\"") + fine,
                    "/timeline/0/at",
                    "a time's fraction of a second takes 1 to 3 digits (milliseconds: \"Ddd HH:MM:SS.fff\")");
    }
    expectError(R"({"at": 0, "until": "Mon 00:00:01.0001", )" + kDown + "}", "\"Mon", "/timeline/0/until",
                "found 4 in string \"Mon 00:00:01.0001\"; write seconds since the run's start as a number");
}

TEST(TimelineTimes, MalformedTimesAreErrors) {
    for (const char* bad :
         {"Tue 14", "tue 14:22", "Tue 24:00", "Tue 14:60", "Tue 4:22", "Tue 14:22:5",
          "Tue 14:22:60", "Tue 14:22:05.", "Tue 14:22:05.1x", "Tue 14:22 ", "Tuesday 14:22",
          "Tue 14:22:05,5"}) {
        SCOPED_TRACE(bad);
        expectError(R"({"at": ")" + std::string(bad) + R"(", )" + kDown + "}",
                    std::string("\"") + bad, "/timeline/0/at",
                    "expected \"Ddd HH:MM\", \"Ddd HH:MM:SS\" or \"Ddd HH:MM:SS.fff\"");
    }
    expectError(R"({"at": true, )" + kDown + "}", "true", "/timeline/0/at",
                "(a number) or a time such as \"Tue 14:22\", found boolean true");
    expectError(R"({"at": -1, )" + kDown + "}", "-1", "/timeline/0/at", "in [0, 604800)");
    expectError(R"({"at": 604800, )" + kDown + "}", "604800", "/timeline/0/at", "found 604800");
    expectError("{" + kDown + "}", "{", "/timeline/0", "missing required key 'at'");
}

TEST(TimelineTimes, UntilEndsAFaultAndMustComeAfterAt) {
    const TimelineEvent ev = only(R"({"at": 3600, "until": "Mon 02:30:15", )" + kDown + "}");
    EXPECT_EQ(ev.at_s, 3600);
    EXPECT_EQ(ev.until_s, 9015);
    EXPECT_FALSE(only(R"({"at": 3600, )" + kDown + "}").until_s);
    expectError(R"({"at": "Mon 03:00", "until": 3600, )" + kDown + "}", "3600", "/timeline/0/until",
                "expected a time after \"at\" (Mon 03:00, 10800 s), found Mon 01:00, 3600 s");
    expectError(R"({"at": 3600, "until": 3600, )" + kDown + "}", "3600, \"fault",
                "/timeline/0/until", "expected a time after \"at\"");
    expectError(R"({"at": 3600, "until": 604800, )" + kDown + "}", "604800", "/timeline/0/until",
                "[0, 604800)");
    expectError(R"({"at": 3600, "until": 7200, "set": {"hedge_delay_ms": 300}})", "\"until\"",
                "/timeline/0/until", "\"until\" applies to faults and phases only");
}

TEST(TimelineSet, KnobChangesAreStoredAsParamsStoresThem) {
    const TimelineEvent ev = only(
        R"({"at": 0, "set": {"hedge_mode": "fixed", "hedge_delay_ms": 300, "breakers": false}})");
    ASSERT_EQ(ev.set.size(), 3u);
    EXPECT_EQ(ev.set[0], (KnobSetting{"breakers", 0}));
    EXPECT_EQ(ev.set[1], (KnobSetting{"hedge_delay_ms", 300}));
    EXPECT_EQ(ev.set[2], (KnobSetting{"hedge_mode", 1}));  // index of "fixed"
    EXPECT_FALSE(ev.fault);
}

// The same value under "params" and under "set" gets the same message.
TEST(TimelineSet, ValuesAreValidatedExactlyAsParams) {
    for (const char* value :
         {R"("hedge_delay_ms": "soon")", R"("hedge_delay_ms": 9000)", R"("hedge_mode": "fxed")",
          R"("breakers": 1)", R"("breaker_min_samples": 2.5)"}) {
        SCOPED_TRACE(value);
        std::string paramsDetail;
        try {
            parseScenario(R"({"schema_version": 1, "name": "x", "lab": "gateway", "params": {)" +
                              std::string(value) + "}}",
                          "p.json");
        } catch (const ScenarioError& e) {
            paramsDetail = e.detail();
        }
        ASSERT_FALSE(paramsDetail.empty());
        const std::string event = R"({"at": 0, "set": {)" + std::string(value) + "}}";
        const std::string key = std::string(value).substr(1, std::string(value).find('"', 1) - 1);
        expectError(event, std::string(value).substr(std::string(value).find(": ") + 2),
                    "/timeline/0/set/" + key, paramsDetail);
    }
}

TEST(TimelineSet, UnknownKnobIsAnErrorAtItsKey) {
    expectError(R"({"at": 0, "set": {"hedge_delay": 300}})", "\"hedge_delay\"",
                "/timeline/0/set/hedge_delay",
                "unknown key 'hedge_delay'; did you mean 'hedge_delay_ms'? (expected one of: days, start_day");
}

TEST(TimelineSet, KnobsThatShapeTheRunCannotChangeDuringIt) {
    for (const char* knob :
         {"days", "start_day", "customers", "instances", "l1_entries", "window_s", "probes",
          "egress_ips", "load_multiplier", "agent_share", "unknown_key_rate"}) {
        SCOPED_TRACE(knob);
        expectError(R"({"at": 0, "set": {")" + std::string(knob) + R"(": 1}})",
                    std::string("\"") + knob, "/timeline/0/set/" + std::string(knob),
                    "knob '" + std::string(knob) + "' cannot change during a run");
    }
}

// A change whose knobs, over those in force when it comes, contradict each other is refused at
// its "set" when the scenario is read, before any run starts (a sweep's later points included).
// Each knob alone is in range; it used to be found only when the run reached the event.
TEST(TimelineSet, AChangeThatContradictsTheKnobsBeforeItIsAnErrorAtItsSet) {
    expectError(R"({"at": 3600, "set": {"hedge_clamp_min_ms": 500}})", "\"set\"", "/timeline/0/set",
                "hedge_clamp_max_ms (450 ms) is below hedge_clamp_min_ms (500 ms)");
    // The second event meets the first one's knobs, not the scenario's.
    expectError({R"({"at": 3600, "set": {"hedge_clamp_min_ms": 300}})",
                 R"({"at": 7200, "set": {"hedge_clamp_max_ms": 250}})"},
                1, "\"set\"", "/timeline/1/set",
                "hedge_clamp_max_ms (250 ms) is below hedge_clamp_min_ms (300 ms)");
    EXPECT_EQ(timeline({R"({"at": 3600, "set": {"hedge_clamp_min_ms": 300}})",
                        R"({"at": 7200, "set": {"hedge_clamp_max_ms": 350}})"})
                  .events.size(),
              2u);
}

// A knob change that leaves the run as it would be without it: its knob already has the value,
// or no knob in force from then until it is set again uses it. The command line notes each;
// the run takes them (a timeline saved from the GUI may hold one).
TEST(TimelineSet, ChangesThatChangeNothingAreFoundWithTheirPathAndWhy) {
    auto found = [](const std::vector<std::string>& events, const std::string& params = "{}") {
        const Scenario s = parseScenario(gateway(events, params), "week.json");
        std::vector<std::string> out;
        for (const IneffectiveSetting& i : ineffectiveSettings(s.params, s.timeline))
            out.push_back(i.path + ": " + i.why);
        return out;
    };
    using Lines = std::vector<std::string>;
    const std::string unused =
        "hedge_delay_ms is not used while Hedge delay is rolling p90 per (region, engine)";
    // A fixed delay while the delay is a rolling percentile's, to the end of the run.
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_delay_ms": 100}})"}),
              (Lines{"/timeline/0/set/hedge_delay_ms: " + unused}));
    // ... or until it is set again, in time order whatever the file's order.
    EXPECT_EQ(found({R"({"at": 9000, "set": {"hedge_mode": "fixed", "hedge_delay_ms": 200}})",
                     R"({"at": 3600, "set": {"hedge_delay_ms": 100}})"}),
              (Lines{"/timeline/1/set/hedge_delay_ms: " + unused}));
    // The value it has: the scenario's, or an earlier change's.
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_mode": "fixed"}})"}, R"({"hedge_mode": "fixed"})"),
              (Lines{"/timeline/0/set/hedge_mode: hedge_mode is already fixed when the event comes"}));
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_mode": "fixed", "hedge_delay_ms": 300}})",
                     R"({"at": 7200, "set": {"hedge_delay_ms": 300, "hedge_budget": 0.1}})"}),
              (Lines{"/timeline/1/set/hedge_delay_ms: hedge_delay_ms is already 300 when the event comes"}));
    // Used: with the mode its own event sets, or one a later event sets before the delay moves
    // again (at the same time included), the change matters.
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_delay_ms": 100, "hedge_mode": "fixed"}})"}), Lines{});
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_delay_ms": 100}})",
                     R"({"at": 9000, "set": {"hedge_mode": "fixed"}})"}),
              Lines{});
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_delay_ms": 100}})",
                     R"({"at": 3600, "set": {"hedge_mode": "fixed"}})"}),
              Lines{});
    EXPECT_EQ(found({R"({"at": 3600, "set": {"hedge_delay_ms": 100}})"}, R"({"hedge_mode": "fixed"})"),
              Lines{});
}

TEST(TimelineSet, AnEventSetsKnobsOrStartsAFault) {
    expectError(R"({"at": 0, "set": {}})", "{}", "/timeline/0/set",
                "expected at least one knob to change");
    expectError(R"({"at": 0, "set": 3})", "3}", "/timeline/0/set",
                "expected an object of knob: value");
    expectError(R"({"at": 0, "set": {"breakers": false}, "fault": {"effect": "down"}})",
                "\"fault\"", "/timeline/0/fault", "either sets knobs, starts a fault or names a phase, one of them");
    expectError(R"({"at": 0, "label": "nothing"})", "{", "/timeline/0",
                "expected \"set\" (knob changes), \"fault\" or \"phase\"");
}

// A phase names a stretch of an incident: an id, optionally an "until"; ids are unique.
// Surges that overlap add their extra traffic, up to what one surge may ask for (x100): beyond,
// a short file would ask for more requests than memory holds. Back to back they do not overlap.
TEST(TimelineSurge, OverlappingSurgesMayAddUpToAHundredfold) {
    const std::string a = R"({"at": 3600, "until": 7200, "fault": {"effect": "surge", "factor": 60}})";
    const std::string b = R"({"at": 5000, "until": 9000, "fault": {"effect": "surge", "factor": 50}})";
    expectError({a, b}, 1, "50}", "/timeline/1/fault/factor",
                "overlapping surges would multiply the traffic by 109 here; surges that overlap may add up "
                "to x100 at most");
    const std::string after = R"({"at": 7200, "until": 9000, "fault": {"effect": "surge", "factor": 100}})";
    EXPECT_EQ(test::timeline({a, after}).events.size(), 2u);
    const std::string thin = R"({"at": 5000, "until": 9000, "fault": {"effect": "surge", "factor": 0.5}})";
    EXPECT_EQ(test::timeline({a, thin, after}).events.size(), 3u);  // a thinning adds nothing
}

// Bounds that keep a run's work in proportion to its file: every phase adds figures.
TEST(TimelineBounds, AtMostTenThousandEventsAndAHundredPhases) {
    std::vector<std::string> phases;
    for (int i = 0; i <= 100; ++i) phases.push_back(R"({"at": )" + std::to_string(60 * i) + R"(, "phase": "p)" +
                                                     std::to_string(i) + R"("})");
    expectError(phases, 100, "\"p100\"", "/timeline/100/phase", "a timeline names at most 100 phases");
    phases.pop_back();
    EXPECT_EQ(test::timeline(phases).events.size(), 100u);
    std::vector<std::string> knobs(10001, R"({"at": 60, "set": {"hedge_budget": 0.1}})");
    try {
        test::timeline(knobs);
        ADD_FAILURE() << "10001 events were accepted";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(e.path(), "/timeline/10000");
        EXPECT_NE(e.detail().find("a timeline holds at most 10000 events; this one holds 10001"), std::string::npos)
            << e.what();
    }
}

TEST(TimelinePhase, APhaseHasAnIdAndEndsAtItsUntilOrTheNextPhase) {
    expectError(R"({"at": 0, "phase": "SEV-1"})", "\"SEV-1\"", "/timeline/0/phase",
                "expected a phase id of 1 to 32 lower-case letters, digits and '_', found string \"SEV-1\"");
    expectError(R"({"at": 0, "phase": 3})", "3}", "/timeline/0/phase", "expected a phase id");
    expectError(R"({"at": 0, "phase": "a", "set": {"breakers": false}})", "\"phase\"",
                "/timeline/0/phase", "either sets knobs, starts a fault or names a phase");
    expectError({R"({"at": 0, "phase": "a"})", R"({"at": 60, "phase": "a"})"}, 1, "\"a\"",
                "/timeline/1/phase", "phase 'a' is already named at /timeline/0");
    const Timeline t = test::timeline({R"({"at": 60, "phase": "calm", "label": "before"})",
                                       R"({"at": 600, "until": 700, "phase": "sev1"})",
                                       R"({"at": 900, "phase": "after"})"});
    ASSERT_EQ(t.events.size(), 3u);
    EXPECT_EQ(t.events[0].phase, "calm");
    EXPECT_EQ(t.events[0].label, "before");
    EXPECT_EQ(t.events[1].label, "sev1");  // the id, without a label
    EXPECT_DOUBLE_EQ(t.phaseEnd(0, 1e6), 600);  // the next phase's start
    EXPECT_DOUBLE_EQ(t.phaseEnd(1, 1e6), 700);  // its until
    EXPECT_DOUBLE_EQ(t.phaseEnd(2, 1e6), 1e6);  // the run's end
    expectError(R"({"at": 60, "until": 30, "phase": "a"})", "30", "/timeline/0/until",
                "expected a time after \"at\"");
}

TEST(TimelineShape, UnknownKeysAndWrongShapesAreErrors) {
    expectError(R"({"at": 0, "lable": "x", "set": {"breakers": false}})", "\"lable\"",
                "/timeline/0/lable",
                "unknown key 'lable'; did you mean 'label'? (expected one of: at, until, set, fault, phase, label)");
    expectError(R"({"at": 0, "fault": {"effect": "down", "targett": {}}})", "\"targett\"",
                "/timeline/0/fault/targett", "unknown key 'targett'");
    expectError(R"({"at": 0, "fault": {"effect": "down", "target": {"engin": "atlas"}}})",
                "\"engin\"", "/timeline/0/fault/target/engin",
                "unknown key 'engin'; did you mean 'engine'? (expected one of: engine, region, provider, zone, "
                "egress_ip)");
    expectError({R"({"at": 0, )" + kDown + "}", "42"}, 1, "42", "/timeline/1",
                "expected an event object (\"at\" with \"set\", \"fault\" or \"phase\"), found number 42");
    try {
        parseScenario(R"({"schema_version": 1, "name": "x", "lab": "gateway", "timeline": {}})",
                      "t.json");
        ADD_FAILURE();
    } catch (const ScenarioError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "t.json:1:66: /timeline: expected an array of events, found object {}");
    }
}

}  // namespace
}  // namespace taillab
