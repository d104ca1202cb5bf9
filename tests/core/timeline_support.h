// Shared by the timeline tests: a gateway scenario around a list of events, one per line, and an
// assertion that an error names the file, the line and column of a marker, and the JSON path.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace taillab::test {

constexpr int kFirstEventLine = 7;
constexpr int kEventIndent = 4;

// A gateway scenario whose timeline holds `events`, one per line from line kFirstEventLine.
inline std::string gateway(const std::vector<std::string>& events,
                           const std::string& params = "{}") {
    std::string text =
        "{\n"
        "  \"schema_version\": 1,\n"
        "  \"name\": \"week\",\n"
        "  \"lab\": \"gateway\",\n"
        "  \"params\": " +
        params +
        ",\n"
        "  \"timeline\": [\n";
    for (std::size_t i = 0; i < events.size(); ++i)
        text += std::string(kEventIndent, ' ') + events[i] + (i + 1 < events.size() ? ",\n" : "\n");
    return text + "  ]\n}\n";
}

inline Timeline timeline(const std::vector<std::string>& events, const std::string& params = "{}") {
    return parseScenario(gateway(events, params), "week.json").timeline;
}

inline TimelineEvent only(const std::string& event, const std::string& params = "{}") {
    const Timeline t = timeline({event}, params);
    EXPECT_EQ(t.events.size(), 1u);
    return t.events.empty() ? TimelineEvent{} : t.events.front();
}

// Parses a timeline that must fail at `path`; the message must name week.json, the line of event
// `index` and the column where `marker` starts in it, the path, and contain `detail`.
inline void expectError(const std::vector<std::string>& events, std::size_t index,
                        const std::string& marker, const std::string& path,
                        const std::string& detail, const std::string& params = "{}") {
    const std::size_t at = events[index].find(marker);
    ASSERT_NE(at, std::string::npos) << "marker " << marker << " not in " << events[index];
    const int line = kFirstEventLine + static_cast<int>(index);
    const int column = kEventIndent + static_cast<int>(at) + 1;
    try {
        parseScenario(gateway(events, params), "week.json");
        ADD_FAILURE() << "expected an error at " << path << " for " << events[index];
    } catch (const ScenarioError& e) {
        const std::string where =
            "week.json:" + std::to_string(line) + ":" + std::to_string(column) + ": " + path + ": ";
        EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u)
            << "expected " << where << "...\ngot " << e.what();
        EXPECT_EQ(e.path(), path);
        EXPECT_NE(e.detail().find(detail), std::string::npos)
            << "expected '" << detail << "' in " << e.what();
    }
}

inline void expectError(const std::string& event, const std::string& marker,
                        const std::string& path, const std::string& detail,
                        const std::string& params = "{}") {
    expectError(std::vector<std::string>{event}, 0, marker, path, detail, params);
}

inline const std::string kDown = R"("fault": {"effect": "down"})";

}  // namespace taillab::test
