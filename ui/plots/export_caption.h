// The line under an exported chart or sheet: the run (scenario, seed), what differs from the
// scenario (one item a knob), TailLab's version. A line too long for its image is shortened at a
// whole item, with the count of those left out ("… and 2 more"), never inside a word; CSV and
// JSON write it whole. Qt only (no QCustomPlot), for the charts and the sheets alike.
#pragma once

#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace taillab::ui {

struct ExportCaption {
    QString lead;       // "fanout · seed 1"
    QStringList items;  // "Backends per request (N) = 50 (scenario: 100)", in order
    QString none;       // said in the items' place when there are none: "the scenario's knobs"
    QString tail;       // "TailLab 0.1.0"
    // What the items are, for a caption that shows none of them: "3 knob changes".
    QString itemName = QStringLiteral("knob change"), itemsName = QStringLiteral("knob changes");

    // A caption of one text, shortened only after a whole word.
    static ExportCaption plain(const QString& text) {
        ExportCaption c;
        c.lead = text;
        return c;
    }
    bool isEmpty() const { return lead.isEmpty() && items.isEmpty() && none.isEmpty() && tail.isEmpty(); }
    // The whole line: "lead · item, item · tail".
    QString text() const;
    // The longest form that fits `width` pixels: every item; else the first ones that fit and
    // "… and N more"; else none of them ("7 knob changes"); then the same without the tail; then
    // the lead alone; and only then the lead cut after its last whole word that fits.
    QString fitted(const QFontMetrics& metrics, int width) const;
};

}  // namespace taillab::ui
