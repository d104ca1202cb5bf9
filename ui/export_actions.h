// Export of the current chart (PNG, SVG, PDF; its data as CSV or JSON) and of the whole result
// as JSON: the actions for the File menu and the toolbar, a save dialog that remembers the last
// directory, and exportTo() for scripted use and tests.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>

#include <nlohmann/json.hpp>

#include "labs/lab_result.h"
#include "lab_result_ptr.h"

class QAction;
class QWidget;

namespace taillab::ui {

class ChartArea;
class ChartView;

enum class ExportFormat { Png, Svg, Pdf, Csv, Json, ResultJson };

// Writes one chart: the view as PNG/SVG/PDF (annotations included, as drawn), its data and
// annotations as CSV, or `json` (the caller's JSON of the chart, built only for Json/ResultJson).
// False when the file cannot be written.
bool saveChart(ChartView& view, const Chart& chart, ExportFormat format, const QString& path,
               const std::function<nlohmann::ordered_json()>& json);

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

  private:
    void exportWithDialog(ExportFormat format);

    ChartArea* charts_;
    std::function<LabResultPtr()> latest_;
    QWidget* window_;
    QAction* actions_[6] = {};
};

}  // namespace taillab::ui
