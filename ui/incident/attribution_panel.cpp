#include "incident/attribution_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gateway/week_time.h"
#include "plots/chart_style.h"
#include "table_widgets.h"
#include "ui_threads.h"

namespace taillab::ui {
namespace {

using gateway::RequestWaterfall;

QString ms(double v) {
    if (std::abs(v) >= 10000) return QString("%1 s").arg(v / 1000, 0, 'f', 2);
    if (std::abs(v) >= 100) return QString("%1 ms").arg(v, 0, 'f', 0);
    return QString("%1 ms").arg(v, 0, 'f', std::abs(v) >= 10 ? 1 : 2);
}

// A latency in ms as the rest of the app writes numbers: "10,000", "812.5", "3.25".
QString latencyText(double v) { return chart_style::formatNumber(v); }

QString name(std::string_view v) { return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())); }

// An identifier as words: "deadline_missed" -> "deadline missed".
QString words(std::string_view id) { return name(id).replace('_', ' '); }

QString stageName(gateway::Stage s) { return name(gateway::kStageNames[static_cast<std::size_t>(s)]); }

QString noteLabel(gateway::NoteKind k) {
    switch (k) {
        case gateway::NoteKind::SpillRefused: return QObject::tr("spill refused: breaker open");
        case gateway::NoteKind::HedgeDenied: return QObject::tr("hedge denied: budget empty");
        case gateway::NoteKind::HedgeTooLate: return QObject::tr("no hedge: too little deadline left");
        case gateway::NoteKind::HedgeNoEngine: return QObject::tr("no hedge: no other engine");
        case gateway::NoteKind::AnswerInvalid: return QObject::tr("answer refused by validation");
    }
    return {};
}

// The failure in words ("deadline missed"), "" for a request that did not fail.
QString errorWords(const RequestWaterfall& w) { return w.error.empty() ? QString() : words(w.error); }

// Why it ended as it did, in words: what a client got and what refused it.
QString verdictOf(const RequestWaterfall& w) {
    QString s = w.disguised ? QObject::tr("%1 with no results, in truth %2").arg(w.status).arg(errorWords(w))
                            : QString("%1 %2").arg(w.status).arg(words(gateway::kOutcomeNames[static_cast<std::size_t>(w.outcome)]));
    if (!w.message.empty()) s += QString(" · %1").arg(QString::fromStdString(w.message));
    if (w.disguised) s += QObject::tr(" · a failure the client saw as a success");
    if (w.cache_hit) s += QObject::tr(" · cache hit");
    if (w.coalesced) s += QObject::tr(" · joined another request's flight");
    for (const gateway::NoteSpan& n : w.notes) s += QString(" · %1 at %2").arg(noteLabel(n.kind), ms(n.at_ms));
    return s;
}

struct Row {
    QString label;
    double start, end;
    QColor color;
    QString note;
    double queuedFrom = NAN;  // a call that waited in its engine's queue: since when (until start)
    bool marker = false;      // a decision at one moment (start): drawn as a tick, not a bar
    bool noBar = false;       // a call given up in its engine's queue: only the wait is drawn
    bool notReached = false;  // a stage the request never got to: no bar, no times
    QString why = {};         // not reached: why, said across the plot
};

// Why a stage was not reached: the request was still waiting upstream when it was answered, or
// it had been answered (failed) before its path got there.
QString whyNotReached(const RequestWaterfall& w, const gateway::StageSpan& s) {
    if (s.waiting_at == gateway::Stage::Engines)
        return QObject::tr("still waiting on the engines when the response went out");
    if (s.waiting_at)
        return QObject::tr("still waiting at %1 when the response went out").arg(stageName(*s.waiting_at));
    return gateway::isFailed(w.outcome) ? QObject::tr("failed before it got here")
                                        : QObject::tr("answered before it got here");
}


std::vector<Row> rowsOf(const RequestWaterfall& w) {
    static const QColor kStage(0x4c, 0x78, 0xa8), kCall(0xf5, 0x85, 0x18), kHedge(0xe4, 0x57, 0x56),
        kSpill(0x9d, 0x75, 0x5d), kNote(0x7f, 0x7f, 0x7f);
    std::vector<Row> rows;
    for (const gateway::StageSpan& s : w.stages) {
        QString label = stageName(s.stage);
        if (!s.reached) {
            Row row{label, s.start_ms, s.end_ms, kStage, QObject::tr("not reached")};
            row.notReached = true;
            row.why = whyNotReached(w, s);
            rows.push_back(std::move(row));
            continue;
        }
        if (s.spilled) label += QObject::tr(" (spilled)");
        if (s.shared_answer) label += QObject::tr(" (leader's answer)");
        // Its host had not answered by the response: stuck on a host that never answers, or
        // still waiting for a CPU.
        if (s.unfinished) label += QObject::tr(" (unfinished)");
        rows.push_back({label, s.start_ms, s.end_ms, s.spilled ? kSpill : kStage,
                        s.unfinished ? QObject::tr("no answer from its host")
                                     : QObject::tr("deadline left %1").arg(ms(w.deadlineLeftAt(s)))});
    }
    for (const gateway::CallSpan& c : w.calls) {
        const QString role = name(gateway::kCallRoleNames[static_cast<std::size_t>(c.role)]);
        const QString engine = QString::fromStdString(c.engine_name);
        QString note = QObject::tr("budget %1").arg(ms(c.budget_ms));
        if (c.queued_ms > 0)
            note += QObject::tr(" · queued %1 at %2").arg(ms(c.queued_ms), engine);
        if (!c.launched)
            note += QObject::tr(" · given up in the queue at %1").arg(ms(c.start_ms));
        else if (c.cancelled_ms && *c.cancelled_ms < c.end_ms)
            note += QObject::tr(" · given up at %1").arg(ms(*c.cancelled_ms));
        else if (c.failure != gateway::CallFailure::None)
            note += " · " + name(gateway::callFailureName(c.failure));
        Row row{QString("%1 %2 (%3)").arg(engine, role,
                                          name(gateway::kRegionNames[static_cast<std::size_t>(c.region)])),
                c.start_ms, c.until_ms(), c.role == gateway::CallRole::Primary ? kCall : kHedge, note};
        if (c.queued_ms > 0) row.queuedFrom = c.queued_from_ms();
        row.noBar = !c.launched;
        rows.push_back(std::move(row));
    }
    for (const gateway::NoteSpan& n : w.notes) {
        Row row{noteLabel(n.kind), n.at_ms, n.at_ms, kNote, QObject::tr("at %1").arg(ms(n.at_ms))};
        row.marker = true;
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

WaterfallWidget::WaterfallWidget(QWidget* parent) : QWidget(parent) {
    setObjectName("incidentWaterfall");
    setMinimumHeight(120);
}

void WaterfallWidget::setRequest(std::optional<RequestWaterfall> request) {
    request_ = std::move(request);
    updateGeometry();
    update();
}

QStringList WaterfallWidget::rowTexts() const {
    QStringList out;
    if (!request_) return out;
    for (const Row& r : rowsOf(*request_))
        out << (r.notReached ? QString("%1: %2, %3").arg(r.label, r.note, r.why)
                             : QString("%1 %2–%3, %4").arg(r.label, ms(r.start), ms(r.end), r.note));
    return out;
}

QSize WaterfallWidget::sizeHint() const {
    const int rows = request_ ? static_cast<int>(rowsOf(*request_).size()) : 3;
    return {480, 28 + (rows + 3) * (fontMetrics().height() + 4)};
}

void WaterfallWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm = fontMetrics();
    if (!request_) {
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Click a moment on any chart: the slowest requests of that window appear on the "
                      "left; pick one to see its waterfall."));
        return;
    }
    const RequestWaterfall& w = *request_;
    const std::vector<Row> rows = rowsOf(w);
    // The label column fits its longest label ("compiler (leader's answer)") up to a third of
    // the width; the note column its longest note.
    int widestLabel = 0, widestNote = 0;
    for (const Row& r : rows) {
        widestLabel = std::max(widestLabel, fm.horizontalAdvance(r.label));
        widestNote = std::max(widestNote, fm.horizontalAdvance(r.note));
    }
    const int labelWidth = std::clamp(widestLabel + 14, 150, std::max(150, width() / 3));
    const int noteWidth = std::clamp(widestNote + 8, 120, std::max(120, width() / 4));
    const int lineH = fm.height() + 4;
    const int top = lineH + 4;
    const QRect plot(labelWidth, top, std::max(40, width() - labelWidth - noteWidth - 8),
                     static_cast<int>(rows.size()) * lineH);
    const double span = std::max({w.latency_ms, w.deadline_ms, 1.0});
    auto x = [&](double v) { return plot.left() + plot.width() * std::clamp(v, 0.0, span) / span; };
    // The axis: accept, the response, the deadline.
    p.drawText(QRect(0, 0, labelWidth - 6, lineH), Qt::AlignRight | Qt::AlignVCenter, tr("since accept"));
    p.drawText(QRect(plot.left(), 0, plot.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter, "0");
    p.drawText(QRect(plot.left(), 0, plot.width(), lineH), Qt::AlignRight | Qt::AlignVCenter, ms(span));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        const int y = top + static_cast<int>(i) * lineH;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, y, labelWidth - 10, lineH), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(r.label, Qt::ElideRight, labelWidth - 10));
        const double x0 = x(r.start), x1 = std::max(x(r.end), x0 + 2);  // short work stays visible
        if (r.marker) {
            // A decision at one moment: a tick with a small triangle on top.
            p.fillRect(QRectF(x0 - 1, y + 2, 2, lineH - 4), r.color);
            const QPointF tri[] = {{x0 - 4, double(y + 2)}, {x0 + 4, double(y + 2)}, {x0, double(y + 7)}};
            p.setBrush(r.color);
            p.setPen(Qt::NoPen);
            p.drawPolygon(tri, 3);
            p.setBrush(Qt::NoBrush);
        } else if (r.notReached) {
            // Nothing to draw: the row says so across the plot, muted.
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(QRect(plot.left() + 6, y, plot.width() - 6, lineH), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(r.why, Qt::ElideRight, plot.width() - 6));
        } else {
            // The wait in the engine's queue ("queued"), then the flight ("engines").
            if (std::isfinite(r.queuedFrom)) {
                const double q0 = x(r.queuedFrom);
                p.fillRect(QRectF(q0, y + 5, std::max(x0 - q0, 2.0), lineH - 10),
                           QColor::fromRgb(kQueuedColor));
            }
            if (!r.noBar) p.fillRect(QRectF(x0, y + 3, x1 - x0, lineH - 6), r.color);
        }
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(plot.right() + 6, y, noteWidth, lineH), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(r.note, Qt::ElideRight, noteWidth));
    }
    // The response and the deadline as lines across the rows.
    p.setPen(QPen(palette().color(QPalette::Text), 1.5));
    p.drawLine(QPointF(x(w.latency_ms), top - 2), QPointF(x(w.latency_ms), plot.bottom() + 2));
    if (w.deadline_ms > 0) {
        p.setPen(QPen(QColor(0xd6, 0x27, 0x28), 1.5, Qt::DashLine));
        p.drawLine(QPointF(x(w.deadline_ms), top - 2), QPointF(x(w.deadline_ms), plot.bottom() + 2));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(plot.left(), plot.bottom() + 4, plot.width() + noteWidth, lineH),
               Qt::AlignLeft | Qt::AlignVCenter,
               tr("response at %1 (solid line) · deadline %2 (red dashed)").arg(ms(w.latency_ms), ms(w.deadline_ms)));
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRect(8, plot.bottom() + 4 + lineH, width() - 16, 2 * lineH),
               Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
               tr("blue: the gateway's stages (their wait for a CPU included) · orange: primary call · "
                  "red: hedge or retry · purple: queued at the engine, waiting for a slot · "
                  "grey tick: a decision"));
}

AttributionPanel::AttributionPanel(QWidget* parent)
    : QWidget(parent), inbox_(std::make_unique<UiInbox>()),
      thread_(std::make_unique<WorkerThread>("taillab-attribution")) {
    setObjectName("incidentAttribution");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_ = new QLabel(tr("No window attributed yet: click a moment on any chart."), this);
    summary_->setObjectName("incidentAttributionSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    auto* left = new QWidget(split);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    stages_ = makeReadOnlyTable({tr("Where the time went"), tr("Total (s)"), tr("Share (%)"),
                                 tr("Per request (ms)")},
                                left);
    stages_->setObjectName("incidentStageTable");
    leftLayout->addWidget(stages_, 2);
    slowest_ = makeReadOnlyTable({tr("Latency (ms)"), tr("Status"), tr("Error"), tr("Region"),
                                  tr("Accepted")},
                                 left);
    slowest_->setObjectName("incidentSlowestTable");
    leftLayout->addWidget(slowest_, 3);
    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    verdict_ = new QLabel(right);
    verdict_->setObjectName("incidentVerdict");
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rightLayout->addWidget(verdict_);
    waterfall_ = new WaterfallWidget(right);
    rightLayout->addWidget(waterfall_, 1);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    connect(slowest_, &QTableWidget::currentCellChanged, this,
            [this](int row, int, int, int) { selectRequest(row); });
}

AttributionPanel::~AttributionPanel() {
    if (control_) control_->requestCancel();
    thread_.reset();  // joins before the inbox goes
}

void AttributionPanel::attribute(const Params& params, std::uint64_t seed, const Timeline& timeline,
                                 double t0_s, double t1_s, const QString& label) {
    if (control_) control_->requestCancel();
    control_ = std::make_shared<RunControl>();
    const quint64 generation = ++generation_;
    busy_ = true;
    offset_s_ = week_time::startOffset_s(params.spec("start_day") ? params.choiceIndex("start_day") : 0);
    summary_->setText(tr("Attributing %1: running the simulation again to the window's end…").arg(label));
    gateway::AttributionQuery q;
    q.t0_s = t0_s;
    q.t1_s = t1_s;
    q.slowest = kSlowest;
    thread_->post([this, params, seed, timeline, q, control = control_, generation, label] {
        std::optional<gateway::WindowAttribution> r;
        std::string error;
        try {
            r = gateway::attributeWindow(params, seed, timeline, q, control.get());
        } catch (const std::exception& e) {
            error = e.what();
        }
        inbox_->post([this, r = std::move(r), error, generation, label] {
            if (generation != generation_) return;  // a newer request took over
            busy_ = false;
            if (!error.empty()) {
                summary_->setText(tr("Attribution failed: %1").arg(QString::fromStdString(error)));
                emit failed(QString::fromStdString(error));
                return;
            }
            if (r) show(*r, label);
        });
    });
}

void AttributionPanel::show(const gateway::WindowAttribution& r, const QString& label) {
    result_ = r;
    const double share = r.requests ? 100.0 * static_cast<double>(r.failed) / static_cast<double>(r.requests) : 0;
    summary_->setText(tr("%1: %2 requests accepted in the window, %3 failed (%4%), %5 rejected, "
                         "%6 answered as an empty 200. Deadline %7. The %8 slowest are listed.")
                          .arg(label)
                          .arg(r.requests)
                          .arg(r.failed)
                          .arg(share, 0, 'f', 1)
                          .arg(r.rejected)
                          .arg(r.disguised)
                          .arg(ms(r.deadline_ms))
                          .arg(r.slowest.size()));
    stages_->setRowCount(gateway::kSegments);
    for (int s = 0; s < gateway::kSegments; ++s) {
        const double total = r.segment_ms_total[static_cast<std::size_t>(s)];
        const QStringList cells{name(gateway::segmentName(s)), QString::number(total / 1000, 'f', 2),
                                QString::number(r.latency_ms_total > 0 ? 100 * total / r.latency_ms_total : 0, 'f', 1),
                                QString::number(r.requests ? total / static_cast<double>(r.requests) : 0, 'f', 2)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = stages_->item(s, c);
            if (!item) stages_->setItem(s, c, item = new QTableWidgetItem);
            item->setText(cells[c]);
        }
    }
    stages_->resizeColumnsToContents();
    slowest_->setRowCount(static_cast<int>(r.slowest.size()));
    for (int i = 0; i < static_cast<int>(r.slowest.size()); ++i) {
        const RequestWaterfall& w = r.slowest[static_cast<std::size_t>(i)];
        const QStringList cells{latencyText(w.latency_ms),
                                QString("%1%2").arg(w.status).arg(w.disguised ? tr(" (empty)") : QString()),
                                w.error.empty() ? QString("—") : errorWords(w),
                                name(gateway::kRegionNames[static_cast<std::size_t>(w.region)]),
                                week_time::label(offset_s_ + w.accepted_s, true)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = slowest_->item(i, c);
            if (!item) slowest_->setItem(i, c, item = new QTableWidgetItem);
            item->setText(cells[c]);
            item->setToolTip(verdictOf(w));
        }
    }
    slowest_->resizeColumnsToContents();
    // The tables show whole: the waterfall gives up width first.
    int tables = 0;
    for (QTableWidget* t : {stages_, slowest_}) {
        int w = 2 * t->frameWidth() + t->verticalScrollBar()->sizeHint().width() +
                (t->verticalHeader()->isVisible() ? t->verticalHeader()->width() : 0);
        for (int c = 0; c < t->columnCount(); ++c) w += t->columnWidth(c);
        tables = std::max(tables, w);
    }
    stages_->parentWidget()->setMinimumWidth(std::min(tables, width() / 2));
    selectRequest(r.slowest.empty() ? -1 : 0);
    if (!r.slowest.empty()) slowest_->setCurrentCell(0, 0);
    emit attributed();
}

void AttributionPanel::selectRequest(int row) {
    if (!result_ || row < 0 || row >= static_cast<int>(result_->slowest.size())) {
        waterfall_->setRequest(std::nullopt);
        verdict_->setText(result_ && result_->slowest.empty() ? tr("No request was accepted in this window.") : QString());
        return;
    }
    const RequestWaterfall& w = result_->slowest[static_cast<std::size_t>(row)];
    verdict_->setText(tr("Request %1 (%2 ms): %3").arg(w.trace).arg(latencyText(w.latency_ms), verdictOf(w)));
    waterfall_->setRequest(w);
}

}  // namespace taillab::ui
