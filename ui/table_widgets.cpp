#include "table_widgets.h"
#include "palette_colors.h"

#include <QEvent>
#include <QHeaderView>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QTimer>
#include <algorithm>

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

// keepColumnWhole's work: refits the column, once per event-loop turn, whenever its cells, the
// other columns or the viewport change.
class WholeColumn : public QObject {
    // A text longer than this share of the viewport wraps (when the room left is shorter).
    static constexpr double kWrapShare = 0.4;

  public:
    WholeColumn(QTableWidget* table, int column)
        : QObject(table), table_(table), viewport_(table->viewport()), column_(column) {
        timer_.setSingleShot(true);
        timer_.setInterval(0);
        connect(&timer_, &QTimer::timeout, this, &WholeColumn::fit);
        QAbstractItemModel* model = table->model();
        for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved,
                                  &QAbstractItemModel::columnsInserted, &QAbstractItemModel::columnsRemoved})
            connect(model, signal, this, &WholeColumn::schedule);
        connect(model, &QAbstractItemModel::dataChanged, this, &WholeColumn::schedule);
        connect(model, &QAbstractItemModel::headerDataChanged, this, &WholeColumn::schedule);
        connect(model, &QAbstractItemModel::modelReset, this, &WholeColumn::schedule);
        connect(table->horizontalHeader(), &QHeaderView::sectionResized, this,
                [this](int section) { if (section != column_) schedule(); });
        table->viewport()->installEventFilter(this);
        table->installEventFilter(this);
        table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Fixed);
        table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
        table->setWordWrap(true);  // the other columns are as wide as their text: only this one wraps
        schedule();
    }

  protected:
    // Compares pointers only: the viewport's events also arrive while the table is being
    // destroyed, when it is no longer a QTableWidget to call.
    bool eventFilter(QObject* watched, QEvent* event) override {
        const QEvent::Type t = event->type();
        if ((watched == viewport_ && t == QEvent::Resize) ||
            (watched == table_ && (t == QEvent::FontChange || t == QEvent::StyleChange || t == QEvent::Show)))
            schedule();
        return false;
    }

  private:
    void schedule() { timer_.start(); }

    // The width a ResizeToContents column takes, as QHeaderView sizes it.
    int contentsWidth(int column) const {
        const QHeaderView* header = table_->horizontalHeader();
        const QAbstractItemView* view = table_;  // QTableView hides its override (protected)
        return std::clamp(std::max(view->sizeHintForColumn(column), header->sectionSizeHint(column)),
                          header->minimumSectionSize(), header->maximumSectionSize());
    }

    void fit() {
        QHeaderView* header = table_->horizontalHeader();
        if (column_ >= table_->columnCount()) return;
        // A cell's text takes its width plus the style's margin on each side (and the grid line).
        const int margins = 2 * (table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table_) + 1) +
                            (table_->showGrid() ? 1 : 0);
        const int viewport = table_->viewport()->width();
        int line = 0, word = 0;
        for (int row = 0; row < table_->rowCount(); ++row) {
            const QTableWidgetItem* item = table_->item(row, column_);
            if (!item || table_->isRowHidden(row) || table_->columnSpan(row, column_) > 1) continue;
            const QFontMetrics metrics(item->font());
            line = std::max(line, metrics.horizontalAdvance(item->text()) + margins);
            for (const QString& w : item->text().split(QChar(' '), Qt::SkipEmptyParts))
                word = std::max(word, metrics.horizontalAdvance(w) + margins);
        }
        const int least = std::max({header->sectionSizeHint(column_), word,
                                    std::min(line, static_cast<int>(viewport * kWrapShare))});
        int others = 0;
        for (int c = 0; c < table_->columnCount(); ++c) {
            if (c == column_ || header->isSectionHidden(c)) continue;
            others += header->sectionResizeMode(c) == QHeaderView::ResizeToContents ? contentsWidth(c)
                                                                                     : header->sectionSize(c);
        }
        const int width = std::max(least, viewport - others);
        if (header->sectionSize(column_) != width) header->resizeSection(column_, width);
        // A wrapped text's row grows to show every line; the others keep the usual height.
        const QAbstractItemView* view = table_;
        const int usual = table_->verticalHeader()->defaultSectionSize();
        for (int row = 0; row < table_->rowCount(); ++row)
            if (const int h = std::max(usual, view->sizeHintForRow(row)); table_->rowHeight(row) != h)
                table_->setRowHeight(row, h);
    }

    QTableWidget* table_;
    const QObject* viewport_;  // the table's, which this filters
    int column_;
    QTimer timer_;
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

void keepColumnWhole(QTableWidget* table, int column) { new WholeColumn(table, column); }

}  // namespace taillab::ui
