#include "message_banner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

#include "palette_colors.h"

namespace taillab::ui {

MessageBanner::MessageBanner(QWidget* parent) : QFrame(parent) {
    setObjectName("messageBanner");
    setFrameShape(QFrame::StyledPanel);
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

void MessageBanner::changeEvent(QEvent* event) {
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !restyling_) {
        restyling_ = true;
        restyle();
        restyling_ = false;
    }
}

void MessageBanner::restyle() {
    const int side = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    icon_->setPixmap(style()
                         ->standardIcon(kind_ == Kind::Error ? QStyle::SP_MessageBoxWarning
                                                             : QStyle::SP_MessageBoxInformation)
                         .pixmap(side, side));
    // From the parent's palette: the style sheet below changes this frame's own.
    const QPalette p = parentWidget() ? parentWidget()->palette() : palette();
    const QColor accent = kind_ == Kind::Error ? failColor(p) : noticeColor(p);
    const QColor fill = blend(p.color(QPalette::Window), accent, 0.12);
    // Only this frame: the label and the button keep the palette's own colours.
    const QString sheet = QString("QFrame#messageBanner { background: %1; border: 1px solid %2; "
                                  "border-radius: 4px; }")
                              .arg(fill.name(), accent.name());
    if (sheet != styleSheet()) setStyleSheet(sheet);  // setting it sends a PaletteChange
}

}  // namespace taillab::ui
