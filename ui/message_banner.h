// A banner across the top of a view that says what went wrong (or what changed) in words the
// user can act on: a title in bold, then the detail as the core wrote it (file:line:column, JSON
// path, what was expected), selectable so it can be copied. A dismiss button hides it. Colours
// come from the palette (palette_colors.h), so it reads in light and dark themes: a faint tint
// of the kind's accent over the window, painted here (no style sheet, which kept a palette of
// its own and left light text on a light tint in the dark theme), and text chosen to read on
// that tint at a contrast of at least kMinContrast.
//
// The labs page and the gateway view both use it: an error is shown the same way everywhere.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace taillab::ui {

class MessageBanner : public QFrame {
    Q_OBJECT
  public:
    enum class Kind { Error, Notice };
    // WCAG AA for body text.
    static constexpr double kMinContrast = 4.5;
    struct Colors {
        QColor fill, border, text;
    };
    // The banner's colours in `palette` for `kind`: text reads on fill at kMinContrast or more.
    static Colors colorsFor(const QPalette& palette, Kind kind);

    explicit MessageBanner(QWidget* parent = nullptr);

    void showMessage(Kind kind, const QString& title, const QString& detail = {});
    void clear();
    // "title: detail" while shown, "" when hidden.
    QString text() const;
    Kind kind() const { return kind_; }
    // The colours as drawn now, and the text colour the label has.
    Colors colors() const { return colorsFor(palette(), kind_); }
    QColor labelTextColor() const;

  protected:
    void changeEvent(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

  private:
    void restyle();

    Kind kind_ = Kind::Notice;
    QLabel* icon_ = nullptr;
    QLabel* label_ = nullptr;
    QToolButton* close_ = nullptr;
    QString title_, detail_;
};

}  // namespace taillab::ui
