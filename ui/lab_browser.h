// The lab browser: a tree of labs, numbered in teaching order, each with its scenarios (default
// first) named by their titles. Selecting a lab
// selects its default scenario. Scenario files that failed to load are listed greyed out with
// their error as tooltip.
#pragma once

#include <QTreeWidget>

#include "lab_catalog.h"

namespace taillab::ui {

class LabBrowser : public QTreeWidget {
    Q_OBJECT
  public:
    explicit LabBrowser(QWidget* parent = nullptr);

    void setCatalog(const LabCatalog* catalog);
    // Highlights an entry without emitting entrySelected.
    void setCurrentEntry(const CatalogEntry* entry);
    // Selects the lab's default scenario (emits entrySelected).
    bool selectLab(const QString& labId);

    // What a scenario's row says: its title without the lab's title in front (the row sits
    // under the lab), or its name when it has no title.
    static QString entryLabel(const QString& labTitle, const QString& scenarioTitle,
                              const QString& name);

  signals:
    void entrySelected(const taillab::ui::CatalogEntry* entry);

  private:
    void onCurrentItemChanged(QTreeWidgetItem* current);
    QTreeWidgetItem* itemFor(const CatalogEntry* entry) const;

    const LabCatalog* catalog_ = nullptr;
};

}  // namespace taillab::ui
