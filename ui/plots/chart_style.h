// The look of every chart: fonts, colours, series styles (simulated: solid line with markers;
// closed form: dashed line; reference level: dash-dotted line; published: scatter points), title and legend placement, range
// padding and number formatting. Shared by the chart wrappers in ui/plots/.
#pragma once

#include <QColor>
#include <QPalette>
#include <QRectF>
#include <QSize>
#include <QString>
#include <vector>

#include "labs/lab_result.h"

class QCustomPlot;
class QCPGraph;
class QCPAxis;
class QCPItemText;

namespace taillab::ui::chart_style {

// A chart's colours, from the widget palette: the background is Base (white in a light theme,
// dark in a dark one), text and axes follow Text, the grid sits faintly between the two.
struct PlotColors {
    QColor background, text, axis, grid, subGrid;
};
PlotColors plotColors(const QPalette& palette);

// Title row, axis rect, legend row below the axes; fonts, grid, and plotColors(plot.palette()).
void setUpPlot(QCustomPlot& plot);
// Applies plotColors(palette) to the background, title, axes, grid and legend (after a palette
// change).
void applyPalette(QCustomPlot& plot, const QPalette& palette);
void setTitle(QCustomPlot& plot, const QString& title);
// Fits the title to `width` pixels: the full size when it fits, else a smaller font (down to
// 8 pt), else elided at the end. The full title is kept for when the chart widens again.
void fitTitle(QCustomPlot& plot, int width);
// As many legend columns as fit `size`'s width without clipping a name; when that many rows
// would take more than 40% of its height (kLegendShare), more columns with the names elided
// (the entries keep their whole names for legendNames and the read-out).
void fitLegend(QCustomPlot& plot, QSize size);
// An axis label fitted to `room` pixels: whole when it fits; else a trailing unit in parentheses
// ("Latency (ms)") is kept and the words before it are elided ("Lat… (ms)"), or the unit
// alone when no word is left; else the label elided at its end.
// With `twoLines` (a y axis, whose label strip can take a second line's width but not more
// height), a label too long for one line is broken in two where both lines fit, at its unit
// first ("In flight" over "(log)"), else as text wraps, before anything is elided.
QString fitAxisLabel(const QString& full, const QFontMetrics& metrics, int room, bool twoLines = false);
// The font for an axis label with `room` pixels: the usual size when the whole label fits, else
// the largest smaller size (down to 8 pt, as titles) at which it does, else 8 pt (and
// fitAxisLabel then shortens it).
QFont axisLabelFont(const QString& full, int room);
// One colour per series: a closed-form or published series takes the colour of the simulated
// series it names (e.g. "N=10" and "N=10 closed form"), otherwise the next palette colour.
// On a dark background each colour is lightened until it reads (contrast 3:1 or better).
// With a `plan` (the colour keys of every series of a lab's charts, in order: colourPlan), a
// series takes its key's place in the plan, so that charts shown side by side give a series of
// the same name the same colour; a series whose key is not in the plan, or is already taken in
// this chart by another of the same role, takes the next colour after the plan's.
std::vector<QColor> seriesColors(const Chart& chart, const QColor& background = Qt::white,
                                 const std::vector<QString>& plan = {});
// The colour keys of `charts`' series, each once, in the order they first appear.
std::vector<QString> colourPlan(const std::vector<Chart>& charts);
// `ink` outlines published points (the palette's text colour).
void styleGraph(QCPGraph& graph, const Series& series, const QColor& color,
                const QColor& ink = QColor(30, 30, 30));
// A pinned run's series: thin, dashed, in baselineColor(live), no markers.
void styleBaselineGraph(QCPGraph& graph, const QString& name, const QColor& live,
                        const QColor& background = Qt::white);
// Thins the markers of a dense simulated series so the line stays readable.
void setMarkerDensity(QCPGraph& graph, const Series& series, int points);
// Adds a margin around the data range (multiplicative on log axes).
void padRange(QCPAxis& axis);
// A range for data of one value `at`: a fifth of it wide (at least 1), or from half to twice it on
// a log axis.
void rangeAround(QCPAxis& axis, double at);

void setUpReadoutLabel(QCPItemText& label, const QPalette& palette);
// Puts the read-out next to the point (plot coordinates), on a side where it fits whole, else
// moved inside the plot widget (its top left kept in view when it is larger).
void placeReadoutLabel(QCPItemText& label, const QCustomPlot& plot, double key, double value,
                       const QString& text);
// A read-out's box as drawn, in the plot widget's pixels.
QRectF readoutRect(const QCPItemText& label);

// The colours of timeline annotations on a plot background: label text from the widget palette
// (Text, or Base when the palette is dark and Text would vanish on the plot), knob lines the
// same ink, faults the chart palette's amber; each one adjusted until it reads on `background`.
struct AnnotationColors {
    QColor ink;         // label text
    QColor knob;        // knob-change line and label border
    QColor fault;       // fault span edges and label border
    QColor faultFill;   // fault span (translucent)
    QColor phase;       // a phase's edges (dotted) and label border
    QColor labelFill;   // label background (mostly opaque, so lines under it do not show)
};
AnnotationColors annotationColors(const QPalette& palette, const QColor& background);
// WCAG contrast ratio of two colours (1 .. 21).
double contrastRatio(const QColor& a, const QColor& b);
// A pinned run's series beside the live one it matches: the same hue, paler and less saturated.
QColor baselineColor(const QColor& live, const QColor& background = Qt::white);

QString roleLabel(SeriesRole role);
// Compact human formatting: 0.0123, 4.56, 123.4, 12,345.
QString formatNumber(double v);

}  // namespace taillab::ui::chart_style
