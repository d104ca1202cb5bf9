// The status bar's run read-out: a message, a progress bar, the run time (ticking while a run is
// in flight) and a Cancel button.
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
    QString message() const;

    void showMessage(const QString& text);

  private:
    void onStarted();
    void onStopped(const QString& message, double seconds);
    void tick();

    RunController* controller_;
    QLabel* message_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* time_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QTimer* ticker_ = nullptr;
};

}  // namespace taillab::ui
