#include "gateway/stage_path_widget.h"
#include "palette_colors.h"

#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace taillab::ui {
namespace {

constexpr int kMargin = 6;
constexpr int kArrow = 24;  // gap between boxes, holding the arrow
constexpr int kPad = 7;
constexpr int kBarHeight = 7;

using gateway::kStages;

QString count(std::uint64_t v) {
    if (v >= 10'000'000) return QString::number(static_cast<double>(v) / 1e6, 'f', 2) + " M";
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(v));
}

// A count in at most four digits for a narrow card: "9,812", "25.9k", "229k".
QString shortCount(std::uint64_t v) {
    if (v < 10'000) return count(v);
    const double k = static_cast<double>(v) / 1000;
    if (k < 100) return QString::number(k, 'f', 1) + "k";
    if (k < 10'000) return QString::number(k, 'f', 0) + "k";
    return count(v);
}

// Milliseconds with three significant digits or so, without the unit.
QString ms(double v) {
    if (!std::isfinite(v)) return "–";
    const int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return QString::number(v, 'f', decimals);
}

double mean(const gateway::StageStats& s) {
    return s.entered > 0 ? s.time_ms_total / static_cast<double>(s.entered) : 0.0;
}

// Green within budget, amber when the worst request went over, red when the mean did.
QColor verdictColor(const gateway::StageStats& s) {
    if (s.entered == 0 || s.budget_ms <= 0) return QColor(150, 150, 150);
    if (mean(s) > s.budget_ms) return QColor(0xc0, 0x2a, 0x2a);
    if (s.time_ms_max > s.budget_ms) return QColor(0xd9, 0x8a, 0x00);
    return QColor(0x2c, 0x8c, 0x3c);
}

}  // namespace

StagePathWidget::StagePathWidget(QWidget* parent) : QWidget(parent) {
    setObjectName("gatewayStagePath");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMouseTracking(true);
}

void StagePathWidget::setSnapshot(GatewaySnapshotPtr snapshot) {
    snapshot_ = std::move(snapshot);
    update();
}

int StagePathWidget::captionHeight() const { return fontMetrics().height() + 4; }

QSize StagePathWidget::sizeHint() const {
    const int line = fontMetrics().height();
    // The text lines, then the bar under them (with the gap above it and the pad below).
    return {1200, captionHeight() + 2 * kMargin + 2 * kPad + textLines() * line + kBarHeight + 6};
}

QSize StagePathWidget::minimumSizeHint() const { return {7 * 120, sizeHint().height()}; }

QRectF StagePathWidget::boxRect(int stage) const {
    const double top = kMargin + captionHeight();
    const double w = (width() - 2.0 * kMargin - (kStages - 1) * kArrow) / kStages;
    return {kMargin + stage * (w + kArrow), top, w, height() - top - kMargin};
}

namespace {

// The customers' requests of a stage: its counts without the synthetic probes and the
// stale-while-revalidate refreshes (the edge's "in" is then the conservation line's "accepted",
// and each card's "out" is what enters the next: merge's "in" is the engines' "out" plus the
// cache's "out" less the router's "in").
std::uint64_t customersIn(const gateway::StageStats& s) {
    return s.entered - std::min(s.probes_entered + s.refreshes_entered, s.entered);
}
std::uint64_t customersOut(const gateway::StageStats& s) {
    return s.passed - std::min(s.probes_passed + s.refreshes_passed, s.passed);
}

}  // namespace

QStringList StagePathWidget::stageLines(int stage) const {
    const QString name = QString::fromUtf8(gateway::kStageNames[static_cast<std::size_t>(stage)]);
    const QString noProbes = probesShown_ ? tr("no probes") : QString();
    if (!snapshot_)
        return {name, tr("in – → out –"), tr("mean – · max – ms"), tr("budget – ms"), noProbes};
    const gateway::StageStats& s = snapshot_->stages[static_cast<std::size_t>(stage)];
    return {name, tr("in %1 → out %2").arg(count(customersIn(s)), count(customersOut(s))),
            tr("mean %1 · max %2 ms").arg(ms(mean(s)), ms(s.time_ms_max)),
            tr("budget %1 ms").arg(ms(s.budget_ms)),
            !probesShown_ || s.probes_entered == 0
                ? noProbes
                : tr("probes in %1 → out %2").arg(count(s.probes_entered), count(s.probes_passed))};
}

QStringList StagePathWidget::compactLines(int stage, bool shortCounts) const {
    const auto number = [shortCounts](std::uint64_t v) { return shortCounts ? shortCount(v) : count(v); };
    const QString name = QString::fromUtf8(gateway::kStageNames[static_cast<std::size_t>(stage)]);
    const QString noProbes = probesShown_ ? tr("no probes") : QString();
    if (!snapshot_) return {name, tr("– → –"), tr("– / – ms"), tr("≤ – ms"), noProbes};
    const gateway::StageStats& s = snapshot_->stages[static_cast<std::size_t>(stage)];
    return {name, tr("%1 → %2").arg(number(customersIn(s)), number(customersOut(s))),
            tr("%1 / %2 ms").arg(ms(mean(s)), ms(s.time_ms_max)), tr("≤ %1 ms").arg(ms(s.budget_ms)),
            !probesShown_ || s.probes_entered == 0
                ? noProbes
                : tr("probes %1 → %2").arg(number(s.probes_entered), number(s.probes_passed))};
}

int StagePathWidget::textWidth(int stage) const {
    return static_cast<int>(boxRect(stage).width()) - 2 * kPad;
}

QStringList StagePathWidget::drawnLines(int stage) const {
    const bool shortCounts = !fullCountsFit();
    const QStringList full = stageLines(stage), compact = compactLines(stage, shortCounts);
    const QFontMetrics fm = fontMetrics();
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold);
    const int width = textWidth(stage);
    QStringList out = full;
    for (int k : {1, 2, 4}) {
        // In thousands, a count line is in its short form on every card: never "534,075" on one
        // line beside "34.6k" on the next.
        const bool countLine = k != 2;
        if (!(shortCounts && countLine) && fm.horizontalAdvance(full[k]) <= width) continue;
        out[k] = fm.horizontalAdvance(compact[k]) <= width
                     ? compact[k]
                     : fm.elidedText(compact[k], Qt::ElideRight, width);
    }
    const int nameWidth = boldMetrics.horizontalAdvance(full[0]) + kBudgetGap;
    if (!longBudgetsFit())
        out[3] = nameWidth + fm.horizontalAdvance(compact[3]) <= width ? compact[3] : QString();
    return out;
}

// The budgets read alike on every card: "budget 8.00 ms" only where every card has room for it
// beside its name, else "≤ 8.00 ms" on all, not one form on the short names and the other on
// the long.
bool StagePathWidget::longBudgetsFit() const {
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm = fontMetrics(), boldMetrics(bold);
    for (int stage = 0; stage < kStages; ++stage) {
        const QStringList full = stageLines(stage);
        if (boldMetrics.horizontalAdvance(full[0]) + kBudgetGap + fm.horizontalAdvance(full[3]) >
            textWidth(stage))
            return false;
    }
    return true;
}

// Whether every card's count lines fit with counts in full, long or compact.
bool StagePathWidget::fullCountsFit() const {
    const QFontMetrics fm = fontMetrics();
    for (int stage = 0; stage < kStages; ++stage) {
        const QStringList full = stageLines(stage), compact = compactLines(stage);
        const int width = textWidth(stage);
        for (int k : {1, 4})
            if (fm.horizontalAdvance(full[k]) > width && fm.horizontalAdvance(compact[k]) > width)
                return false;
    }
    return true;
}

void StagePathWidget::setMeasured(bool measured) {
    measured_ = measured;
    update();
}

void StagePathWidget::setProbesShown(bool shown) {
    if (shown == probesShown_) return;
    probesShown_ = shown;
    updateGeometry();
    update();
}

void StagePathWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().window());
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height();
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(kMargin, kMargin - 2, width() - 2 * kMargin, captionHeight()),
               Qt::AlignLeft | Qt::AlignVCenter,
               measured_ ? tr("Request path — totals since the run started; mean and max measured "
                              "time in each stage against its budget (bar: mean; tick: max)")
                         : tr("Request path — totals since the run started; mean and max simulated "
                              "time in each stage against its budget (bar: mean; tick: max)"));
    QFont bold = font();
    bold.setBold(true);
    for (int i = 0; i < kStages; ++i) {
        const QRectF box = boxRect(i);
        const gateway::StageStats* s =
            snapshot_ ? &snapshot_->stages[static_cast<std::size_t>(i)] : nullptr;
        const QColor verdict = s ? verdictColor(*s) : QColor(150, 150, 150);
        p.setPen(QPen(verdict, 1.6));
        p.setBrush(palette().color(QPalette::Base));
        p.drawRoundedRect(box.adjusted(0.8, 0.8, -0.8, -0.8), 6, 6);

        const QStringList lines = drawnLines(i);
        QRectF text = box.adjusted(kPad, kPad - 2, -kPad, 0);
        p.setFont(bold);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(text.left(), text.top(), text.width(), line), Qt::AlignLeft,
                   lines[0]);
        p.setFont(font());
        p.setPen(mutedText(palette()));
        p.drawText(QRectF(text.left(), text.top(), text.width(), line), Qt::AlignRight, lines[3]);
        // Customers' counts, the probes among them (muted: not the customers'), the times.
        int row = 1;
        for (int k : {1, 4, 2}) {
            if (k == 4 && !probesShown_) continue;
            p.setPen(k == 4 ? mutedText(palette()) : palette().color(QPalette::Text));
            p.drawText(QRectF(text.left(), text.top() + row++ * line, text.width(), line),
                       Qt::AlignLeft, lines[k]);
        }

        // Budget bar: full width = budget (over budget fills it and turns red), tick at the max.
        const QRectF bar(text.left(), text.top() + row * line + 5, text.width(), kBarHeight);
        p.setPen(Qt::NoPen);
        p.setBrush(blend(palette().color(QPalette::Base), palette().color(QPalette::Text), 0.12));
        p.drawRoundedRect(bar, 2, 2);
        if (s && s->budget_ms > 0 && s->entered > 0) {
            const double fill = std::clamp(mean(*s) / s->budget_ms, 0.0, 1.0);
            p.setBrush(verdict);
            p.drawRoundedRect(QRectF(bar.left(), bar.top(), bar.width() * fill, bar.height()), 2,
                              2);
            const double tick = std::clamp(s->time_ms_max / s->budget_ms, 0.0, 1.0);
            const double x = bar.left() + bar.width() * tick;
            p.setPen(QPen(palette().color(QPalette::Text), 2));
            p.drawLine(QPointF(x, bar.top() - 2), QPointF(x, bar.bottom() + 2));
        }

        if (i + 1 < kStages) {  // arrow to the next stage
            const double y = box.top() + box.height() / 2;
            const double x0 = box.right() + 3, x1 = box.right() + kArrow - 3;
            p.setPen(QPen(mutedText(palette()), 1.6));
            p.drawLine(QPointF(x0, y), QPointF(x1 - 5, y));
            QPainterPath head;
            head.moveTo(x1, y);
            head.lineTo(x1 - 7, y - 4.5);
            head.lineTo(x1 - 7, y + 4.5);
            head.closeSubpath();
            p.fillPath(head, mutedText(palette()));
        }
    }
}

bool StagePathWidget::event(QEvent* event) {
    if (event->type() != QEvent::ToolTip) return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    for (int i = 0; i < kStages; ++i) {
        if (!boxRect(i).contains(help->pos())) continue;
        QStringList lines = stageLines(i);
        lines.removeAll(QString());
        QString tip = lines.join("\n");
        if (snapshot_) {
            const auto& s = snapshot_->stages[static_cast<std::size_t>(i)];
            tip += tr("\ntotal time %1 ms over %2 requests, probes and refreshes").arg(s.time_ms_total, 0, 'f', 0)
                       .arg(count(s.entered));
            if (s.refreshes_entered > 0)
                tip += tr("\nrefreshes in %1 → out %2: stale-while-revalidate refreshes, the "
                          "gateway's own calls for a stale cache entry (to the engines and into the "
                          "cache, never to merge); in the mean and max times and the total, not in "
                          "the in and out counts above")
                           .arg(count(s.refreshes_entered), count(s.refreshes_passed));
            if (i == static_cast<int>(gateway::Stage::Edge))
                tip += tr("\nin: the accepted requests, the count above the charts");
            if (probesShown_)
                tip += tr("\nprobes: the synthetic health probes (a search per region every 15 s, and "
                          "with probed balancing one into every zone of every provider every 5 s), which go through the "
                          "path like any request; the mean and max times include them, the in and "
                          "out counts above them do not");
        }
        QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    QToolTip::hideText();
    event->ignore();
    return true;
}

}  // namespace taillab::ui
