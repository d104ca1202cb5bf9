#include "results_panel.h"

#include <algorithm>
#include <QHeaderView>
#include <QLocale>
#include <QTableWidget>
#include <cmath>

#include "labs/figure_text.h"
#include "labs/lab_common.h"
#include "table_widgets.h"

namespace taillab::ui {
namespace {

QString number(double v) {
    if (std::isnan(v)) return QString("—");  // no value: the check's tooltip says why
    if (!std::isfinite(v)) return QString::number(v);
    // A count reads as one, grouped ("1,000,000"), not "1e+06" in one lab and "100000" in the
    // next.
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return QString::fromStdString(groupedCount(static_cast<std::int64_t>(v)));
    if (v != 0 && (std::abs(v) >= 1e6 || std::abs(v) < 1e-3)) return QString::number(v, 'g', 4);
    // Grouped as counts are, so "14,782" and its bound "≤ 15,784.7" read alike.
    QString s = QLocale(QLocale::English).toString(v, 'f', std::abs(v) >= 100 ? 1 : 4);
    if (s.contains('.')) {
        while (s.endsWith('0')) s.chop(1);
        if (s.endsWith('.')) s.chop(1);
    }
    return s;
}

QTableWidgetItem* item(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
    auto* i = new QTableWidgetItem(text);
    i->setTextAlignment(align | Qt::AlignVCenter);
    return i;
}

// this - pinned, signed, with the relative change when it means something.
QString delta(double now, double pinned) {
    if (!std::isfinite(now) || !std::isfinite(pinned)) return QString("—");
    const double d = now - pinned;
    QString text = (d > 0 ? "+" : d < 0 ? "−" : "±") + number(std::abs(d));
    if (pinned != 0 && d != 0)
        text += QString(" (%1%2 %)")
                    .arg(d > 0 ? "+" : "−")
                    .arg(QString::number(std::abs(d / pinned) * 100, 'g', 3));
    return text;
}

}  // namespace

QString checkTallyText(const CheckTally& t) {
    QString text = QObject::tr("%1 pass").arg(t.passed);
    if (t.failed > 0) text += QObject::tr(" · %1 FAIL").arg(t.failed);
    if (t.inconclusive > 0) text += QObject::tr(" · %1 inconclusive").arg(t.inconclusive);
    if (t.not_applicable > 0) text += QObject::tr(" · %1 n/a").arg(t.not_applicable);
    return text;
}

void ResultsPanel::setBaseline(LabResultPtr baseline) { baseline_ = std::move(baseline); }

ResultsPanel::ResultsPanel(QWidget* parent) : QTabWidget(parent) {
    setObjectName("resultsPanel");
    checks_ = makeReadOnlyTable(
        {tr("Check"), tr("Simulated"), tr("Expected"), tr("Tolerance"), tr("Result")}, this);
    checks_->setObjectName("checksTable");
    checks_->horizontalHeaderItem(2)->setToolTip(
        tr("The closed form's value or the published figure"));
    checks_->horizontalHeader()->setMinimumSectionSize(48);
    for (int c = 1; c < 5; ++c)
        checks_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // The names tell the checks apart ("p50 before", "p50 after"): they take the room the numbers
    // leave and are never cut; a table too narrow for them all scrolls sideways.
    keepColumnWhole(checks_, 0);
    figures_ = makeReadOnlyTable({tr("Figure"), tr("Value")}, this);
    figures_->setObjectName("figuresTable");
    figures_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    figures_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    addTab(checks_, tr("Checks"));
    addTab(figures_, tr("Figures"));
}

void ResultsPanel::setNote(const QString& note) { note_ = note; }

void ResultsPanel::setResult(const LabResult* result) {
    checks_->clearSpans();
    checks_->setRowCount(0);
    figures_->setRowCount(0);
    if (!result) {
        setTabText(0, tr("Checks"));
        setTabText(1, tr("Figures"));
        return;
    }
    fillChecks(*result);
    fillFigures(*result);
}

void ResultsPanel::fillChecks(const LabResult& r) {
    const bool partial = r.progress < 1.0 || r.cancelled;
    checks_->setColumnCount(baseline_ ? kDeltaColumn + 1 : kDeltaColumn);
    if (baseline_) {
        auto* head = new QTableWidgetItem(tr("Δ vs pinned"));
        head->setToolTip(tr("This run's simulated value minus the pinned run's (%1)")
                             .arg(QString::fromStdString(baseline_->scenario)));
        checks_->setHorizontalHeaderItem(kDeltaColumn, head);
        checks_->horizontalHeader()->setSectionResizeMode(kDeltaColumn,
                                                          QHeaderView::ResizeToContents);
    }
    checks_->setRowCount(static_cast<int>(r.checks.size()) + (note_.isEmpty() ? 0 : 1));
    for (int row = 0; row < static_cast<int>(r.checks.size()); ++row) {
        const Check& c = r.checks[static_cast<std::size_t>(row)];
        QString source = QString::fromStdString(c.name) + "\n" + QString::fromStdString(c.source);
        if (!c.applies()) source += "\n" + QString::fromStdString(c.whyNotApplied());
        auto* name = item(QString::fromStdString(c.name));
        name->setToolTip(source);
        checks_->setItem(row, 0, name);
        checks_->setItem(row, 1, item(number(c.simulated), Qt::AlignRight));
        // A claim's expected value is a bound: its sign says which side the run must be on.
        const QString expected = c.bound == Bound::Within || std::isnan(c.closed_form)
                                     ? number(c.closed_form)
                                     : QString::fromUtf8(boundSymbol(c.bound)) + " " + number(c.closed_form);
        checks_->setItem(row, 2, item(expected, Qt::AlignRight));
        const QString tolerance =
            c.tolerance == 0          ? QString("—")
            : toleranceUnbounded(c) ? tr("unbounded")
            : c.relative ? "± " + QString::number(c.tolerance * 100, 'g', 3) + " %"
                         : "± " + QString::number(c.tolerance, 'g', 3);
        checks_->setItem(row, 3, item(tolerance, Qt::AlignRight));
        const Verdict v = verdictOf(c);
        auto* verdict = item(partial                           ? tr("(partial)")
                             : v == Verdict::NotApplicable ? tr("n/a")
                             : v == Verdict::Inconclusive  ? tr("inconclusive")
                             : v == Verdict::Pass          ? tr("pass")
                                                           : tr("FAIL"),
                             Qt::AlignCenter);
        if (!partial && c.applies()) {
            setCellTone(verdict, c.pass ? CellTone::Pass : CellTone::Fail, true);
            QFont f = verdict->font();
            f.setBold(true);
            verdict->setFont(f);
        }
        verdict->setToolTip(source);
        checks_->setItem(row, 4, verdict);
        if (baseline_) {
            QString d = QString("—");
            for (const Check& b : baseline_->checks)
                if (b.name == c.name) d = delta(c.simulated, b.simulated);
            checks_->setItem(row, kDeltaColumn, item(d, Qt::AlignRight));
        }
        for (int col = 0; col < 4; ++col) checks_->item(row, col)->setToolTip(source);
    }
    if (!note_.isEmpty()) {
        const int row = static_cast<int>(r.checks.size());
        auto* note = item(note_);
        setCellTone(note, CellTone::Muted);
        checks_->setItem(row, 0, note);
        checks_->setSpan(row, 0, 1, checks_->columnCount());
    }
    setTabText(0, r.checks.empty() ? tr("Checks")
                  : partial            ? tr("Checks (%1)").arg(r.checks.size())
                                       : tr("Checks (%1)").arg(checkTallyText(tallyChecks(r.checks))));
}

const FigureText& ResultsPanel::figureText(const std::string& name) {
    // A lab reports the same few hundred names on every redraw; describe each once.
    auto it = figureTexts_.find(name);
    if (it == figureTexts_.end()) it = figureTexts_.emplace(name, describeFigure(name)).first;
    return it->second;
}

void ResultsPanel::fillFigures(const LabResult& r) {
    figures_->setRowCount(static_cast<int>(r.figures.size()));
    figures_->setColumnCount(baseline_ ? 4 : 2);
    if (baseline_) {
        figures_->setHorizontalHeaderLabels({tr("Figure"), tr("Value"), tr("Pinned"), tr("Δ")});
        for (int c = 2; c < 4; ++c)
            figures_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    }
    for (int row = 0; row < static_cast<int>(r.figures.size()); ++row) {
        const auto& [name, value] = r.figures[static_cast<std::size_t>(row)];
        const FigureText& text = figureText(name);
        // The words for people; the identifier, which result files, `sweep --figures` and
        // `expect` use, in the tooltip and the item's data.
        QTableWidgetItem* label = item(QString::fromStdString(text.label));
        label->setData(Qt::UserRole, QString::fromStdString(name));
        label->setToolTip(QString::fromStdString(name));
        figures_->setItem(row, 0, label);
        const auto shown = [&](double v) { return QString::fromStdString(formatFigure(text, v)); };
        figures_->setItem(row, 1, item(shown(value), Qt::AlignRight));
        if (!baseline_) continue;
        const auto pinned = std::find_if(baseline_->figures.begin(), baseline_->figures.end(),
                                         [&](const auto& f) { return f.first == name; });
        const bool found = pinned != baseline_->figures.end();
        figures_->setItem(row, 2, item(found ? shown(pinned->second) : QString("—"), Qt::AlignRight));
        QString change("—");
        if (found && std::isfinite(value) && std::isfinite(pinned->second)) {
            const double d = value - pinned->second;
            change = (d > 0 ? "+" : d < 0 ? "−" : "±") + shown(std::abs(d));
            if (pinned->second != 0 && d != 0)
                change += QString(" (%1%2 %)")
                              .arg(d > 0 ? "+" : "−")
                              .arg(QString::number(std::abs(d / pinned->second) * 100, 'g', 3));
        }
        figures_->setItem(row, 3, item(change, Qt::AlignRight));
    }
    setTabText(1, tr("Figures (%1)").arg(r.figures.size()));
}

}  // namespace taillab::ui
