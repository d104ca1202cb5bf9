// Export of the current chart (PNG, SVG, PDF; its data as CSV or JSON), of the whole result as
// JSON, and of the whole view (every chart on one PNG or PDF sheet): the actions for the File menu and the toolbar, a save dialog that remembers the last
// directory, and exportTo() for scripted use and tests.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "chart_data_export.h"
#include "chart_sheet.h"
#include "labs/lab_result.h"
#include "lab_result_ptr.h"

#include <memory>
#include <vector>

class QAction;
class QWidget;

namespace taillab::ui {

class ChartArea;
class ChartView;

enum class ExportFormat { Png, Svg, Pdf, Csv, Json, ResultJson };

// Writes one chart: the view as PNG/SVG/PDF (annotations included, as drawn), its data and
// annotations as CSV, or `json` (the caller's JSON of the chart, built only for Json/ResultJson).
// False when the file cannot be written.
// `caption` (exportCaption) goes under every image and at the top of the CSV; `columns` go
// beside x and y in the CSV (the caller's JSON carries them itself).
bool saveChart(ChartView& view, const Chart& chart, ExportFormat format, const QString& path,
               const std::function<nlohmann::ordered_json()>& json, const ExportCaption& caption = {},
               const std::vector<PointColumn>& columns = {});

// What File → Export writes: a chart shown now, its data, and the caption that says where it
// came from. The labs' current chart unless the window routes exports elsewhere (the gateway
// tab's current chart while that tab shows).
struct ExportTarget {
    ChartView* view = nullptr;
    const Chart* chart = nullptr;
    std::function<nlohmann::ordered_json()> json;
    ExportCaption caption;
    QString name;  // suggested file name without extension
    std::vector<PointColumn> columns;  // what names each point beside x and y (chart_data_export.h)
};

class ExportActions : public QObject {
    Q_OBJECT
  public:
    ExportActions(ChartArea* charts, std::function<LabResultPtr()> latest, QWidget* window);

    QAction* action(ExportFormat format) const;
    QList<QAction*> chartActions() const;  // all but ResultJson
    // Writes without asking; false (and *error) on failure.
    bool exportTo(ExportFormat format, const QString& path, QString* error = nullptr) const;
    // Enables the actions that have something to export.
    void updateEnabled();
    // A file name for the current chart: "<scenario>-<chart>.<ext>".
    QString suggestedName(ExportFormat format) const;
    // The caption of the labs' exports (scenario, seed, differing knobs, version).
    void setCaption(std::function<ExportCaption()> caption) { caption_ = std::move(caption); }
    // Routes chart exports: when `route` returns a target, the chart actions export it instead
    // of the labs' current chart.
    void setRoute(std::function<std::optional<ExportTarget>()> route) { route_ = std::move(route); }
    // The chart an export takes now (nullopt: none).
    std::optional<ExportTarget> target() const;

    // File -> Export Whole View as PNG / PDF: every chart of what the window shows on one sheet.
    // `sheet` fills in the sheet; views it has to create (a lab's charts not on screen) go into
    // `owned`, which lives until the file is written. No views: nothing to export.
    using SheetSource = std::function<ChartSheet(std::vector<std::unique_ptr<ChartView>>& owned)>;
    void setSheetSource(SheetSource sheet) { sheet_ = std::move(sheet); }
    QList<QAction*> sheetActions() const { return {sheetPng_, sheetPdf_}; }
    // In `format`, whatever the file's name says; without one, in the format the name says.
    bool exportSheet(const QString& path, SheetFormat format, QString* error = nullptr) const;
    bool exportSheet(const QString& path, QString* error = nullptr) const;
    QString suggestedSheetName(const QString& extension) const;

  private:
    void exportWithDialog(ExportFormat format);
    void exportSheetWithDialog(SheetFormat format);

    ChartArea* charts_;
    std::function<LabResultPtr()> latest_;
    QWidget* window_;
    QAction* actions_[6] = {};
    std::function<ExportCaption()> caption_;
    std::function<std::optional<ExportTarget>()> route_;
    SheetSource sheet_;
    QAction* sheetPng_ = nullptr;
    QAction* sheetPdf_ = nullptr;
};

}  // namespace taillab::ui
