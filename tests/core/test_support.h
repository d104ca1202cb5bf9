// Shared by the core tests: the published figures (tests/data/published-figures.json, a copy of
// the source documents' tables) and the repository's scenario files.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace taillab::test {

inline const nlohmann::json& publishedFigures() {
    static const nlohmann::json j = [] {
        std::ifstream in(std::string(TAILLAB_SOURCE_DIR) + "/tests/data/published-figures.json");
        return nlohmann::json::parse(in);
    }();
    return j;
}

// The node at a dotted path such as "lab_001.hedge_idle_p95.p999_after_ms" (numeric parts index
// arrays), or nullptr when there is none.
inline const nlohmann::json* publishedAt(const std::string& dotted) {
    const nlohmann::json* node = &publishedFigures();
    std::stringstream ss(dotted);
    std::string part;
    while (std::getline(ss, part, '.')) {
        if (node->is_array()) {
            if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
                return nullptr;
            const auto i = std::stoul(part);
            if (i >= node->size()) return nullptr;
            node = &(*node)[i];
        } else if (node->is_object() && node->contains(part)) {
            node = &(*node)[part];
        } else {
            return nullptr;
        }
    }
    return node;
}

inline std::string labScenarioPath(const std::string& name) {
    return std::string(TAILLAB_SOURCE_DIR) + "/scenarios/labs/" + name + ".json";
}

}  // namespace taillab::test
