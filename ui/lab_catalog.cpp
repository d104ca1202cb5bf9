#include "lab_catalog.h"

#include <algorithm>
#include <filesystem>

namespace taillab::ui {
namespace {

namespace fs = std::filesystem;

// The "lab" field of a scenario file that may not validate, so a broken file is still listed
// under its lab with its error. Read as a scenario is (readScenarioText): a file the reader
// refuses (over kMaxScenarioBytes, not a regular file) has no lab to list it under.
std::string labFieldOf(const std::string& path) {
    std::string text;
    try {
        text = readScenarioText(path);
    } catch (const ScenarioError&) {
        return {};
    }
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_object() && doc.contains("lab") && doc["lab"].is_string())
        return doc["lab"].get<std::string>();
    return {};
}

// A lab's default scenario is the file named after it, with '-' for '_' (labs/hedge-idle.json
// for "hedge_idle").
bool isDefaultFor(const CatalogEntry& e, const std::string& labId) {
    std::string fileName = labId;
    std::replace(fileName.begin(), fileName.end(), '_', '-');
    const std::string stem = fs::path(e.file).stem().string();
    return e.error.empty() && (e.scenario.name == fileName || stem == fileName ||
                               e.scenario.name == labId || stem == labId);
}

}  // namespace

LabCatalog::LabCatalog(std::string scenarioDirectory) : directory_(std::move(scenarioDirectory)) {
    reload();
}

Scenario LabCatalog::builtInScenario(const Lab& lab) {
    Scenario s;
    s.name = lab.id();
    s.title = lab.title();
    s.lab = lab.id();
    s.seed = 1;
    s.params = lab.defaultParams();
    return s;
}

void LabCatalog::reload() {
    labs_.clear();
    for (const auto& lab : allLabs()) labs_.push_back(CatalogLab{lab.get(), {}});

    const std::vector<std::string> files =
        directory_.empty() ? std::vector<std::string>{} : findScenarioFiles(directory_);
    for (const auto& file : files) {
        CatalogEntry entry;
        entry.file = file;
        std::string labId;
        try {
            entry.scenario = loadScenarioFile(file);
            labId = entry.scenario.lab;
        } catch (const std::exception& e) {
            entry.error = e.what();
            labId = labFieldOf(file);
        }
        auto it = std::find_if(labs_.begin(), labs_.end(),
                               [&](const CatalogLab& l) { return l.lab->id() == labId; });
        if (it != labs_.end()) it->entries.push_back(std::move(entry));
    }
    for (auto& l : labs_) {
        const std::string id = l.lab->id();
        // The default scenario, then the other loadable ones, then the broken files.
        auto rank = [&](const CatalogEntry& e) {
            return isDefaultFor(e, id) ? 0 : e.error.empty() ? 1 : 2;
        };
        std::stable_sort(
            l.entries.begin(), l.entries.end(),
            [&](const CatalogEntry& a, const CatalogEntry& b) { return rank(a) < rank(b); });
        const bool anyLoadable = std::any_of(l.entries.begin(), l.entries.end(),
                                             [](const CatalogEntry& e) { return e.error.empty(); });
        if (!anyLoadable) {
            CatalogEntry builtIn;
            builtIn.scenario = builtInScenario(*l.lab);
            builtIn.builtIn = true;
            l.entries.insert(l.entries.begin(), std::move(builtIn));
        }
    }
}

const CatalogLab* LabCatalog::lab(const std::string& labId) const {
    for (const auto& l : labs_)
        if (l.lab->id() == labId) return &l;
    return nullptr;
}

const CatalogEntry* LabCatalog::defaultEntry(const std::string& labId) const {
    const CatalogLab* l = lab(labId);
    if (!l) return nullptr;
    for (const auto& e : l->entries)
        if (e.error.empty()) return &e;
    return nullptr;
}

const CatalogEntry* LabCatalog::find(const std::string& key) const {
    if (key.empty()) return nullptr;
    std::error_code ec;
    const fs::path asPath(key);
    for (const auto& l : labs_) {
        for (const auto& e : l.entries) {
            if (e.file.empty()) continue;
            if (fs::equivalent(e.file, asPath, ec)) return &e;
            fs::path relative = fs::path(e.file).lexically_relative(directory_);
            if (relative == asPath || relative.replace_extension() == asPath) return &e;
        }
    }
    for (const auto& l : labs_)
        for (const auto& e : l.entries)
            if (e.error.empty() && e.scenario.name == key) return &e;
    if (const CatalogEntry* e = defaultEntry(key)) return e;
    // "labs/<id>" with no such file: the lab's default.
    return defaultEntry(asPath.filename().replace_extension().string());
}

}  // namespace taillab::ui
