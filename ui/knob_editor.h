// The editor of one knob, built from its KnobSpec: a slider beside a spin box (unit as suffix,
// log-scale slider when the knob says so) for numbers, a combo box for choices, a check box for
// booleans. The tooltip is the knob's help line. Emits valueChanged on every user edit. A mouse
// wheel edits a knob only when that knob has focus; otherwise it scrolls the panel.
#pragma once

#include <QWidget>

#include "knobs/knob.h"

class QSlider;
class QAbstractSpinBox;
class QComboBox;
class QCheckBox;

namespace taillab::ui {

// Makes `control` take the mouse wheel only while it has focus; otherwise the wheel scrolls the
// scroll area around it. For every control that sits in a scrolling panel.
void takeWheelOnlyWithFocus(QWidget* control);

class KnobEditor : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kSliderSteps = 1000;
    static constexpr int kSpinWidth = 140;  // spin boxes line up down the panel

    KnobEditor(const KnobSpec& spec, double value, QWidget* parent = nullptr);

    const KnobSpec& spec() const { return spec_; }
    double value() const { return value_; }
    void setValue(double value);  // no valueChanged
    bool isNumeric() const;
    QSlider* slider() const { return slider_; }
    // A note after the help line in every tooltip of the editor ("" for none): why the knob is
    // disabled, for one.
    void setNote(const QString& note);

  signals:
    void valueChanged(double value);

  private:
    void buildNumeric();
    int sliderPosition(double value) const;
    double sliderValue(int position) const;
    double snap(double value) const;
    bool logSlider() const;
    void syncWidgets();
    void userSet(double value);

    KnobSpec spec_;
    double value_;
    QSlider* slider_ = nullptr;
    QAbstractSpinBox* spin_ = nullptr;
    QComboBox* combo_ = nullptr;
    QCheckBox* check_ = nullptr;
};

}  // namespace taillab::ui
