// A whole view in one file: every chart of a lab's result, or every chart of the gateway view,
// on one sheet under a header (title, then the export caption: scenario, seed, the knobs that
// differ, TailLab's version, then any notes), two charts to a row (or `columns`). PNG at twice
// the logical size; SVG and PDF as vectors sized to the sheet. Written atomically.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "plots/export_caption.h"

namespace taillab::ui {

class ChartView;

struct ChartSheet {
    QString title;
    ExportCaption caption;  // shortened at a whole item to the sheet's width
    std::vector<const ChartView*> views;  // in reading order
    QSize cell{900, 560};                 // one chart, in logical pixels (PDF points)
    int columns = 2;
    // Lines under the caption (the incident board's timeline events), one each.
    QStringList notes{};
    // A chart across the whole width above the others (the incident board's timeline lane),
    // `bannerHeight` tall; none when null.
    const ChartView* banner = nullptr;
    int bannerHeight = 200;
};

enum class SheetFormat { Png, Svg, Pdf };

// The sheet's size in logical pixels.
QSize sheetSize(const ChartSheet& sheet);
// The format `path` names: .svg, .pdf, else PNG.
SheetFormat sheetFormatOf(const QString& path);
// Writes `sheet` to `path` in `format`, whatever the file's name says. False, with *error, when
// there is nothing to draw or the file cannot be written; an existing file is then left as it
// was.
bool saveChartSheet(const ChartSheet& sheet, const QString& path, SheetFormat format,
                    QString* error = nullptr);
// In the format the name says (sheetFormatOf).
bool saveChartSheet(const ChartSheet& sheet, const QString& path, QString* error = nullptr);

}  // namespace taillab::ui
