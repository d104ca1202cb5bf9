#include "knob_editor.h"

#include <QCheckBox>
#include <QAbstractScrollArea>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <climits>
#include <cmath>

namespace taillab::ui {
namespace {

int decimalsFor(const KnobSpec& s) {
    if (s.kind == KnobKind::Integer) return 0;
    if (s.step > 0)
        return std::clamp(static_cast<int>(std::ceil(-std::log10(s.step) - 1e-9)), 0, 6);
    const double span = s.max - s.min;
    int d = span <= 1 ? 3 : span <= 100 ? 2 : 1;
    // Enough digits to show the smallest allowed value of a log-scale knob.
    if (s.min > 0) d = std::max(d, static_cast<int>(std::ceil(-std::log10(s.min))) + 1);
    return std::clamp(d, 0, 6);
}

// Digits for a value: the knob's own, or more where the value is smaller than they can show
// (a scenario may set 1.6e-5 on a knob whose step is 1e-4): two significant digits at least.
int decimalsFor(const KnobSpec& s, double value) {
    int d = decimalsFor(s);
    if (s.kind == KnobKind::Real && value != 0) {
        const int needed = static_cast<int>(std::ceil(-std::log10(std::abs(value)))) + 1;
        d = std::max(d, needed);
    }
    return std::clamp(d, 0, 8);
}

// A share is shown in percent (one unit for one idea, as the charts and tables show shares): a
// knob in "fraction" or "fraction <of what>" reads "1.0 %" or "80 % valid", while its value
// (in scenarios, the CLI and the run) stays the fraction.
bool inPercent(const KnobSpec& s) {
    return s.kind == KnobKind::Real && (s.unit == "fraction" || s.unit.rfind("fraction ", 0) == 0);
}

double displayScale(const KnobSpec& s) { return inPercent(s) ? 100.0 : 1.0; }

// The unit after a value: a share in percent; "x" as the multiplication sign the other factors
// use ("1.85 ×" beside "1.0 ×"); a count of one in the singular ("1 day", "1 retry").
QString suffixFor(const KnobSpec& s, double value) {
    if (inPercent(s)) return " %" + QString::fromStdString(s.unit.substr(8));
    if (s.unit.empty()) return {};
    QString unit = QString::fromStdString(s.unit);
    if (unit == "x") unit = QStringLiteral("×");
    if (s.kind == KnobKind::Integer && value == 1 && unit.size() > 2 && !unit.contains(' ')) {
        if (unit.endsWith("ies")) unit = unit.chopped(3) + "y";
        else if (unit.endsWith('s') && !unit.endsWith("ss")) unit.chop(1);
    }
    return " " + unit;
}

// The spin box's digits: the value's own, or as many more (up to 8) as it takes to show it
// exactly (a timeline's 0.125 on a knob whose step is 0.01); two fewer in percent.
int shownDecimals(const KnobSpec& s, double value) {
    int d = decimalsFor(s, value);
    if (s.kind == KnobKind::Real) {
        const auto exactAt = [value](int digits) {
            const double scale = std::pow(10.0, digits);
            return std::abs(std::round(value * scale) / scale - value) <=
                   1e-12 * std::max(1.0, std::abs(value));
        };
        while (d < 8 && !exactAt(d)) ++d;
    }
    return std::max(0, d - (inPercent(s) ? 2 : 0));
}

// Keeps a wheel turned over the knob panel from editing a knob: a slider, spin box or combo box
// takes the wheel only once it has focus (a click or Tab). Without focus the wheel goes to the
// scroll area around the knob, so the panel scrolls instead (or, outside one, is ignored and
// Qt offers it to the parents).
class WheelOnlyWithFocus : public QObject {
  public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel) return false;
        auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->hasFocus()) return false;
        for (QWidget* w = widget->parentWidget(); w; w = w->parentWidget()) {
            if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
                QCoreApplication::sendEvent(area->viewport(), event);
                return true;
            }
        }
        event->ignore();
        return true;
    }
};

}  // namespace

QString knobValueText(const KnobSpec& spec, double value) {
    if (spec.kind == KnobKind::Choice) {
        const auto i = static_cast<std::size_t>(value);
        return value >= 0 && i < spec.choices.size() ? QString::fromStdString(spec.choices[i])
                                                     : QString::number(value);
    }
    if (spec.kind == KnobKind::Boolean) return value != 0 ? QObject::tr("on") : QObject::tr("off");
    return QString::number(value * displayScale(spec), 'g', 6) + suffixFor(spec, value);
}

void takeWheelOnlyWithFocus(QWidget* control) {
    control->setFocusPolicy(Qt::StrongFocus);  // not WheelFocus: a wheel never gives focus
    control->installEventFilter(new WheelOnlyWithFocus(control));
}

KnobEditor::KnobEditor(const KnobSpec& spec, double value, QWidget* parent)
    : QWidget(parent), spec_(spec), value_(value) {
    setObjectName("knob_" + QString::fromStdString(spec.key));
    const QString help = QString::fromStdString(spec.help);
    setToolTip(help);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(8);
    switch (spec.kind) {
        case KnobKind::Choice:
            combo_ = new QComboBox(this);
            combo_->setObjectName("knob_combo_" + QString::fromStdString(spec.key));
            // Shown in words ("backup only"); the scenario's value stays the item's data.
            for (const auto& c : spec.choices)
                combo_->addItem(QString::fromStdString(c).replace('_', ' '),
                                QString::fromStdString(c));
            combo_->setToolTip(help);
            layout->addWidget(combo_, 1);
            connect(combo_, &QComboBox::currentIndexChanged, this, [this](int i) { userSet(i); });
            break;
        case KnobKind::Boolean:
            check_ = new QCheckBox(QString::fromStdString(spec.label), this);
            check_->setObjectName("knob_check_" + QString::fromStdString(spec.key));
            check_->setToolTip(help);
            layout->addWidget(check_, 1);
            connect(check_, &QCheckBox::toggled, this, [this](bool on) { userSet(on ? 1 : 0); });
            break;
        case KnobKind::Integer:
        case KnobKind::Real:
            buildNumeric();
            break;
    }
    for (QWidget* control : std::initializer_list<QWidget*>{slider_, spin_, combo_})
        if (control) takeWheelOnlyWithFocus(control);
    syncWidgets();
}

void KnobEditor::setNote(const QString& note) {
    QString tip = QString::fromStdString(spec_.help);
    if (!note.isEmpty()) tip += "\n(" + note + ")";
    setToolTip(tip);
    for (QWidget* w : std::initializer_list<QWidget*>{slider_, spin_, combo_, check_})
        if (w) w->setToolTip(tip);
}

bool KnobEditor::isNumeric() const {
    return spec_.kind == KnobKind::Integer || spec_.kind == KnobKind::Real;
}

SliderScale sliderScaleFor(const KnobSpec& spec) {
    const double span = spec.max - spec.min;
    // The default in the first 5% of a linear slider: the values a run uses would crowd there.
    const bool crowded = span > 0 && spec.defaultValue > spec.min &&
                         (spec.defaultValue - spec.min) < 0.05 * span;
    if ((spec.logScale || crowded) && span > 0) {
        if (spec.min > 0) return SliderScale::Log;
        if (spec.min == 0) return SliderScale::OffsetLog;
    }
    if (spec.kind == KnobKind::Integer && span <= KnobEditor::kSliderSteps)
        return SliderScale::Direct;
    return SliderScale::Linear;
}

double KnobEditor::offsetLogConstant() const {
    const double span = spec_.max - spec_.min;
    return spec_.step > 0 ? std::min(spec_.step, span / 100) : span / 1000;
}

void KnobEditor::buildNumeric() {
    const QString key = QString::fromStdString(spec_.key);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName("knob_slider_" + key);
    slider_->setToolTip(QString::fromStdString(spec_.help));
    scale_ = sliderScaleFor(spec_);
    const bool direct = scale_ == SliderScale::Direct;
    slider_->setRange(direct ? static_cast<int>(spec_.min) : 0,
                      direct ? static_cast<int>(spec_.max) : kSliderSteps);
    slider_->setPageStep(direct ? std::max(1, (slider_->maximum() - slider_->minimum()) / 10) : 50);
    layout()->addWidget(slider_);
    static_cast<QHBoxLayout*>(layout())->setStretch(0, 1);

    const bool intSpin =
        spec_.kind == KnobKind::Integer && spec_.max <= INT_MAX && spec_.min >= INT_MIN;
    if (intSpin) {
        auto* spin = new QSpinBox(this);
        spin->setRange(static_cast<int>(spec_.min), static_cast<int>(spec_.max));
        spin->setSuffix(suffixFor(spec_, value_));
        spin->setGroupSeparatorShown(spec_.max >= 10000);
        connect(spin, &QSpinBox::valueChanged, this, [this](int v) { userSet(v); });
        spin_ = spin;
    } else {
        auto* spin = new QDoubleSpinBox(this);
        const double scale = displayScale(spec_);
        spin->setDecimals(shownDecimals(spec_, value_));
        spin->setRange(spec_.min * scale, spec_.max * scale);
        spin->setSingleStep((spec_.step > 0 ? spec_.step : (spec_.max - spec_.min) / 100) * scale);
        spin->setSuffix(suffixFor(spec_, value_));
        spin->setGroupSeparatorShown(spec_.max * scale >= 10000);
        connect(spin, &QDoubleSpinBox::valueChanged, this,
                [this, scale](double v) { userSet(v / scale); });
        spin_ = spin;
    }
    spin_->setObjectName("knob_spin_" + key);
    spin_->setToolTip(QString::fromStdString(spec_.help));
    spin_->setKeyboardTracking(false);
    spin_->setAlignment(Qt::AlignRight);
    spin_->setMinimumWidth(std::max(kSpinWidth, spin_->sizeHint().width()));
    layout()->addWidget(spin_);
    connect(slider_, &QSlider::valueChanged, this,
            [this](int position) { userSet(sliderValue(position)); });
}

int KnobEditor::sliderPosition(double value) const {
    if (scale_ == SliderScale::Direct) return static_cast<int>(std::lround(value));
    const double span = spec_.max - spec_.min;
    if (span <= 0) return 0;
    double t = 0;
    switch (scale_) {
        case SliderScale::Log:
            t = std::log(value / spec_.min) / std::log(spec_.max / spec_.min);
            break;
        case SliderScale::OffsetLog: {
            const double c = offsetLogConstant();
            t = std::log1p(std::max(0.0, value - spec_.min) / c) / std::log1p(span / c);
            break;
        }
        default:
            t = (value - spec_.min) / span;
    }
    return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSliderSteps));
}

double KnobEditor::sliderValue(int position) const {
    if (scale_ == SliderScale::Direct) return position;
    const double t = static_cast<double>(position) / kSliderSteps;
    const double span = spec_.max - spec_.min;
    double v = spec_.min + t * span;
    if (scale_ == SliderScale::Log) {
        v = spec_.min * std::pow(spec_.max / spec_.min, t);
    } else if (scale_ == SliderScale::OffsetLog) {
        const double c = offsetLogConstant();
        v = spec_.min + c * std::expm1(t * std::log1p(span / c));
    }
    return snap(v);
}

double KnobEditor::snap(double v) const {
    if (spec_.kind != KnobKind::Real) {
        v = std::round(v);
    } else {
        if (spec_.step > 0) v = spec_.min + std::round((v - spec_.min) / spec_.step) * spec_.step;
        // Keep what the spin box can show, so slider and spin box agree and a step lands on the
        // same double as the value typed in a scenario file (0.05 + 13 x 0.05 is not 0.7).
        const double scale = std::pow(10.0, decimalsFor(spec_, v));
        v = std::round(v * scale) / scale;
    }
    return std::clamp(v, spec_.min, spec_.max);
}

void KnobEditor::setValue(double value) {
    value_ = std::clamp(value, spec_.min, spec_.max);
    syncWidgets();
}

void KnobEditor::userSet(double value) {
    const double v = isNumeric() ? snap(value) : value;
    if (v == value_) {
        syncWidgets();
        return;
    }
    value_ = v;
    syncWidgets();
    emit valueChanged(value_);
}

void KnobEditor::syncWidgets() {
    if (combo_) {
        const QSignalBlocker block(combo_);
        combo_->setCurrentIndex(static_cast<int>(value_));
    }
    if (check_) {
        const QSignalBlocker block(check_);
        check_->setChecked(value_ != 0);
    }
    if (slider_) {
        const QSignalBlocker block(slider_);
        slider_->setValue(sliderPosition(value_));
    }
    if (auto* spin = qobject_cast<QSpinBox*>(spin_)) {
        const QSignalBlocker block(spin);
        spin->setSuffix(suffixFor(spec_, value_));
        spin->setValue(static_cast<int>(std::lround(value_)));
    } else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(spin_)) {
        // The digits follow the value: one set from outside (a scenario, a timeline's change)
        // may need more than the knob's step shows, and the box would round it to fewer.
        const QSignalBlocker block(dspin);
        dspin->setDecimals(shownDecimals(spec_, value_));
        dspin->setValue(value_ * displayScale(spec_));
    }
}

}  // namespace taillab::ui
