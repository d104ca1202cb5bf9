#include "gateway/gateway_scenario.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gateway_sim/gateway_sim.h"

namespace taillab::ui {

GatewayRunSpec defaultGatewayRun() {
    GatewayRunSpec spec;
    spec.params = Params(gateway::GatewaySim::knobs());
    return spec;
}

GatewayRunSpec loadGatewayRun(const std::string& key, const std::string& scenarioDirectory) {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates{fs::path(key), fs::path(key + ".json")};
    if (!scenarioDirectory.empty()) {
        const fs::path dir(scenarioDirectory);
        for (const fs::path& base : {dir / key, dir / "gateway" / key}) {
            candidates.push_back(base);
            candidates.push_back(fs::path(base.string() + ".json"));
        }
    }
    std::error_code ec;
    fs::path found;
    for (const auto& c : candidates)
        if (fs::is_regular_file(c, ec)) {
            found = c;
            break;
        }
    if (found.empty()) throw std::invalid_argument("no gateway scenario '" + key + "'");
    std::ifstream in(found);
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw std::invalid_argument(found.string() + ": not a JSON object");
    if (doc.contains("lab") && doc["lab"] != "gateway")
        throw std::invalid_argument(found.string() + ": lab is " + doc["lab"].dump() +
                                    ", not \"gateway\"");
    GatewayRunSpec spec = defaultGatewayRun();
    spec.name = doc.value("name", found.stem().string());
    spec.title = doc.value("title", spec.name);
    if (doc.contains("seed")) {
        if (!doc["seed"].is_number_unsigned())
            throw std::invalid_argument(found.string() + ": seed must be a whole number >= 0");
        spec.seed = doc["seed"].get<std::uint64_t>();
    }
    if (doc.contains("params")) {
        if (!doc["params"].is_object())
            throw std::invalid_argument(found.string() + ": params must be an object");
        for (const auto& [k, v] : doc["params"].items()) {
            try {
                spec.params.setJson(k, v);
            } catch (const std::exception& e) {
                throw std::invalid_argument(found.string() + ": params." + k + ": " + e.what());
            }
        }
    }
    return spec;
}

}  // namespace taillab::ui
