// One chart of a lab result drawn with QCustomPlot. The base class owns the plot, the series
// styling (simulated: solid line with markers; closed form: dashed line; published: scatter
// points), the legend, the interactions (wheel zoom, drag pan, double-click reset, hover
// read-out of the nearest point or annotation) and export. It also draws a run's timeline
// annotations (knob changes, faults; see plots/annotation_layer.h) and the series of a pinned
// baseline run as muted dashed ghosts under the chart's own. Subclasses, one per ChartKind, set
// up the axes and map data x to plot x. qcustomplot.h stays out of this header.
#pragma once

#include <QColor>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "labs/lab_result.h"
#include "plots/annotation_layer.h"
#include "plots/export_caption.h"

class QCustomPlot;
class QCPPainter;
class QMouseEvent;
class QWheelEvent;
class QResizeEvent;

namespace taillab::ui {

// One series as drawn, in the chart's data units.
struct PlottedSeries {
    QString name;
    SeriesRole role = SeriesRole::Simulated;
    QVector<double> x;
    QVector<double> y;
};

class ChartView : public QWidget {
    Q_OBJECT
  public:
    // The wrapper for a chart kind.
    static ChartView* create(ChartKind kind, QWidget* parent = nullptr);
    ~ChartView() override;

    virtual ChartKind kind() const = 0;
    // Shows `chart`: same series set -> new data only; otherwise the graphs are rebuilt. The view
    // is rescaled to the data unless the user has zoomed or panned since the last reset.
    // The colour plan of the charts shown beside this one (chart_style::colourPlan), so that a
    // series of the same name has the same colour in each (from the next setChart).
    void setColourPlan(std::vector<QString> plan);
    void setChart(const Chart& chart);
    const Chart& chart() const { return chart_; }
    // Rescales to the data and forgets the user's zoom.
    void resetView();
    void replot();
    // Lays out and draws now instead of at the next event-loop turn.
    void replotNow();

    std::vector<PlottedSeries> plottedSeries() const;
    // The legend's entries, in order, and how many columns they take.
    QStringList legendNames() const;
    int legendColumns() const;
    // The title as drawn (shrunk or elided to fit) and its point size.
    QString drawnTitle() const;
    int titlePointSize() const;
    // The width, in pixels, the drawn title takes.
    int titleWidth() const;
    // How to use the chart, after its title on screen only ("click one to go there"): an
    // exported image cannot be clicked, so exports leave it out. "" for none.
    void setTitleHint(const QString& hint);
    // What the chart drawn at its size leaves out, after its title on screen and in exports
    // alike ("lanes too thin to name: by region"). "" for none. Takes effect at the next
    // layout (a subclass that sets it while one is made lays the plot out again).
    void setTitleNote(const QString& note);
    // An axis label as drawn (elided when longer than its axis) and the axis length in pixels.
    QString drawnAxisLabel(Qt::Orientation axis) const;
    int axisLabelPointSize(Qt::Orientation axis) const;
    int axisLength(Qt::Orientation axis) const;
    // The axis rect (where the data is drawn), in the plot widget's pixels.
    QRect plotArea() const;

    // A run's timeline over the chart, x in the chart's data units: knob changes as lines,
    // faults as spans, labelled at the top. Kept across setChart until replaced.
    void setAnnotations(const std::vector<Annotation>& annotations);
    const std::vector<Annotation>& annotations() const;
    // The labels as last laid out (widget pixels), in the order of annotations().
    const std::vector<AnnotationLabel>& annotationLabels() const;
    // Spans over the data instead of under it (a chart whose data fills the plot).
    void setAnnotationSpansOverData(bool over);
    // Only the lines and spans, no labels (the incident board's lane names them).
    void setAnnotationLabelsShown(bool shown);

    // A pinned earlier run's series (x in the chart's data units), drawn under the chart's own as
    // muted dashed ghosts named "<name> (baseline)", each in the colour of the series of the same
    // name, with one legend entry for them all ("baseline run"); from the next setChart
    // on. Empty: none. The axes fit the chart's own x range.
    void setBaseline(std::vector<Series> series);
    const std::vector<Series>& baseline() const { return baseline_; }
    // The ghosts as drawn (names with " (baseline)").
    std::vector<PlottedSeries> baselineSeries() const;
    static QString baselineName(const std::string& name);
    // Another run drawn the same way (A/B): its legend entry and the suffix its series' names
    // take instead of "baseline run" and " (baseline)". Empty: the defaults.
    void setBaselineLabels(const QString& legend, const QString& suffix);
    // The visible axis ranges, in plot coordinates.
    struct ViewRange {
        double xLower, xUpper, yLower, yUpper;
    };
    ViewRange viewRange() const;
    // True after the user zoomed or panned, until a reset.
    bool hasUserView() const { return userView_; }
    // The hover read-out's text ("" when hidden) and a way to drive it (tests, keyboard).
    QString readoutText() const;
    void showReadoutNear(QPoint widgetPos);
    // Its box, in the plot widget's pixels (an empty rect when hidden).
    QRect readoutRect() const;

    // Export at `size` (default: the widget's size, at least kMinExportSize), atomically: on
    // failure false, and an existing file at `path` is left as it was.
    // A line under the legend of every PNG, SVG and PDF written from now on (exportCaption:
    // scenario, seed, knobs, version), shortened at a whole item to the export's width; empty
    // for none. Not drawn on screen.
    void setExportCaption(const ExportCaption& caption) { exportCaption_ = caption; }
    bool savePng(const QString& path, QSize size = {}) const;
    bool saveSvg(const QString& path, QSize size = {}) const;
    bool savePdf(const QString& path, QSize size = {}) const;

    static constexpr QSize kMinExportSize{960, 600};

    // Charts read together (the incident board): the x range set from outside, in data units,
    // with y fitted to the data inside it; it counts as the user's view. Emits nothing.
    void setXRange(double lower, double upper);
    // Zoom and pan along x only; y then follows the data in view.
    void setHorizontalOnly(bool horizontal);
    // Lines and fills drawn without antialiasing (text keeps it): a chart redrawn many times a
    // second with thousands of points (the incident board) paints several times faster.
    void setFastDrawing(bool fast);
    // A vertical line at data x across the plot with a box of every series' value there
    // (valuesAt); nullopt hides it. In crosshair mode hovering moves no read-out: it emits
    // hovered(x) for the owner to set every chart's crosshair.
    void setCrosshair(std::optional<double> x);
    std::optional<double> crosshair() const { return crosshair_; }
    QString crosshairText() const;
    void setCrosshairMode(bool on) { crosshairMode_ = on; }
    // A point whose y is NaN breaks the line there (a window too small to rate) instead of being
    // left out, which would join its neighbours across it; the crosshair box says `text` for it.
    // Off (the default): such points are left out.
    void setGapsShown(bool shown, const QString& text = {});
    // Said across the plot while it has no data (hasData): "none in this run". "" for nothing.
    void setEmptyText(const QString& text);
    QString emptyText() const { return emptyText_; }
    bool emptyShown() const;
    // What the crosshair box says at data x: "name: value" for each series with a point there.
    virtual QStringList valuesAt(double x) const;

    // Draws the chart as it would export at `size` (title and legend laid out for that width,
    // no caption) with `painter`'s origin at its top left; the widget is left as it was.
    void renderTo(QCPPainter& painter, QSize size) const;

  signals:
    // The user clicked into the chart (makes its pane the current one).
    void activated();
    // The user zoomed or panned to this x range (data units); the view was reset (double-click).
    void xRangeChanged(double lower, double upper);
    void viewReset();
    // Crosshair mode: the pointer is over data x; a click (press and release in place) at x.
    void hovered(double x);
    void clicked(double x);

  protected:
    explicit ChartView(QWidget* parent);
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    QCustomPlot* plot() const { return plot_; }
    // Axis types, tickers and ranges for the chart; called on every setChart.
    virtual void configureAxes(const Chart& chart) = 0;
    // Data x -> plot x (the percentile chart draws 1/(1-p)); return NaN to drop a point.
    virtual double toPlotX(double x) const { return x; }
    virtual double fromPlotX(double plotX) const { return plotX; }
    virtual QString formatX(double x) const;
    // A y value as the hover readout says it (the breaker strip names its lane).
    virtual QString formatY(double y) const;
    // Called by resetView after the axes are fitted to the data.
    virtual void adjustRanges() {}
    // Whether there is anything to show (for the empty text): any series with a point.
    virtual bool hasData() const;

  private:
    void rebuildGraphs();
    void updateData();
    bool sameGraphs(const Chart& chart) const;
    // The read-out for the annotation at `pos`, if any.
    bool showAnnotationReadout(QPoint pos);
    void fitToData();
    // The one key (x) and the one value (y) of the visible data, each when all of it has the same.
    std::pair<std::optional<double>, std::optional<double>> singleKeyAndValue() const;
    void onMouseMove(QMouseEvent* event);
    // The pointer left the chart: its hover read-out goes (the crosshair, set by the owner for
    // every chart at once, stays).
    void hideReadout();
    void markUserView();
    QSize exportSize(QSize requested) const;
    // Runs `write` on a temporary file beside `path` and renames it into place.
    bool saveAtomically(const QString& path, QSize size,
                        const std::function<bool(const QString&)>& write) const;
    bool writeSvg(const QString& path, QSize size) const;

    QCustomPlot* plot_ = nullptr;
    QColor plotBackground_;  // what the plot was last styled for
    ExportCaption exportCaption_;
    QString titleHint_, titleNote_;
    mutable bool exporting_ = false;  // an export is being laid out and drawn: no title hint
    // The title with its note, and its hint unless exporting; set and fitted to the plot's
    // viewport (the export's while one is drawn).
    QString titleText() const;
    void applyTitle() const;
    void restyle();
    Chart chart_;
    std::vector<Series> baseline_;          // to draw from the next setChart
    std::vector<std::string> ghostNames_;   // the baseline series drawn now
    std::unique_ptr<AnnotationLayer> annotations_;
    bool userView_ = false;  // the user zoomed or panned: new data keeps the view
    bool horizontalOnly_ = false;
    bool fastDrawing_ = false;
    bool crosshairMode_ = false;
    bool gapsShown_ = false;
    QString gapText_;
    bool settingRange_ = false;  // setXRange at work: the range change is not the user's
    std::optional<double> crosshair_;
    QPoint pressAt_;
    void fitYToView();
    void keepNonNegative();
    void placeCrosshair();
    QString emptyText_;
    std::vector<QString> colourPlan_;
    bool coloursStale_ = false;
    QString ghostLegend_, ghostSuffix_;
    void placeEmptyText();
    struct Readout;
    std::unique_ptr<Readout> readout_;
    struct Crosshair;
    std::unique_ptr<Crosshair> crosshairItems_;
};

}  // namespace taillab::ui
