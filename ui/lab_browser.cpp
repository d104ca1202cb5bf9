#include "lab_browser.h"

#include <QHeaderView>
#include <QSignalBlocker>

#include "table_widgets.h"

namespace taillab::ui {
namespace {

constexpr int kEntryRole = Qt::UserRole + 1;
constexpr int kLabRole = Qt::UserRole + 2;

const CatalogEntry* entryOf(const QTreeWidgetItem* item) {
    if (!item) return nullptr;
    return static_cast<const CatalogEntry*>(item->data(0, kEntryRole).value<const void*>());
}

}  // namespace

QString LabBrowser::entryLabel(const QString& labTitle, const QString& scenarioTitle,
                               const QString& name) {
    if (scenarioTitle.isEmpty()) return name;
    // Under its lab's row, "Fan-out amplification: 100 backends, ..." need not repeat the lab.
    const QString prefix = labTitle + QStringLiteral(": ");
    if (!scenarioTitle.startsWith(prefix) || scenarioTitle.size() == prefix.size())
        return scenarioTitle;
    QString rest = scenarioTitle.mid(prefix.size());
    rest[0] = rest[0].toUpper();
    return rest;
}

LabBrowser::LabBrowser(QWidget* parent) : QTreeWidget(parent) {
    setObjectName("labBrowser");
    setHeaderLabel(tr("Labs and scenarios"));
    setRootIsDecorated(true);
    setUniformRowHeights(true);
    setAnimated(true);
    setIndentation(16);
    drawCellTones(this);  // a scenario that does not load, in the theme's fail colour
    connect(this, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* current, QTreeWidgetItem*) { onCurrentItemChanged(current); });
}

void LabBrowser::setCatalog(const LabCatalog* catalog) {
    const QSignalBlocker block(this);
    clear();
    catalog_ = catalog;
    if (!catalog) return;
    int number = 0;
    for (const CatalogLab& lab : catalog->labs()) {
        auto* labItem = new QTreeWidgetItem(this);
        ++number;
        labItem->setText(0, number == 1 ? tr("%1. %2 (start here)")
                                              .arg(number)
                                              .arg(QString::fromStdString(lab.lab->title()))
                                        : tr("%1. %2").arg(number).arg(
                                              QString::fromStdString(lab.lab->title())));
        labItem->setToolTip(0, QString::fromStdString(lab.lab->summary()));
        labItem->setData(0, kLabRole, QString::fromStdString(lab.lab->id()));
        QFont f = labItem->font(0);
        f.setBold(true);
        labItem->setFont(0, f);
        for (const CatalogEntry& entry : lab.entries) {
            auto* item = new QTreeWidgetItem(labItem);
            item->setData(0, kEntryRole, QVariant::fromValue<const void*>(&entry));
            if (!entry.error.empty()) {
                item->setText(0,
                              QString::fromStdString(entry.file).section('/', -1) + tr(" (error)"));
                item->setToolTip(0, QString::fromStdString(entry.error));
                item->setData(0, kCellToneRole, static_cast<int>(CellTone::Fail));
                continue;
            }
            const Scenario& s = entry.scenario;
            QString text = entryLabel(QString::fromStdString(lab.lab->title()),
                                      QString::fromStdString(s.title),
                                      QString::fromStdString(s.name));
            if (entry.builtIn) text = tr("%1 (defaults)").arg(text);
            item->setText(0, text);
            item->setToolTip(
                0, QString::fromStdString(s.title) + "\n" +
                       (entry.file.empty() ? tr("built-in") : QString::fromStdString(entry.file)));
        }
        labItem->setExpanded(true);
    }
}

bool LabBrowser::selectLab(const QString& labId) {
    if (!catalog_) return false;
    const CatalogEntry* entry = catalog_->defaultEntry(labId.toStdString());
    QTreeWidgetItem* item = itemFor(entry);
    if (!item) return false;
    if (currentItem() == item) {
        emit entrySelected(entry);
    } else {
        setCurrentItem(item);
    }
    scrollToItem(item);
    return true;
}

void LabBrowser::setCurrentEntry(const CatalogEntry* entry) {
    const QSignalBlocker block(this);
    QTreeWidgetItem* item = itemFor(entry);
    setCurrentItem(item);
    if (item) scrollToItem(item);
}

QTreeWidgetItem* LabBrowser::itemFor(const CatalogEntry* entry) const {
    if (!entry) return nullptr;
    for (int i = 0; i < topLevelItemCount(); ++i) {
        QTreeWidgetItem* lab = topLevelItem(i);
        for (int j = 0; j < lab->childCount(); ++j)
            if (entryOf(lab->child(j)) == entry) return lab->child(j);
    }
    return nullptr;
}

void LabBrowser::onCurrentItemChanged(QTreeWidgetItem* current) {
    if (!current || !catalog_) return;
    if (const CatalogEntry* entry = entryOf(current)) {
        emit entrySelected(entry);
        return;
    }
    // A lab row: go to its default scenario.
    selectLab(current->data(0, kLabRole).toString());
}

}  // namespace taillab::ui
