#include "message_banner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QToolButton>

#include "palette_colors.h"
#include "plots/chart_style.h"

namespace taillab::ui {

MessageBanner::Colors MessageBanner::colorsFor(const QPalette& p, Kind kind) {
    const QColor accent = kind == Kind::Error ? failColor(p) : noticeColor(p);
    Colors c;
    c.fill = blend(p.color(QPalette::Window), accent, isDark(p) ? 0.16 : 0.12);
    c.border = accent;
    c.text = p.color(QPalette::WindowText);
    // A palette whose text does not read on the tint (a system theme's odd pair): black or
    // white, whichever reads better.
    if (chart_style::contrastRatio(c.text, c.fill) < kMinContrast)
        c.text = chart_style::contrastRatio(Qt::black, c.fill) >= chart_style::contrastRatio(Qt::white, c.fill)
                     ? QColor(Qt::black)
                     : QColor(Qt::white);
    return c;
}

MessageBanner::MessageBanner(QWidget* parent) : QFrame(parent) {
    setObjectName("messageBanner");
    setFrameShape(QFrame::NoFrame);  // paintEvent draws the tint and its border
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(8, 6, 4, 6);
    row->setSpacing(8);
    icon_ = new QLabel(this);
    row->addWidget(icon_, 0, Qt::AlignTop);
    label_ = new QLabel(this);
    label_->setObjectName("messageBannerText");
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setTextFormat(Qt::RichText);
    row->addWidget(label_, 1);
    close_ = new QToolButton(this);
    close_->setObjectName("messageBannerClose");
    close_->setAutoRaise(true);
    close_->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close_->setToolTip(tr("Dismiss"));
    row->addWidget(close_, 0, Qt::AlignTop);
    connect(close_, &QToolButton::clicked, this, &MessageBanner::clear);
    setVisible(false);
}

void MessageBanner::showMessage(Kind kind, const QString& title, const QString& detail) {
    kind_ = kind;
    title_ = title;
    detail_ = detail;
    QString html = "<b>" + title.toHtmlEscaped() + "</b>";
    if (!detail.isEmpty())
        html += "<br><span style='white-space: pre-wrap'>" + detail.toHtmlEscaped() + "</span>";
    label_->setText(html);
    restyle();
    setVisible(true);
}

void MessageBanner::clear() {
    title_.clear();
    detail_.clear();
    label_->clear();
    setVisible(false);
}

QString MessageBanner::text() const {
    if (isHidden() || title_.isEmpty()) return {};
    return detail_.isEmpty() ? title_ : title_ + ": " + detail_;
}

QColor MessageBanner::labelTextColor() const { return label_->palette().color(QPalette::WindowText); }

void MessageBanner::changeEvent(QEvent* event) {
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) restyle();
}

void MessageBanner::paintEvent(QPaintEvent*) {
    const Colors c = colors();
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(c.border, 1));
    p.setBrush(c.fill);
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
}

void MessageBanner::restyle() {
    const int side = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    icon_->setPixmap(style()
                         ->standardIcon(kind_ == Kind::Error ? QStyle::SP_MessageBoxWarning
                                                             : QStyle::SP_MessageBoxInformation)
                         .pixmap(side, side));
    // The label's text in the colour that reads on the tint; a label's palette change does not
    // come back here (only this frame's own does).
    const QColor text = colors().text;
    QPalette lp = label_->palette();
    if (lp.color(QPalette::WindowText) != text || lp.color(QPalette::Text) != text) {
        lp.setColor(QPalette::WindowText, text);
        lp.setColor(QPalette::Text, text);
        label_->setPalette(lp);
    }
    update();
}

}  // namespace taillab::ui
