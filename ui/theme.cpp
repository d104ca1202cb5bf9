#include "theme.h"

#include <QAbstractButton>
#include <QApplication>
#include <QEvent>
#include <QPainter>
#include <QPixmap>
#include <QStyle>

namespace taillab::ui {
namespace {

Theme& current() {
    static Theme theme = Theme::System;
    return theme;
}

const QPalette& systemPalette() {
    static const QPalette palette = QApplication::palette();
    return palette;
}

}  // namespace

QPalette lightPalette() { return QApplication::style()->standardPalette(); }

QPalette darkPalette() {
    QPalette p;
    const QColor window(43, 43, 46), base(30, 30, 33), text(232, 232, 232);
    const QColor disabled(128, 128, 128);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(38, 38, 42));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(53, 53, 57));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 120, 120));
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    p.setColor(QPalette::Highlight, QColor(61, 125, 214));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(110, 170, 255));
    p.setColor(QPalette::LinkVisited, QColor(180, 140, 255));
    p.setColor(QPalette::Light, QColor(70, 70, 74));
    p.setColor(QPalette::Midlight, QColor(60, 60, 64));
    p.setColor(QPalette::Mid, QColor(45, 45, 48));
    p.setColor(QPalette::Dark, QColor(25, 25, 27));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(70, 70, 74));
    return p;
}

void applyTheme(Theme theme) {
    const QPalette& system = systemPalette();  // captured before the first change
    current() = theme;
    switch (theme) {
        case Theme::System:
            QApplication::setPalette(system);
            break;
        case Theme::Light:
            QApplication::setPalette(lightPalette());
            break;
        case Theme::Dark:
            QApplication::setPalette(darkPalette());
            break;
    }
}

Theme currentTheme() { return current(); }

QString themeName(Theme theme) {
    switch (theme) {
        case Theme::System:
            return "system";
        case Theme::Light:
            return "light";
        case Theme::Dark:
            return "dark";
    }
    return "system";
}

std::optional<Theme> parseTheme(const QString& name) {
    for (Theme t : {Theme::System, Theme::Light, Theme::Dark})
        if (name == themeName(t)) return t;
    return std::nullopt;
}

namespace {

// The icon's shape (its alpha) filled with `color`, at the sizes buttons ask for.
QIcon tinted(const QIcon& icon, const QColor& color, const QColor& disabled) {
    QIcon out;
    for (const int size : {16, 20, 24, 32, 48}) {
        const QPixmap shape = icon.pixmap(size, size);
        if (shape.isNull()) continue;
        for (const auto& [mode, c] : {std::pair{QIcon::Normal, color}, std::pair{QIcon::Disabled, disabled}}) {
            QPixmap pm(shape.size());
            pm.setDevicePixelRatio(shape.devicePixelRatio());
            pm.fill(Qt::transparent);
            QPainter p(&pm);
            p.drawPixmap(0, 0, shape);
            p.setCompositionMode(QPainter::CompositionMode_SourceIn);
            p.fillRect(pm.rect(), c);
            p.end();
            out.addPixmap(pm, mode);
        }
    }
    return out;
}

// Re-tints its button's icon when the button's palette changes.
class PaletteIconFilter : public QObject {
  public:
    PaletteIconFilter(QAbstractButton* button, QStyle::StandardPixmap icon)
        : QObject(button), button_(button), icon_(icon) {
        apply();
        button->installEventFilter(this);
    }
    void setIcon(QStyle::StandardPixmap icon) {
        icon_ = icon;
        apply();
    }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == button_ && event->type() == QEvent::PaletteChange) apply();
        return false;
    }

  private:
    void apply() {
        const QPalette& pal = button_->palette();
        button_->setIcon(tinted(button_->style()->standardIcon(icon_), pal.color(QPalette::Active, QPalette::ButtonText),
                                pal.color(QPalette::Disabled, QPalette::ButtonText)));
    }
    QAbstractButton* button_;
    QStyle::StandardPixmap icon_;
};

}  // namespace

void setPaletteIcon(QAbstractButton* button, QStyle::StandardPixmap icon) {
    if (auto* existing = button->findChild<PaletteIconFilter*>(QString(), Qt::FindDirectChildrenOnly)) {
        existing->setIcon(icon);
        return;
    }
    new PaletteIconFilter(button, icon);
}

}  // namespace taillab::ui
