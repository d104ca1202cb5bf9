// The seed of a run: a line edit that takes any whole number from 0 to 2^64 - 1, as a scenario's
// "seed" (std::uint64_t) does. A QSpinBox holds an int and so clamped seeds above 2^31 - 1.
// Typing commits on Return or when focus leaves (a partial or empty entry goes back to the
// value); Up and Down step the seed by one. valueChanged fires on a change of value, as a spin
// box's does.
#pragma once

#include <QLineEdit>
#include <cstdint>

namespace taillab::ui {

class SeedEdit : public QLineEdit {
    Q_OBJECT
  public:
    explicit SeedEdit(QWidget* parent = nullptr);

    std::uint64_t value() const { return value_; }
    // Shows `value`; emits valueChanged when it differs from the one held.
    void setValue(std::uint64_t value);

  signals:
    void valueChanged(std::uint64_t value);

  protected:
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

  private:
    void commit();

    std::uint64_t value_ = 0;
};

}  // namespace taillab::ui
