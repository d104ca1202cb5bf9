// The read-only tables of the window (checks, figures, the gateway's customers, counters and
// timeline) share one look: no row numbers, whole-row selection, alternating rows, no wrapping,
// left-aligned headers. A cell that says pass / fail / aside in colour names that meaning
// (setCellTone) instead of a colour: the table's delegate picks the colour from the palette each
// time it draws, so a theme switch restyles every table already filled.
#pragma once

#include <QColor>
#include <QStringList>
#include <Qt>
#include <optional>

class QPalette;
class QVariant;

class QAbstractItemView;
class QTableWidget;
class QTableWidgetItem;
class QWidget;

namespace taillab::ui {

enum class CellTone { Pass, Fail, Muted };
// The item data role a tone is kept under (an int: the tone, plus kCellToneFilled).
constexpr int kCellToneRole = Qt::UserRole + 0x7a11;
constexpr int kCellToneFilled = 0x100;

QTableWidget* makeReadOnlyTable(const QStringList& headers, QWidget* parent);
// Draws `view`'s toned cells in the palette's colours (makeReadOnlyTable's tables have it).
void drawCellTones(QAbstractItemView* view);
// The item's text in the tone's colour; `filled`: on a faint tint of it too (the checks' verdicts).
void setCellTone(QTableWidgetItem* item, CellTone tone, bool filled = false);
// What a cell with `toneData` (its kCellToneRole data) is drawn in on `palette`: the text colour
// and, for a filled tone, the background (else invalid); nullopt for a cell without a tone.
struct ToneColors {
    QColor text, fill;
};
std::optional<ToneColors> toneColors(const QVariant& toneData, const QPalette& palette);

// Keeps the text of `column` whole, never elided: the column takes the room the other columns
// (sized to their contents) leave, like a stretch column, but no less than its widest text, or,
// for a text longer than 40% of the table's width, its widest word, the text then wrapping onto
// more lines; when even that is too wide, the table scrolls sideways.
void keepColumnWhole(QTableWidget* table, int column);

}  // namespace taillab::ui
