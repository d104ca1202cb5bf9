#include "plots/export_caption.h"

namespace taillab::ui {
namespace {

const QString kSeparator = QString::fromUtf8(" · ");

}  // namespace

QString ExportCaption::text() const {
    QStringList parts;
    if (!lead.isEmpty()) parts << lead;
    if (!items.isEmpty()) parts << items.join(", ");
    else if (!none.isEmpty()) parts << none;
    if (!tail.isEmpty()) parts << tail;
    return parts.join(kSeparator);
}

QString ExportCaption::fitted(const QFontMetrics& metrics, int width) const {
    const QString whole = text();
    if (metrics.horizontalAdvance(whole) <= width) return whole;
    const auto n = items.size();
    // The first `k` items and a count of the rest, with or without the tail.
    auto form = [&](qsizetype k, bool withTail) {
        QStringList parts;
        if (!lead.isEmpty()) parts << lead;
        if (n == 0) {
            if (!none.isEmpty()) parts << none;
        } else if (k == n) {
            parts << items.join(", ");
        } else if (k > 0) {
            parts << items.mid(0, k).join(", ") + QString::fromUtf8(", … and %1 more").arg(n - k);
        } else {
            parts << QString("%1 %2").arg(n).arg(n == 1 ? itemName : itemsName);
        }
        if (withTail && !tail.isEmpty()) parts << tail;
        return parts.join(kSeparator);
    };
    for (const bool withTail : {true, false})
        for (qsizetype k = n; k >= 0; --k) {
            const QString s = form(k, withTail);
            if (metrics.horizontalAdvance(s) <= width) return s;
        }
    if (metrics.horizontalAdvance(lead) <= width) return lead;
    // Not even the lead fits: its words up to the last that does, then an ellipsis.
    const QString ellipsis = QString(QChar(0x2026));
    QString kept;
    for (const QString& word : lead.split(' ', Qt::SkipEmptyParts)) {
        const QString next = kept.isEmpty() ? word : kept + ' ' + word;
        if (metrics.horizontalAdvance(next + ' ' + ellipsis) > width) break;
        kept = next;
    }
    return kept.isEmpty() ? ellipsis : kept + ' ' + ellipsis;
}

}  // namespace taillab::ui
