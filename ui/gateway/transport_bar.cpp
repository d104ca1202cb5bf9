#include "gateway/transport_bar.h"

#include "palette_colors.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QProxyStyle>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolButton>
#include <algorithm>
#include <cmath>

#include "gateway/gateway_session.h"
#include "gateway/week_time.h"
#include "theme.h"

namespace taillab::ui {
namespace {

class ClickJumpsStyle : public QProxyStyle {
  public:
    int styleHint(StyleHint hint, const QStyleOption* option, const QWidget* widget,
                  QStyleHintReturn* returnData) const override {
        if (hint == QStyle::SH_Slider_AbsoluteSetButtons) return Qt::LeftButton;
        return QProxyStyle::styleHint(hint, option, widget, returnData);
    }
};

}  // namespace

namespace {

// Labels under the seek slider: simulated day and time at round moments of the run, placed
// where the slider's handle would be for that moment.
class DayRuler : public QWidget {
  public:
    DayRuler(QSlider* slider, QWidget* parent) : QWidget(parent), slider_(slider) {
        setFixedHeight(fontMetrics().height() + 2);
    }
    void setRun(double offset_s, double end_s) {
        offset_s_ = offset_s;
        end_s_ = end_s;
        update();
    }

  protected:
    void paintEvent(QPaintEvent*) override {
        if (end_s_ <= 0) return;
        QPainter p(this);
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() - 0.5);
        p.setFont(f);
        p.setPen(palette().color(QPalette::WindowText));
        QStyleOptionSlider opt;
        opt.initFrom(slider_);
        opt.orientation = Qt::Horizontal;
        opt.minimum = slider_->minimum();
        opt.maximum = slider_->maximum();
        opt.rect = slider_->rect();
        const QRect groove =
            slider_->style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove,
                                             slider_);
        const int handle = slider_->style()->pixelMetric(QStyle::PM_SliderLength, &opt, slider_);
        const int span = groove.width() - handle;
        const int dx = slider_->mapTo(parentWidget(), QPoint(0, 0)).x() - x();
        // A label every day, or every 3 hours on a one-day run, fewer if they would collide.
        const QFontMetrics fm(f);
        const int labelWidth = fm.horizontalAdvance("Mon 00:00") + 12;
        double step = end_s_ <= week_time::kDay_s ? 3 * 3600 : week_time::kDay_s;
        while (span > 0 && end_s_ / step * labelWidth > span) step *= 2;
        for (double t = 0; t <= end_s_ + 1; t += step) {
            const int pos = QStyle::sliderPositionFromValue(
                opt.minimum, opt.maximum, static_cast<int>(t / TransportBar::kSliderStep_s), span);
            const int cx = dx + groove.x() + handle / 2 + pos;
            const QString text = week_time::label(offset_s_ + t);
            const int w = fm.horizontalAdvance(text);
            const int left = std::clamp(cx - w / 2, 0, std::max(0, width() - w));
            p.drawText(QRect(left, 0, w + 2, height()), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
    }

  private:
    QSlider* slider_;
    double offset_s_ = 0;
    double end_s_ = 0;
};

}  // namespace

TransportBar::TransportBar(QWidget* parent) : QWidget(parent) {
    setObjectName("gatewayTransport");
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(6, 2, 6, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(0);

    play_ = new QToolButton(this);
    play_->setObjectName("gatewayPlayButton");
    play_->setCheckable(true);
    play_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setPaletteIcon(play_, QStyle::SP_MediaPlay);
    play_->setText(tr("Play"));
    play_->setToolTip(tr("Play or pause the simulated run"));
    connect(play_, &QToolButton::clicked, this, [this](bool on) { emit playRequested(on); });

    restart_ = new QToolButton(this);
    restart_->setObjectName("gatewayRestartButton");
    restart_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setPaletteIcon(restart_, QStyle::SP_MediaSkipBackward);
    restart_->setText(tr("Restart"));
    restart_->setToolTip(tr("A new run from the start with the knobs as they are now and the "
                            "scenario's timeline (forgets the knob changes made during the run)"));
    connect(restart_, &QToolButton::clicked, this, &TransportBar::restartRequested);

    auto* speedLabel = new QLabel(tr("Speed (sim s per wall s)"), this);
    speed_ = new QComboBox(this);
    speed_->setObjectName("gatewaySpeedBox");
    for (double s : GatewaySession::speeds()) speed_->addItem(GatewaySession::speedLabel(s), s);
    speed_->setToolTip(tr("How fast simulated time runs against wall-clock time"));
    speedLabel->setBuddy(speed_);
    connect(speed_, &QComboBox::activated, this,
            [this](int i) { emit speedRequested(speed_->itemData(i).toDouble()); });

    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName("gatewaySeekSlider");
    // A click anywhere on the bar jumps there (and may drag on), as a media player's does,
    // instead of paging an hour towards the pointer.
    auto* clickJumps = new ClickJumpsStyle;
    clickJumps->setParent(this);  // outlives the slider, created before it
    slider_->setStyle(clickJumps);
    slider_->setRange(0, 0);
    slider_->setTickPosition(QSlider::TicksBelow);
    slider_->setPageStep(3600 / kSliderStep_s);
    slider_->setSingleStep(600 / kSliderStep_s);
    slider_->setToolTip(tr("Simulated time: drag or click to seek"));
    connect(slider_, &QSlider::sliderMoved, this,
            [this](int v) { showTime(static_cast<double>(v) * kSliderStep_s, frame_.get()); });
    connect(slider_, &QSlider::sliderReleased, this,
            [this] { emit seekRequested(static_cast<double>(slider_->value()) * kSliderStep_s); });
    connect(slider_, &QSlider::actionTriggered, this, [this](int action) {
        if (action == QAbstractSlider::SliderMove) return;
        // Clicks and keys: the slider moves after this signal, so read it on the next turn.
        QMetaObject::invokeMethod(
            this,
            [this] {
                emit seekRequested(static_cast<double>(slider_->value()) * kSliderStep_s);
            },
            Qt::QueuedConnection);
    });
    ruler_ = new DayRuler(slider_, this);

    time_ = new QLabel(this);
    time_->setObjectName("gatewayTimeLabel");
    QFont big = time_->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() + 1.5);
    time_->setFont(big);
    time_->setMinimumWidth(QFontMetrics(big).horizontalAdvance("Wed 00:00:00") + 8);
    time_->setToolTip(tr("Simulated time now (UTC, seed 000's week)"));
    state_ = new QLabel(this);
    state_->setObjectName("gatewayStateLabel");
    state_->setMinimumWidth(fontMetrics().horizontalAdvance("seeking to Wed 00:00…  ·  day 7 of 7") +
                            8);

    grid->addWidget(play_, 0, 0);
    grid->addWidget(restart_, 0, 1);
    grid->addWidget(speedLabel, 0, 2);
    grid->addWidget(speed_, 0, 3);
    grid->addWidget(slider_, 0, 4);
    grid->addWidget(ruler_, 1, 4);
    // The state sits under the time (and the view's extra buttons under the controls), on the
    // day ruler's row: side by side with the slider they left it about 75 px at 1280x720.
    grid->addWidget(time_, 0, 5);
    grid->addWidget(state_, 1, 5);
    below_ = new QHBoxLayout;
    below_->setContentsMargins(0, 0, 0, 0);
    below_->addStretch(1);
    grid->addLayout(below_, 1, 0, 1, 4);
    grid->setColumnStretch(4, 1);
    showTime(0, nullptr);
}

void TransportBar::addBelowControls(QWidget* w) {
    below_->insertWidget(below_->count() - 1, w);
}

void TransportBar::setSpeed(double speed) {
    const QSignalBlocker block(speed_);
    for (int i = 0; i < speed_->count(); ++i)
        if (speed_->itemData(i).toDouble() == speed) speed_->setCurrentIndex(i);
}

void TransportBar::drive(GatewaySession* session, QWidget* view, const QString& shortcutName) {
    connect(this, &TransportBar::playRequested, session, [session](bool play) { session->setPlaying(play); });
    connect(this, &TransportBar::speedRequested, session, &GatewaySession::setSpeed);
    connect(this, &TransportBar::seekRequested, session, &GatewaySession::seek);
    auto* space = new QShortcut(QKeySequence(Qt::Key_Space), view);
    space->setObjectName(shortcutName);
    space->setContext(Qt::WidgetWithChildrenShortcut);
    connect(space, &QShortcut::activated, play_, &QToolButton::click);
}

void TransportBar::setFrame(const GatewayFramePtr& frame) {
    frame_ = frame;
    if (!frame || !frame->snapshot) return;
    const auto& s = *frame->snapshot;
    const int startDay = frame->params.spec("start_day") ? frame->params.choiceIndex("start_day") : 0;
    const double offset = week_time::startOffset_s(startDay);
    if (offset != offset_s_ || s.end_s != end_s_) {
        offset_s_ = offset;
        end_s_ = s.end_s;
        const QSignalBlocker block(slider_);
        slider_->setRange(0, static_cast<int>(std::ceil(s.end_s / kSliderStep_s)));
        slider_->setTickInterval(static_cast<int>(
            (s.end_s <= week_time::kDay_s ? 3 * 3600 : week_time::kDay_s) / kSliderStep_s));
        static_cast<DayRuler*>(ruler_)->setRun(offset_s_, end_s_);
    }
    if (!slider_->isSliderDown()) {
        const QSignalBlocker block(slider_);
        slider_->setValue(static_cast<int>(std::lround(s.now_s / kSliderStep_s)));
        showTime(s.now_s, frame.get());
    }
    {
        const QSignalBlocker block(play_);
        play_->setChecked(frame->playing);
    }
    setPaletteIcon(play_, frame->playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay);
    play_->setText(frame->playing ? tr("Pause") : tr("Play"));
    setSpeed(frame->speed);
}

void TransportBar::showTime(double t_s, const GatewayFrame* frame) {
    time_->setText(week_time::label(offset_s_ + t_s, true));
    QString state;
    const bool dragging = slider_->isSliderDown();
    if (dragging) {
        state = tr("release to seek to %1").arg(week_time::label(offset_s_ + t_s));
    } else if (!frame) {
        state = tr("not started");
    } else if (frame->seeking) {
        state = tr("seeking to %1…").arg(week_time::label(offset_s_ + frame->seekTarget_s));
    } else if (frame->finished()) {
        state = tr("finished");
    } else if (frame->playing) {
        state = tr("playing at %1").arg(GatewaySession::speedLabel(frame->speed));
    } else {
        state = tr("paused");
    }
    if (end_s_ > 0 && !dragging) {
        const int days = static_cast<int>(std::ceil(end_s_ / week_time::kDay_s - 1e-9));
        const int day = std::min(days, static_cast<int>(t_s / week_time::kDay_s) + 1);
        state += tr("  ·  day %1 of %2").arg(day).arg(days);
    }
    state_->setText(state);
}

}  // namespace taillab::ui
