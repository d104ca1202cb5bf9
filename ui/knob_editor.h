// The editor of one knob, built from its KnobSpec: a slider beside a spin box (unit as suffix)
// for numbers, a combo box for choices, a check box for booleans. The tooltip is the knob's help
// line. Emits valueChanged on every user edit. A mouse wheel edits a knob only when that knob
// has focus; otherwise it scrolls the panel.
//
// The slider's scale (SliderScale) puts the values a knob takes where the eye can see them. A
// knob's range is what validation allows, often far wider than what a run uses (a stall "at"
// 0 to 3,600 s, 30 s by default): on a linear slider its usual values would all sit at the far
// left. So a knob that asks for a log scale, or whose default lies in the first 5% of its
// range, gets one: log from a positive minimum, or, from 0, log of (1 + value / c) with c the
// knob's step (at most a hundredth of the range), else a thousandth of the range: 0 stays
// reachable, and the decades above c spread over the slider.
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

enum class SliderScale {
    Direct,     // an integer knob whose whole range fits the slider's positions, one per value
    Linear,     // kSliderSteps positions spread evenly over the range
    Log,        // evenly in log(value), from a positive minimum
    OffsetLog,  // evenly in log(1 + (value - min) / c), from a minimum of 0 or below
};

// The scale a numeric knob's slider moves on (see the comment at the top).
SliderScale sliderScaleFor(const KnobSpec& spec);

// A knob's value as its editor shows it, unit included: "1 day", "1.85 ×", "1 %"; a choice by its
// name, a switch as "on" or "off".
QString knobValueText(const KnobSpec& spec, double value);

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
    SliderScale sliderScale() const { return scale_; }
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
    double offsetLogConstant() const;
    void syncWidgets();
    void userSet(double value);

    KnobSpec spec_;
    double value_;
    SliderScale scale_ = SliderScale::Linear;
    QSlider* slider_ = nullptr;
    QAbstractSpinBox* spin_ = nullptr;
    QComboBox* combo_ = nullptr;
    QCheckBox* check_ = nullptr;
};

}  // namespace taillab::ui
