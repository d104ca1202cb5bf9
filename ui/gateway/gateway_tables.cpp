#include "gateway/gateway_tables.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "gateway/gateway_charts.h"
#include "gateway/week_time.h"
#include "table_widgets.h"

namespace taillab::ui {
namespace {

// The shared read-only table, with compact rows, the first column taking the spare width.
QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    QTableWidget* t = makeReadOnlyTable(headers, parent);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < headers.size(); ++c)
        t->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    return t;
}

QString grouped(std::uint64_t v) {
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(v));
}

QString percent(double num, double den) {
    return den > 0 ? QString::number(100.0 * num / den, 'f', 1) + "%" : QString("–");
}

// A page with a wrapped note above its table (hidden until there is something to say), the table
// taking the height. Returns the page; the note goes to *note.
QWidget* notedPage(QTableWidget* table, const char* noteName, QLabel** note, QWidget* parent) {
    auto* page = new QWidget(parent);
    auto* column = new QVBoxLayout(page);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    *note = new QLabel(page);
    (*note)->setObjectName(noteName);
    (*note)->setWordWrap(true);
    (*note)->setContentsMargins(4, 2, 4, 2);
    (*note)->setVisible(false);
    column->addWidget(*note);
    column->addWidget(table, 1);
    return page;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = t->item(row, c);
        if (!item) {
            item = new QTableWidgetItem;
            item->setTextAlignment((c == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
            t->setItem(row, c, item);
        }
        if (item->text() != cells[c]) item->setText(cells[c]);
    }
}

}  // namespace

GatewayTables::GatewayTables(QWidget* parent) : QTabWidget(parent) {
    setObjectName("gatewayTables");
    setDocumentMode(true);
    customers_ = makeTable(
        {tr("Customer"), tr("Requests"), tr("p99 (ms)"), tr("× global"), tr("503s")}, this);
    customers_->setObjectName("gatewayCustomersTable");
    customers_->horizontalHeaderItem(3)->setToolTip(
        tr("How many times the global p99 this customer's own p99 is, both read at the "
           "customers' resolution (1%)"));
    customers_->horizontalHeaderItem(4)->setToolTip(
        tr("Share of this customer's requests that ended in a 503 after acceptance (deadline "
           "missed or no engine), each recorded at its latency"));
    counters_ = makeTable({tr("Counter"), tr("Value"), tr("Share")}, this);
    counters_->setObjectName("gatewayCountersTable");
    timeline_ = makeTable({tr("Event"), tr("Simulated time (UTC)")}, this);
    timeline_->setObjectName("gatewayTimelineTable");
    addTab(notedPage(customers_, "gatewayCustomersNote", &customersNote_, this),
           tr("Worst customers"));
    addTab(counters_, tr("Counters"));
    // An empty timeline says so above its table, as the empty customer ranking does.
    addTab(notedPage(timeline_, "gatewayTimelineNote", &timelineNote_, this), tr("Timeline"));
}

double GatewayTables::globalP99_ms(const gateway::GatewaySnapshot& s) {
    return s.latency_us.empty()
               ? std::nan("")
               : static_cast<double>(s.latency_us.valueAtPercentile(99.0)) / 1000.0;
}

QString GatewayTables::conservationLine(const gateway::GatewaySnapshot& s) {
    const bool holds = s.accepted == s.answered + s.rejected + s.failed + s.in_flight;
    return tr("accepted %1 = answered %2 + rejected %3 + failed %4 + in flight %5  %6")
        .arg(grouped(s.accepted), grouped(s.answered), grouped(s.rejected), grouped(s.failed),
             grouped(s.in_flight), holds ? QString("✓") : tr("✗ does not add up"));
}

QString GatewayTables::conservationHelp() {
    return tr("Every accepted request ends exactly once: answered, rejected (401, 429, shed) or "
              "failed (deadline, no engine), or is still in flight");
}

void GatewayTables::setElapsedTime(bool elapsed) {
    elapsed_ = elapsed;
    timelineKey_.clear();
    timeline_->setHorizontalHeaderItem(
        1, new QTableWidgetItem(elapsed ? tr("Time since start") : tr("Simulated time (UTC)")));
}

void GatewayTables::setFrame(const GatewayFramePtr& frame) {
    if (!frame || !frame->snapshot) return;
    fillCustomers(*frame->snapshot, frame->params.real("deadline_ms"));
    fillCounters(*frame->snapshot);
    fillTimeline(*frame);
}

QString GatewayTables::customersNote() const {
    return customersNote_->isHidden() ? QString() : customersNote_->text();
}

QString GatewayTables::timelineNote() const {
    return timelineNote_->isHidden() ? QString() : timelineNote_->text();
}

double GatewayTables::customersGlobalP99_ms(const gateway::GatewaySnapshot& s) {
    return std::isnan(s.customers_global_p99_ms) ? globalP99_ms(s) : s.customers_global_p99_ms;
}

void GatewayTables::fillCustomers(const gateway::GatewaySnapshot& s, double deadline_ms) {
    // The customers' p99s have 2 significant digits: compared with the global p99 read the same
    // way, a customer whose requests are the global tail reads 1.00 ×, and the note says the
    // number its rows show.
    const double global = customersGlobalP99_ms(s);
    // When every listed customer's p99 is the global one and that sits at the deadline, the
    // table ranks nobody: the tail is the deadline's, and only the 503 share tells them apart.
    bool allAtGlobal = !s.worst_customers.empty() && global > 0;
    for (const auto& c : s.worst_customers)
        allAtGlobal = allAtGlobal && std::abs(c.p99_ms / global - 1.0) < 0.03;
    const bool atDeadline = allAtGlobal && global >= 0.9 * deadline_ms;
    QString note;
    if (s.worst_customers.empty())
        note = tr("No customer is ranked yet: each needs %1 requests of its own for its p99 (%2 "
                  "accepted so far, all customers together).")
                   .arg(gateway::kCustomerTailMinRequests)
                   .arg(grouped(s.accepted));
    else if (atDeadline)
        note = tr("Every customer listed has the global p99 (%1 ms), at the %2 ms deadline: the "
                  "tail is the deadline's, not any customer's. They are ranked by their share of "
                  "503s.")
                   .arg(global, 0, 'f', global >= 100 ? 0 : 1)
                   .arg(deadline_ms, 0, 'f', 0);
    else if (allAtGlobal)
        note = tr("Every customer listed has about the global p99 (%1 ms): no customer's tail "
                  "stands out.")
                   .arg(global, 0, 'f', global >= 100 ? 0 : 1);
    if (customersNote_->text() != note) customersNote_->setText(note);
    customersNote_->setVisible(!note.isEmpty());
    customers_->setRowCount(static_cast<int>(s.worst_customers.size()));
    for (std::size_t i = 0; i < s.worst_customers.size(); ++i) {
        const auto& c = s.worst_customers[i];
        const QString ratio =
            global > 0 ? QString::number(c.p99_ms / global, 'f', 2) + " ×" : QString("–");
        setRow(customers_, static_cast<int>(i),
               {QString::fromStdString(c.name), grouped(c.requests),
                QString::number(c.p99_ms, 'f', c.p99_ms >= 100 ? 0 : 1), ratio,
                percent(c.failed, static_cast<double>(c.requests))});
        customers_->item(static_cast<int>(i), 2)->setToolTip(
            tr("p99.9: %1 ms").arg(c.p999_ms, 0, 'f', c.p999_ms >= 100 ? 0 : 1));
    }
}

void GatewayTables::fillCounters(const gateway::GatewaySnapshot& s) {
    std::vector<QStringList> rows;
    const double accepted = static_cast<double>(s.accepted);
    rows.push_back({tr("accepted"), grouped(s.accepted), QString()});
    rows.push_back({tr("answered"), grouped(s.answered), percent(s.answered, accepted)});
    rows.push_back({tr("rejected"), grouped(s.rejected), percent(s.rejected, accepted)});
    rows.push_back({tr("failed"), grouped(s.failed), percent(s.failed, accepted)});
    rows.push_back({tr("in flight"), grouped(s.in_flight), percent(s.in_flight, accepted)});
    // Each outcome in words, with its status: the identifiers (kOutcomeNames) are the result
    // files' and /metrics' names.
    const QString outcomeWords[gateway::kOutcomes] = {
        tr("answered"),         tr("bad request"),     tr("unknown API key"), tr("rate limited"),
        tr("shed by admission"), tr("deadline missed"), tr("no engine answered")};
    static_assert(gateway::kOutcomes == 7, "a word for each outcome");
    for (int o = 0; o < gateway::kOutcomes; ++o) {
        rows.push_back({tr("%1 (%2)").arg(outcomeWords[o]).arg(gateway::kOutcomeStatus[o]),
                        grouped(s.outcomes[o]), percent(s.outcomes[o], accepted)});
    }
    const double primary = static_cast<double>(s.primary_calls);
    rows.push_back({tr("engine calls: primary"), grouped(s.primary_calls), QString()});
    rows.push_back({tr("engine calls: hedges"), grouped(s.hedge_calls),
                    percent(s.hedge_calls, primary)});
    rows.push_back({tr("engine calls: last-chance"), grouped(s.last_chance_calls),
                    percent(s.last_chance_calls, primary)});
    rows.push_back({tr("engine calls: cancelled"), grouped(s.cancelled_calls),
                    percent(s.cancelled_calls, primary)});
    rows.push_back({tr("invalid upstream answers"), grouped(s.invalid_answers),
                    percent(s.invalid_answers, primary)});
    rows.push_back({tr("coalesced requests"), grouped(s.coalesced), percent(s.coalesced, accepted)});
    std::uint64_t lookups = 0, hits = 0;
    for (int k = 0; k < gateway::kClasses; ++k) {
        lookups += s.cache_lookups[k];
        hits += s.cache_hits[k];
    }
    rows.push_back({tr("cache hits / lookups"), grouped(hits) + " / " + grouped(lookups),
                    percent(hits, lookups)});
    rows.push_back({tr("synthetic probes (not in accepted)"), grouped(s.probes), QString()});
    rows.push_back({tr("hedge budget level"), QString::number(100 * s.hedge_budget_level, 'f', 1) + " %",
                    QString()});
    for (int r = 0; r < gateway::kRegions; ++r)
        rows.push_back({tr("%1 in flight / admission limit")
                            .arg(QString::fromUtf8(gateway::kRegionNames[r])),
                        QString("%1 / %2").arg(s.inflight[r]).arg(s.admission_limit[r]),
                        QString()});
    counters_->setRowCount(static_cast<int>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) setRow(counters_, static_cast<int>(i), rows[i]);
}

void GatewayTables::fillTimeline(const GatewayFrame& f) {
    const auto& events = f.snapshot->timeline;
    // Redrawn only when it changed (a seek back can shrink it and regrow it differently).
    const QString key = QString("%1/%2/%3")
                            .arg(events.size())
                            .arg(events.empty() ? 0.0 : events.back().t_s, 0, 'g', 17)
                            .arg(f.runId);
    if (key == timelineKey_) return;
    timelineKey_ = key;
    const int startDay = f.params.spec("start_day") ? f.params.choiceIndex("start_day") : 0;
    const double offset = week_time::startOffset_s(startDay);
    // Up to now (a live run can still bring some): the scenario's own changes and faults, and
    // the breakers the run moved.
    timelineNote_->setText(events.empty() ? tr("No timeline events in this scenario so far: no knob "
                                               "change, fault, phase or breaker change.")
                                          : QString());
    timelineNote_->setVisible(events.empty());
    // Newest first.
    timeline_->setRowCount(static_cast<int>(events.size()));
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[events.size() - 1 - i];
        setRow(timeline_, static_cast<int>(i),
               {QString::fromStdString(gateway_charts::markLabel(e)),
                elapsed_ ? tr("%1 s").arg(e.t_s, 0, 'f', 1) : week_time::label(offset + e.t_s, true)});
    }
}

}  // namespace taillab::ui
