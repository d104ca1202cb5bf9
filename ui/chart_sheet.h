// A whole view in one file: every chart of a lab's result, or every chart of the gateway view,
// on one sheet under a header (title, then the export caption: scenario, seed, the knobs that
// differ, TailLab's version), two charts to a row. PNG at twice the logical size; PDF as one
// vector page sized to the sheet. Written atomically.
#pragma once

#include <QSize>
#include <QString>
#include <memory>
#include <vector>

namespace taillab::ui {

class ChartView;

struct ChartSheet {
    QString title;
    QString caption;
    std::vector<const ChartView*> views;  // in reading order
    QSize cell{900, 560};                 // one chart, in logical pixels (PDF points)
};

// The sheet's size in logical pixels.
QSize sheetSize(const ChartSheet& sheet);
// `path` ends in .png or .pdf (anything else is a PNG). False, with *error, when there is
// nothing to draw or the file cannot be written; an existing file is then left as it was.
bool saveChartSheet(const ChartSheet& sheet, const QString& path, QString* error = nullptr);

}  // namespace taillab::ui
