#include "plots/annotation_layer.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "plots/chart_style.h"

namespace taillab::ui {
namespace {

constexpr const char* kSpanLayer = "annotationSpans";  // under the data
constexpr const char* kLineLayer = "annotations";      // over the data, under the read-out
constexpr int kLabelPointSize = 8;
constexpr double kGapPx = 6;     // between two labels in a row
constexpr double kRowGapPx = 2;  // between two rows
constexpr int kStripPadPx = 2;   // between the strip and the axis rect
constexpr double kHitPx = 4;    // how near a line the pointer counts as on it
const QMargins kPadding(3, 1, 3, 1);

// The layers annotations draw on, made once per plot: spans just under the graphs, lines and
// labels just over them.
void ensureLayers(QCustomPlot& plot) {
    if (!plot.layer(kSpanLayer)) {
        // Under every graph (the ghosts of a pinned run included): just above the grid.
        plot.addLayer(kSpanLayer, plot.layer("grid"), QCustomPlot::limAbove);
    }
    if (!plot.layer(kLineLayer))
        plot.addLayer(kLineLayer, plot.layer("main"), QCustomPlot::limAbove);
}

QFont labelFont() {
    QFont f;
    f.setPointSize(kLabelPointSize);
    return f;
}

// A line or rect edge at x (plot coordinates) spanning the axis rect's height.
void spanHeight(QCPItemPosition* top, QCPItemPosition* bottom, double x0, double x1) {
    for (QCPItemPosition* p : {top, bottom}) {
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    top->setCoords(x0, 0);
    bottom->setCoords(x1, 1);
}

}  // namespace

struct AnnotationLayer::Items {
    bool phase = false;           // a phase: its edges only, in the phase colour, never a tint
    QCPItemRect* span = nullptr;  // faults
    QCPItemLine* start = nullptr;  // the knob line, or the fault's first edge
    QCPItemLine* end = nullptr;    // the fault's last edge
    QCPItemText* label = nullptr;
    QCPItemLine* connector = nullptr;  // from the label down to the axis rect
};

AnnotationLayer::AnnotationLayer(QCustomPlot& plot, std::function<double(double)> toPlotX)
    : plot_(plot), toPlotX_(std::move(toPlotX)) {
    ensureLayers(plot_);
    QObject::connect(&plot_, &QCustomPlot::afterLayout, &plot_, [this] { layout(); });
}

AnnotationLayer::~AnnotationLayer() = default;

void AnnotationLayer::set(const std::vector<Annotation>& annotations) {
    if (annotations == annotations_ && items_.size() == annotations.size()) return;
    annotations_ = annotations;
    rebuild();
}

void AnnotationLayer::setSpansOverData(bool over) {
    if (over == spansOverData_) return;
    spansOverData_ = over;
    rebuild();
}

void AnnotationLayer::setLabelsShown(bool shown) {
    if (shown == labelsShown_) return;
    labelsShown_ = shown;
    rebuild();
}

void AnnotationLayer::clearItems() {
    for (const Items& it : items_)
        for (QCPAbstractItem* item : std::initializer_list<QCPAbstractItem*>{
                 it.span, it.start, it.end, it.label, it.connector})
            if (item) plot_.removeItem(item);
    items_.clear();
    labels_.clear();
}

void AnnotationLayer::rebuild() {
    clearItems();
    auto line = [this](double x) {
        auto* l = new QCPItemLine(&plot_);
        l->setLayer(kLineLayer);
        l->setSelectable(false);
        spanHeight(l->start, l->end, x, x);
        return l;
    };
    for (const Annotation& a : annotations_) {
        Items it;
        it.phase = a.kind == "phase";
        const double x0 = toPlotX_(a.x0);
        if (a.x1 && it.phase) {
            // A phase changes nothing in the run: tinting it like a fault would drown the faults
            // it overlaps. Its edges say where it starts and ends.
            it.start = line(x0);
            it.end = line(toPlotX_(*a.x1));
        } else if (a.x1) {
            const double x1 = toPlotX_(*a.x1);
            it.span = new QCPItemRect(&plot_);
            it.span->setLayer(spansOverData_ ? kLineLayer : kSpanLayer);
            it.span->setSelectable(false);
            spanHeight(it.span->topLeft, it.span->bottomRight, x0, x1);
            it.start = line(x0);
            it.end = line(x1);
        } else {
            it.start = line(x0);
        }
        it.label = new QCPItemText(&plot_);
        it.label->setLayer(kLineLayer);
        it.label->setSelectable(false);
        it.label->setFont(labelFont());
        it.label->setPadding(kPadding);
        it.label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        it.label->setTextAlignment(Qt::AlignLeft);
        it.label->position->setType(QCPItemPosition::ptAbsolute);
        it.label->setText(QString::fromStdString(a.label));
        it.label->setClipToAxisRect(false);  // it sits in the strip above the axis rect
        it.label->setVisible(false);         // until laid out
        it.connector = new QCPItemLine(&plot_);
        it.connector->setLayer(kLineLayer);
        it.connector->setSelectable(false);
        it.connector->setClipToAxisRect(false);
        it.connector->start->setType(QCPItemPosition::ptAbsolute);
        it.connector->end->setType(QCPItemPosition::ptAbsolute);
        it.connector->setVisible(false);
        items_.push_back(it);
    }
    labels_.assign(items_.size(), AnnotationLabel{});
    restyle();
}

void AnnotationLayer::restyle() {
    const chart_style::AnnotationColors c =
        chart_style::annotationColors(plot_.palette(), chart_style::plotColors(plot_.palette()).background);
    for (Items& it : items_) {
        const QColor edge = it.phase ? c.phase : it.span ? c.fault : c.knob;
        QPen linePen(edge, it.span ? 1.0 : 1.3);
        if (it.phase) linePen.setStyle(Qt::DotLine);
        if (it.span) {
            linePen.setStyle(Qt::DashLine);
            it.span->setPen(Qt::NoPen);
            it.span->setBrush(c.faultFill);
        }
        for (QCPItemLine* l : {it.start, it.end})
            if (l) l->setPen(linePen);
        QPen connector(edge, 1, Qt::DotLine);
        it.connector->setPen(connector);
        it.label->setColor(c.ink);
        it.label->setBrush(c.labelFill);
        QColor border = edge;
        border.setAlpha(255);
        it.label->setPen(QPen(border, 1));
    }
}

void AnnotationLayer::setStrip(int height) {
    QCPAxisRect* rect = plot_.axisRect();
    if (rect->minimumMargins().top() == height) return;
    rect->setMinimumMargins(QMargins(0, height, 0, 0));
    // Lay the plot out again now, inside this pass, so what is drawn next has the strip.
    for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                       QCPLayoutElement::upLayout})
        plot_.plotLayout()->update(phase);
}

void AnnotationLayer::layout() {
    if (items_.empty() || !labelsShown_) {
        for (const Items& it : items_) {
            it.label->setVisible(false);
            it.connector->setVisible(false);
        }
        setStrip(0);
        return;
    }
    const QRect area = plot_.axisRect()->rect();
    const QFontMetrics fm(labelFont());
    const double rowHeight = fm.height() + kPadding.top() + kPadding.bottom() + kRowGapPx;
    // Rows allowed by the plot's height without the strip, so the strip cannot feed back.
    const double fullHeight = area.height() + plot_.axisRect()->minimumMargins().top();
    const int rows = std::clamp(static_cast<int>(fullHeight / 4 / rowHeight), 1, kMaxRows);
    const double maxWidth = std::clamp(area.width() * 0.45, 110.0, 260.0);
    const double pad = kPadding.left() + kPadding.right();
    const double markerWidth = fm.horizontalAdvance(QChar(0x2026)) + pad + 1;

    struct Placed {
        std::size_t index;
        double left, width, natural;
    };
    std::vector<std::vector<Placed>> placed(static_cast<std::size_t>(rows));
    std::vector<double> anchor(items_.size(), NAN);
    std::vector<double> spanEnd(items_.size(), NAN);  // a fault's last pixel in view; else its line
    for (std::size_t i = 0; i < items_.size(); ++i) {
        const Annotation& a = annotations_[i];
        const double p0 = plot_.xAxis->coordToPixel(toPlotX_(a.x0));
        const double p1 = a.x1 ? plot_.xAxis->coordToPixel(toPlotX_(*a.x1)) : p0;
        const double lo = std::min(p0, p1), hi = std::max(p0, p1);
        // Visible when its line, or some of its span, is inside the axis rect.
        if (!std::isfinite(lo) || hi < area.left() || lo > area.right()) continue;
        anchor[i] = std::max(lo, static_cast<double>(area.left()));
        spanEnd[i] = std::min(hi, static_cast<double>(area.right()));
    }
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < items_.size(); ++i)
        if (!std::isnan(anchor[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return anchor[a] < anchor[b]; });

    for (std::size_t i = 0; i < labels_.size(); ++i) {
        labels_[i] = AnnotationLabel{};
        labels_[i].full = QString::fromStdString(annotations_[i].label);
    }
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        const double natural = fm.horizontalAdvance(labels_[i].full) + pad + 1;
        double width = std::min(natural, maxWidth);
        // Right of its line (or span start), or else ending at it; inside the plot's width.
        const double right = std::max(static_cast<double>(area.left()),
                                      std::min(anchor[i], area.right() - width));
        const double leftSide = anchor[i] - width;
        auto clears = [&](int r, double left) {
            const auto& inRow = placed[static_cast<std::size_t>(r)];
            return inRow.empty() || inRow.back().left + inRow.back().width + kGapPx <= left;
        };
        // Ending at its line is better when the next line comes before this label would end.
        const bool crowded =
            k + 1 < order.size() && anchor[order[k + 1]] < right + width + kGapPx;
        // The nearest row to the data where it clears the label before it, on either side.
        int row = -1;
        double left = right;
        for (int r = 0; r < rows && row < 0; ++r) {
            const bool leftFits = leftSide >= area.left() && clears(r, leftSide);
            if (crowded && leftFits) {
                row = r;
                left = leftSide;
            } else if (clears(r, right)) {
                row = r;
            } else if (leftFits) {
                row = r;
                left = leftSide;
            }
        }
        if (row < 0) {
            // No room: shorten the label before it in the row where that leaves the most.
            double best = 0;
            int bestRow = -1;
            for (int r = 0; r < rows; ++r) {
                const Placed& prev = placed[static_cast<std::size_t>(r)].back();
                const double room = left - kGapPx - prev.left;
                if (room > best) {
                    best = room;
                    bestRow = r;
                }
            }
            if (bestRow >= 0 && best >= kMinLabelPx) {
                row = bestRow;
                placed[static_cast<std::size_t>(row)].back().width = best;
            }
        }
        if (row < 0) {
            // Still no room for a readable label: a marker ("…"; hovering it gives the text) at
            // its line, ending at it, or (a fault) anywhere over its span where one clears;
            // else the label before it shortened, down to a marker, to make room.
            width = markerWidth;
            const double markerRight = std::max(static_cast<double>(area.left()),
                                                std::min(anchor[i], area.right() - width));
            const double markerLeft = anchor[i] - width;
            const double lastLeft = std::max(markerRight, spanEnd[i] - width);
            for (int r = 0; r < rows && row < 0; ++r) {
                const Placed& prev = placed[static_cast<std::size_t>(r)].back();
                const double after = std::max(markerRight, prev.left + prev.width + kGapPx);
                if (after <= lastLeft) {
                    row = r;
                    left = after;
                } else if (markerLeft >= area.left() && clears(r, markerLeft)) {
                    row = r;
                    left = markerLeft;
                }
            }
            double best = 0;
            for (int r = 0; r < rows && row < 0; ++r) {
                const Placed& prev = placed[static_cast<std::size_t>(r)].back();
                const double at = std::max(markerRight, prev.left + markerWidth + kGapPx);
                const double room = at - kGapPx - prev.left;
                if (at <= lastLeft && room > best) {
                    best = room;
                    row = r;
                    left = at;
                }
            }
            if (best > 0) placed[static_cast<std::size_t>(row)].back().width = best;
        }
        if (row < 0) {
            // Not even a marker fits (lines a pixel or two apart): the nearest marker or label
            // before it stands for it too, and hovering that lists both.
            const Placed* host = nullptr;
            for (const auto& inRow : placed)
                if (!inRow.empty() && (!host || inRow.back().left > host->left)) host = &inRow.back();
            if (host) labels_[i].sharedWith = host->index;
            continue;
        }
        labels_[i].leftOfLine = left + width <= anchor[i] + 0.5;  // ends at its line
        placed[static_cast<std::size_t>(row)].push_back({i, left, width, natural});
        labels_[i].row = row;
    }
    int used = 0;
    for (int r = 0; r < rows; ++r)
        if (!placed[static_cast<std::size_t>(r)].empty()) used = r + 1;
    const int strip = used > 0 ? static_cast<int>(std::ceil(used * rowHeight)) + kStripPadPx : 0;
    setStrip(strip);

    // The strip sits between the title and the axis rect: row 0 nearest the data.
    const double top = plot_.axisRect()->rect().top();
    for (std::size_t r = 0; r < placed.size(); ++r) {
        for (const Placed& p : placed[r]) {
            AnnotationLabel& l = labels_[p.index];
            // Only when it does not fit: elidedText can shorten a text given exactly its advance.
            l.text = p.width >= p.natural
                         ? l.full
                         : fm.elidedText(l.full, Qt::ElideRight, static_cast<int>(p.width - pad));
            // Too short to read: a marker, which hovering names.
            if (p.width < kMinLabelPx && p.width < p.natural) l.text = QString(QChar(0x2026));
            l.rect = QRectF(p.left, top - (static_cast<double>(r) + 1) * rowHeight, p.width,
                            rowHeight - kRowGapPx);
            l.shown = true;
        }
    }
    for (std::size_t i = 0; i < items_.size(); ++i) {
        const Items& it = items_[i];
        const AnnotationLabel& l = labels_[i];
        it.label->setVisible(l.shown);
        it.connector->setVisible(l.shown);
        if (!l.shown) continue;
        it.label->setText(l.text);
        it.label->position->setCoords(l.rect.topLeft());
        // From the label's edge over its line down to the top of the axis rect.
        const double x = l.leftOfLine ? l.rect.right() - 0.5 : l.rect.left() + 0.5;
        it.connector->start->setCoords(x, l.rect.bottom());
        it.connector->end->setCoords(x, top);
    }
}

std::vector<std::size_t> AnnotationLayer::hits(QPointF pos) const {
    const std::optional<std::size_t> first = hit(pos);
    if (!first) return {};
    std::vector<std::size_t> all{*first};
    for (std::size_t i = 0; i < labels_.size(); ++i)
        if (labels_[i].sharedWith == *first) all.push_back(i);
    return all;
}

std::optional<std::size_t> AnnotationLayer::hit(QPointF pos) const {
    for (std::size_t i = 0; i < labels_.size(); ++i)
        if (labels_[i].shown && labels_[i].rect.contains(pos)) return i;
    const QRect area = plot_.axisRect()->rect();
    if (!area.contains(pos.toPoint())) return std::nullopt;
    std::optional<std::size_t> nearest;
    double best = kHitPx;
    for (std::size_t i = 0; i < annotations_.size(); ++i) {
        const Annotation& a = annotations_[i];
        for (const std::optional<double>& x : {std::optional<double>(a.x0), a.x1}) {
            if (!x) continue;
            const double d = std::abs(plot_.xAxis->coordToPixel(toPlotX_(*x)) - pos.x());
            if (d <= best) {
                best = d;
                nearest = i;
            }
        }
    }
    return nearest;
}

}  // namespace taillab::ui
