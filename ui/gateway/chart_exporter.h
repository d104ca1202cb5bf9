// Export for a view's charts, the same in every gateway view: each chart's context menu (PNG, SVG,
// PDF, CSV, JSON, Reset Zoom), an "Export chart" button for the chart last clicked, and the
// target File → Export takes. The view says what an export of a chart carries (run, seed, knobs,
// the line under the chart, what names each point) through a callback asked at export time.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chart_data_export.h"
#include "export_actions.h"

class QToolButton;
class QWidget;

namespace taillab::ui {

class ChartView;

class ChartExporter : public QObject {
    Q_OBJECT
  public:
    struct Context {
        std::string scenario;
        std::uint64_t seed = 0;
        nlohmann::ordered_json params;     // the knobs the chart shows
        // What the caption compares them with: the knobs the scenario itself has in force at that
        // moment (a knob its own timeline set is no edit); the caption names what differs.
        nlohmann::ordered_json reference;
        std::vector<KnobSpec> specs;  // the knobs' labels and units, for the caption's words
        // A caption of its own instead (the sweep states its settings, not knob edits).
        std::optional<ExportCaption> caption;
        QString file_prefix;            // "gateway": files are named gateway-<chart>.png
        // Adds fields to a chart's JSON export (the run's clock, say).
        std::function<void(nlohmann::ordered_json&)> extra;
        // Columns beside x and y in CSV, fields of each series in JSON (a strip's lane by name).
        std::vector<PointColumn> columns;
    };

    // `context` is asked for the chart being exported ("" for the caption of the view's).
    ChartExporter(QWidget* owner, std::function<Context(const std::string& id)> context);

    // Gives `view` its context menu; clicking it makes it the current chart.
    void add(const std::string& id, ChartView* view);
    // The "Export chart" button (its menu exports the current chart); `objectName` for tests.
    QToolButton* makeButton(QWidget* parent, const QString& objectName);

    ChartView* view(const std::string& id) const;
    // Fits every chart to its data and forgets the user's zoom (View → Reset Zoom on the view's
    // tab; the context menu's Reset Zoom fits the one chart).
    void resetViews();
    const std::string& current() const { return current_; }
    void setCurrent(const std::string& id);
    // The line under every exported chart: run name, seed, knobs that differ from the ones the
    // scenario has in force, TailLab's version.
    QString caption() const;
    // The chart `id`, or the current one (the first added before any click) when empty.
    std::optional<ExportTarget> target(const std::string& id = {}) const;
    bool exportChart(const std::string& id, ExportFormat format, const QString& path,
                     QString* error = nullptr) const;
    // Asks for a file (starting in the last directory used), then exports; warns on failure.
    void exportWithDialog(const std::string& id, ExportFormat format);

  private:
    QWidget* owner_;
    std::function<Context(const std::string& id)> context_;
    std::map<std::string, ChartView*> views_;
    std::string first_, current_;
    QToolButton* button_ = nullptr;
};

}  // namespace taillab::ui
