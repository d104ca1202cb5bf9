// A run's timeline drawn over a chart: a knob change as a thin vertical line, a fault as a
// translucent span from its start to its end, each with a small label in a strip between the
// title and the axis rect (so no label hides data), joined to its line by a dotted connector.
// Labels are laid out again every time the plot lays itself out (zoom, pan, resize, an export at
// another size): each goes in the row nearest the data where it clears the labels before it,
// starting at its line, or ending at it when the next line comes too soon or there is no room
// after it; elided when long. When no row has room, the label before it in the least crowded
// row is shortened; when that would leave it unreadable the new label becomes a marker ("…")
// instead, and when not even a marker fits (lines a pixel apart) the nearest label before it
// stands for it too. So every annotation in view has a box to hover. The strip is as tall as the rows in use. Hovering a label or a line gives the
// full text (hit()). Colours come from chart_style::annotationColors, so they read in a dark
// palette too.
//
// Owned by ChartView; qcustomplot.h stays in the .cpp.
#pragma once

#include <QRectF>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "labs/lab_result.h"

class QCustomPlot;
class QCPAbstractItem;
class QCPItemText;

namespace taillab::ui {

// One annotation's label as last laid out.
struct AnnotationLabel {
    QString text;  // as drawn (elided)
    QString full;  // the annotation's whole label
    QRectF rect;   // in the plot's pixels; empty when hidden
    int row = 0;
    bool shown = false;
    bool leftOfLine = false;  // ends at its line (no room after it)
    // Not shown because no room was left even for a marker: the label whose box stands for
    // this one too (hovering it names both).
    std::optional<std::size_t> sharedWith;
};

class AnnotationLayer {
  public:
    static constexpr int kMaxRows = 3;
    static constexpr int kMinLabelPx = 44;  // shorter than this, a label hides instead

    // `toPlotX` maps data x to plot x (as the chart does).
    AnnotationLayer(QCustomPlot& plot, std::function<double(double)> toPlotX);
    ~AnnotationLayer();
    AnnotationLayer(const AnnotationLayer&) = delete;
    AnnotationLayer& operator=(const AnnotationLayer&) = delete;

    void set(const std::vector<Annotation>& annotations);
    const std::vector<Annotation>& annotations() const { return annotations_; }
    // Spans under the data (default) or over it (the breaker strips fill their lanes).
    void setSpansOverData(bool over);
    // Labels in the strip (default), or only the lines and spans (another chart names them).
    void setLabelsShown(bool shown);
    // New colours from the plot widget's palette.
    void restyle();
    // Positions the labels for the plot's current layout (connected to QCustomPlot::afterLayout).
    void layout();

    const std::vector<AnnotationLabel>& labels() const { return labels_; }
    // The annotation whose label, knob line or span edge is at `pos` (plot pixels).
    std::optional<std::size_t> hit(QPointF pos) const;
    // hit's annotation first, then the ones whose labels it stands for (sharedWith).
    std::vector<std::size_t> hits(QPointF pos) const;

  private:
    struct Items;
    void rebuild();
    void clearItems();
    // Reserves `height` pixels above the axis rect for the labels, laying the plot out again
    // when that changes.
    void setStrip(int height);

    QCustomPlot& plot_;
    std::function<double(double)> toPlotX_;
    std::vector<Annotation> annotations_;
    std::vector<Items> items_;
    std::vector<AnnotationLabel> labels_;
    bool spansOverData_ = false;
    bool labelsShown_ = true;
};

}  // namespace taillab::ui
