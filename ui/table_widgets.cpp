#include "table_widgets.h"
#include "palette_colors.h"

#include <QHeaderView>
#include <QStyledItemDelegate>
#include <QTableWidget>

namespace taillab::ui {
namespace {

// Resolves a cell's tone against the palette the view draws with.
class ToneDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

  protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        const std::optional<ToneColors> c = toneColors(index.data(kCellToneRole), option->palette);
        if (!c) return;
        option->palette.setColor(QPalette::Text, c->text);
        if (c->fill.isValid()) option->backgroundBrush = c->fill;
    }
};

}  // namespace

QTableWidget* makeReadOnlyTable(const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    t->horizontalHeader()->setStretchLastSection(false);
    t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    drawCellTones(t);
    return t;
}

void drawCellTones(QAbstractItemView* view) { view->setItemDelegate(new ToneDelegate(view)); }

void setCellTone(QTableWidgetItem* item, CellTone tone, bool filled) {
    item->setData(kCellToneRole, static_cast<int>(tone) | (filled ? kCellToneFilled : 0));
}

std::optional<ToneColors> toneColors(const QVariant& toneData, const QPalette& palette) {
    if (!toneData.isValid()) return std::nullopt;
    const int value = toneData.toInt();
    const bool filled = value & kCellToneFilled;
    switch (static_cast<CellTone>(value & ~kCellToneFilled)) {
        case CellTone::Pass:
            return ToneColors{passColor(palette), filled ? passFill(palette) : QColor()};
        case CellTone::Fail:
            return ToneColors{failColor(palette), filled ? failFill(palette) : QColor()};
        case CellTone::Muted:
            return ToneColors{mutedText(palette), QColor()};
    }
    return std::nullopt;
}

}  // namespace taillab::ui
