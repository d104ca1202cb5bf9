#include "run_status.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <initializer_list>

#include "run_controller.h"

namespace taillab::ui {
namespace {

QString seconds(double s) { return QString::number(s, 'f', s < 10 ? 2 : 1) + " s"; }

}  // namespace

RunStatus::RunStatus(RunController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
    setObjectName("runStatus");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 0, 6, 0);
    layout->setSpacing(10);
    labsMessage_ = tr("Ready");
    message_ = new QLabel(labsMessage_, this);
    message_->setObjectName("runMessage");
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progress_ = new QProgressBar(this);
    progress_->setObjectName("runProgress");
    progress_->setRange(0, 1000);
    progress_->setFixedWidth(200);
    progress_->setTextVisible(true);
    progress_->setFormat("%p%");
    time_ = new QLabel(this);
    time_->setObjectName("runTime");
    time_->setMinimumWidth(70);
    time_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    cancel_ = new QPushButton(style()->standardIcon(QStyle::SP_BrowserStop), tr("Cancel"), this);
    cancel_->setObjectName("cancelButton");
    cancel_->setEnabled(false);
    cancel_->setToolTip(tr("Stop the running simulation (Esc)"));
    layout->addWidget(message_, 1);
    layout->addWidget(progress_);
    layout->addWidget(time_);
    layout->addWidget(cancel_);
    // Hidden, they keep their room: the status bar (and so every tab above it) does not change
    // height or reflow when the read-out comes and goes.
    for (QWidget* w : std::initializer_list<QWidget*>{progress_, time_, cancel_}) {
        QSizePolicy policy = w->sizePolicy();
        policy.setRetainSizeWhenHidden(true);
        w->setSizePolicy(policy);
    }
    updateReadout();

    ticker_ = new QTimer(this);
    ticker_->setInterval(100);
    connect(ticker_, &QTimer::timeout, this, &RunStatus::tick);
    connect(cancel_, &QPushButton::clicked, this, [this] {
        controller_->cancel();
        showLabsMessage(tr("Cancelling…"));
    });
    connect(controller, &RunController::started, this, &RunStatus::onStarted);
    connect(controller, &RunController::progressChanged, this,
            [this](double f) { progress_->setValue(static_cast<int>(f * 1000)); });
    connect(controller, &RunController::partialResult, this, [this](const LabResultPtr& r) {
        if (r) progress_->setValue(static_cast<int>(r->progress * 1000));
    });
    connect(controller, &RunController::finished, this,
            [this](const LabResultPtr&, double s) { onStopped(tr("Finished"), s); });
    connect(controller, &RunController::cancelled, this,
            [this](const LabResultPtr&, double s) { onStopped(tr("Cancelled"), s); });
    connect(controller, &RunController::failed, this, [this](const QString& why) {
        onStopped(tr("Failed: %1").arg(why), controller_->elapsedSeconds());
    });
}

QString RunStatus::message() const { return message_->text(); }

void RunStatus::showMessage(const QString& text) {
    if (labsShown_) {
        showLabsMessage(text);
        return;
    }
    otherMessage_ = text;
    updateReadout();
}

void RunStatus::showLabsMessage(const QString& text) {
    labsMessage_ = text;
    updateReadout();
}

void RunStatus::setLabsShown(bool shown) {
    labsShown_ = shown;
    otherMessage_.clear();  // it was the tab's that has just gone
    updateReadout();
}

void RunStatus::updateReadout() {
    const QString& text = labsShown_ ? labsMessage_ : otherMessage_;
    message_->setText(text);
    message_->setToolTip(text);
    const bool shown = labsShown_ && started_;
    progress_->setVisible(shown);
    time_->setVisible(shown);
    cancel_->setVisible(shown);
}

void RunStatus::onStarted() {
    started_ = true;
    showLabsMessage(tr("Running…"));
    progress_->setValue(0);
    cancel_->setEnabled(true);
    time_->setText(seconds(0));
    ticker_->start();
}

void RunStatus::onStopped(const QString& message, double s) {
    ticker_->stop();
    cancel_->setEnabled(false);
    if (message == tr("Finished")) progress_->setValue(progress_->maximum());
    showLabsMessage(message);
    time_->setText(seconds(s));
}

void RunStatus::tick() { time_->setText(seconds(controller_->elapsedSeconds())); }

}  // namespace taillab::ui
