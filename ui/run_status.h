// The status bar's run read-out: a message, a progress bar, the run time (ticking while a run is
// in flight) and a Cancel button. The progress bar, time and Cancel are the labs' runs: they show
// once a run has started, and only while the window shows the labs (setLabsShown). The message
// is the tab's in front: the labs' runs write only the labs' message ("Ready", "Finished"), which
// another tab never shows; a message shown while another tab is in front lasts until the tab
// changes, so no tab reads another's state (the gateway tabs have read-outs of their own).
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace taillab::ui {

class RunController;

class RunStatus : public QWidget {
    Q_OBJECT
  public:
    explicit RunStatus(RunController* controller, QWidget* parent = nullptr);
    QPushButton* cancelButton() const { return cancel_; }
    QString message() const;  // as shown: the message of the tab in front

    void showMessage(const QString& text);      // for the tab in front
    void showLabsMessage(const QString& text);  // for the labs, shown when they are in front
    void setLabsShown(bool shown);

  private:
    void onStarted();
    void onStopped(const QString& message, double seconds);
    void tick();
    void updateReadout();

    RunController* controller_;
    QLabel* message_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* time_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QTimer* ticker_ = nullptr;
    QString labsMessage_;
    QString otherMessage_;  // of the tab in front when it is not the labs'
    bool labsShown_ = true;
    bool started_ = false;  // a lab run has started since the window opened
};

}  // namespace taillab::ui
