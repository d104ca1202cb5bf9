// Colours derived from the widget palette, so that every view reads in light and dark themes:
// pass / fail / notice accents tuned for the palette's lightness, muted text, and a blend for
// tinted backgrounds. Nothing here is a fixed background colour.
#pragma once

#include <QColor>
#include <QPalette>

namespace taillab::ui {

// True when the palette draws light text on a dark window.
inline bool isDark(const QPalette& p) {
    return p.color(QPalette::Window).lightnessF() < p.color(QPalette::WindowText).lightnessF();
}

// a + (b - a) * t, channel by channel (alpha from a).
inline QColor blend(const QColor& a, const QColor& b, double t) {
    const auto mix = [t](double x, double y) { return x + (y - x) * t; };
    return QColor::fromRgbF(static_cast<float>(mix(a.redF(), b.redF())),
                            static_cast<float>(mix(a.greenF(), b.greenF())),
                            static_cast<float>(mix(a.blueF(), b.blueF())), a.alphaF());
}

inline QColor failColor(const QPalette& p) { return isDark(p) ? QColor(0xff, 0x8a, 0x80) : QColor(0xb0, 0x1c, 0x1c); }
inline QColor passColor(const QPalette& p) { return isDark(p) ? QColor(0x81, 0xc7, 0x84) : QColor(0x1b, 0x6e, 0x20); }
inline QColor noticeColor(const QPalette& p) { return isDark(p) ? QColor(0x90, 0xca, 0xf9) : QColor(0x15, 0x65, 0xc0); }
// A cell background that says pass / fail without hiding the text: the accent, faint.
inline QColor passFill(const QPalette& p) { return blend(p.color(QPalette::Base), passColor(p), 0.18); }
inline QColor failFill(const QPalette& p) { return blend(p.color(QPalette::Base), failColor(p), 0.20); }
// Secondary text: half way from the text to the background.
inline QColor mutedText(const QPalette& p) {
    return blend(p.color(QPalette::Text), p.color(QPalette::Base), 0.45);
}

}  // namespace taillab::ui
