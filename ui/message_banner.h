// A banner across the top of a view that says what went wrong (or what changed) in words the
// user can act on: a title in bold, then the detail as the core wrote it (file:line:column, JSON
// path, what was expected), selectable so it can be copied. A dismiss button hides it. Colours
// come from the palette (palette_colors.h), so it reads in light and dark themes.
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
    explicit MessageBanner(QWidget* parent = nullptr);

    void showMessage(Kind kind, const QString& title, const QString& detail = {});
    void clear();
    // "title: detail" while shown, "" when hidden.
    QString text() const;
    Kind kind() const { return kind_; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void restyle();

    Kind kind_ = Kind::Notice;
    QLabel* icon_ = nullptr;
    QLabel* label_ = nullptr;
    QToolButton* close_ = nullptr;
    QString title_, detail_;
    bool restyling_ = false;
};

}  // namespace taillab::ui
