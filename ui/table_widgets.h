// The read-only tables of the window (checks, figures, the gateway's customers, counters and
// timeline) share one look: no row numbers, whole-row selection, alternating rows, no wrapping,
// left-aligned headers.
#pragma once

#include <QStringList>

class QTableWidget;
class QWidget;

namespace taillab::ui {

QTableWidget* makeReadOnlyTable(const QStringList& headers, QWidget* parent);

}  // namespace taillab::ui
