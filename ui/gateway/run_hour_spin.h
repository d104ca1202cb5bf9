// An hour of a scenario's run, shown as its weekday time ("Tue 14:00") and typed as that or as a
// number of hours since the first day's 00:00. The live tab's "From" and the twin's "Start at".
#pragma once

#include <QSpinBox>
#include <optional>

namespace taillab::ui {

class RunHourSpin : public QSpinBox {
    Q_OBJECT
  public:
    using QSpinBox::QSpinBox;
    // The weekday of hour 0 (0 = Monday), as the scenario's start_day knob says.
    void setStartDay(int day);

  protected:
    QString textFromValue(int hours) const override;
    int valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;

  private:
    std::optional<int> parse(const QString& text) const;
    int startDay_ = 0;
};

}  // namespace taillab::ui
