// Playback controls of the gateway view: play / pause, the speed (simulated seconds per wall
// second), a seek slider over the run labelled with simulated day and time ("Tue 04:00"), the
// current simulated time and what the session is doing. Emits requests; shows frames.
#pragma once

#include <QWidget>

#include "gateway/gateway_frame.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QSlider;
class QToolButton;

namespace taillab::ui {

class GatewaySession;

class TransportBar : public QWidget {
    Q_OBJECT
  public:
    explicit TransportBar(QWidget* parent = nullptr);

    void setFrame(const GatewayFramePtr& frame);
    // Sends play, pause, speed and seek to `session`, and makes Space play and pause anywhere in
    // `view` (text fields keep their spaces); restart stays the view's to handle.
    void drive(GatewaySession* session, QWidget* view, const QString& shortcutName);
    void setSpeed(double speed);  // no signal
    // Puts `w` on the row under Play, Restart and the speed (beside the day ruler), so that the
    // row of the seek slider keeps its width for the slider.
    void addBelowControls(QWidget* w);

    QToolButton* playButton() const { return play_; }
    QComboBox* speedBox() const { return speed_; }
    QSlider* seekSlider() const { return slider_; }
    QLabel* timeLabel() const { return time_; }
    QToolButton* restartButton() const { return restart_; }
    // Slider units: simulated seconds since the run started, in steps of kSliderStep_s.
    static constexpr int kSliderStep_s = 60;

  signals:
    void playRequested(bool play);
    void speedRequested(double speed);
    void seekRequested(double t_s);
    void restartRequested();

  private:
    void showTime(double t_s, const GatewayFrame* frame);

    QToolButton* play_ = nullptr;
    QComboBox* speed_ = nullptr;
    QSlider* slider_ = nullptr;
    QWidget* ruler_ = nullptr;
    QLabel* time_ = nullptr;
    QLabel* state_ = nullptr;
    QToolButton* restart_ = nullptr;
    QHBoxLayout* below_ = nullptr;  // row 1 under the controls
    GatewayFramePtr frame_;
    double offset_s_ = 0;  // Mon 00:00 -> run start
    double end_s_ = 0;
};

}  // namespace taillab::ui
