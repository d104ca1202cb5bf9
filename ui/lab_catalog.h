// What the lab browser lists: every lab from allLabs(), each with the scenario files (found under
// the scenario directory) whose "lab" field names it, the lab's default scenario first. A lab
// without a scenario file still gets one built-in entry with its default parameters.
#pragma once

#include <string>
#include <vector>

#include "labs/lab.h"
#include "scenario/scenario.h"

namespace taillab::ui {

struct CatalogEntry {
    Scenario scenario;  // valid only when error is empty
    std::string file;   // "" for the built-in default
    std::string error;  // why the file did not load
    bool builtIn = false;
};

struct CatalogLab {
    const Lab* lab = nullptr;
    std::vector<CatalogEntry> entries;  // default first
};

class LabCatalog {
  public:
    LabCatalog() = default;
    explicit LabCatalog(std::string scenarioDirectory);

    // Rescans the scenario directory.
    void reload();
    const std::string& directory() const { return directory_; }
    const std::vector<CatalogLab>& labs() const { return labs_; }
    const CatalogLab* lab(const std::string& labId) const;
    // The first loadable entry of a lab (its default scenario), or null.
    const CatalogEntry* defaultEntry(const std::string& labId) const;
    // Finds by file path, scenario name, path relative to the directory (with or without
    // ".json", e.g. "labs/fanout"), or lab id (its default scenario).
    const CatalogEntry* find(const std::string& key) const;

    static Scenario builtInScenario(const Lab& lab);

  private:
    std::string directory_;
    std::vector<CatalogLab> labs_;
};

}  // namespace taillab::ui
