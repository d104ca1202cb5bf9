#include "gateway/twin_panel.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>

#include "palette_colors.h"
#include "table_widgets.h"

namespace taillab::ui {

TwinPanel::TwinPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("twinPanel");
    auto* intro = new QLabel(tr("The scenario simulated and live on the very same arrivals (its own requests, "
                                "keys, pins and trace ids), both starting cold; each figure beside its "
                                "tolerance."),
                             this);
    intro->setWordWrap(true);

    rate_ = new QDoubleSpinBox(this);
    rate_->setObjectName("twinRate");
    rate_->setRange(1, 500);
    rate_->setDecimals(0);
    rate_->setValue(50);
    rate_->setSuffix(tr(" req/s"));
    rate_->setToolTip(tr("Mean rate over the window (the workload's hours scaled by load_multiplier, at most 50×)"));
    duration_ = new QSpinBox(this);
    duration_->setObjectName("twinDuration");
    duration_->setRange(1, 600);
    duration_->setValue(30);
    duration_->setSuffix(tr(" s"));
    duration_->setToolTip(tr("How long both runs last; the live half takes this long in wall time"));
    start_ = new RunHourSpin(this);
    start_->setObjectName("twinStart");
    start_->setRange(0, 24 * 7 - 1);
    start_->setValue(38);
    start_->setToolTip(
        tr("Where both runs start on the scenario's clock: type a time such as Tue 14:00 or a "
           "number of hours since the first day's 00:00"));
    run_ = new QPushButton(tr("Run twin"), this);
    run_->setObjectName("twinRun");
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setObjectName("twinCancel");
    cancelButton_->setEnabled(false);
    status_ = new QLabel(this);
    status_->setObjectName("twinStatus");
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* controls = new QHBoxLayout;
    const auto labelled = [&](const QString& text, QWidget* w) {
        auto* l = new QLabel(text, this);
        l->setBuddy(w);
        controls->addWidget(l);
        controls->addWidget(w);
    };
    labelled(tr("&Rate"), rate_);
    labelled(tr("&Duration"), duration_);
    labelled(tr("&Start at"), start_);
    controls->addWidget(run_);
    controls->addWidget(cancelButton_);
    controls->addStretch(1);

    table_ = makeReadOnlyTable({tr("Figure"), tr("Simulated"), tr("Live"), tr("Difference"), tr("Tolerance"),
                                tr("Verdict")},
                               this);
    table_->setObjectName("twinTable");
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    stages_ = makeReadOnlyTable({tr("Stage"), tr("Simulated"), tr("Live")}, this);
    stages_->setObjectName("twinStages");
    stages_->setToolTip(
        tr("Mean time a request spent in each stage: the live gateway measures its own, and the "
           "simulation charges what it measured (its cost model's figures are in the notes)"));
    stages_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // As wide as its columns: the figures beside it take the rest.
    stages_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    stages_->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Expanding);
    verdict_ = new QLabel(this);
    verdict_->setObjectName("twinVerdict");
    verdict_->setWordWrap(true);
    verdict_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::MinimumExpanding);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(controls);
    layout->addWidget(status_);
    auto* tables = new QHBoxLayout;
    tables->addWidget(table_, 1);
    tables->addWidget(stages_);
    layout->addLayout(tables, 3);
    layout->addWidget(verdict_, 1);

    connect(run_, &QPushButton::clicked, this, [this] { start(); });
    connect(cancelButton_, &QPushButton::clicked, this, &TwinPanel::cancel);
}

TwinPanel::~TwinPanel() {
    cancel_ = true;
    join();
}

void TwinPanel::setScenario(const Scenario& scenario) {
    scenario_ = scenario;
    start_->setMaximum(
        std::max<int>(0, static_cast<int>(scenario.params.integer("days")) * 24 - 1));
    start_->setStartDay(scenario.params.spec("start_day") ? scenario.params.choiceIndex("start_day")
                                                          : 0);
    status_->setText(tr("Twin of %1 (seed %2).").arg(QString::fromStdString(scenario.name)).arg(scenario.seed));
}

void TwinPanel::join() {
    if (worker_.joinable()) worker_.join();
}

void TwinPanel::setRunning(bool running) {
    run_->setEnabled(!running);
    cancelButton_->setEnabled(running);
    rate_->setEnabled(!running);
    duration_->setEnabled(!running);
    start_->setEnabled(!running);
}

bool TwinPanel::start() {
    if (running()) return false;
    if (!scenario_) {
        status_->setText(tr("Pick a gateway scenario first."));
        return false;
    }
    join();  // a finished run's thread
    live::TwinOptions o;
    o.rate_per_s = rate_->value();
    o.duration = std::chrono::seconds(duration_->value());
    o.start_at = std::chrono::hours(start_->value());
    cancel_ = false;
    o.cancel = &cancel_;
    done_ = false;
    setRunning(true);
    status_->setText(tr("Running: simulated, then %1 s live on loopback…").arg(duration_->value()));
    worker_ = std::thread([this, scenario = *scenario_, o] {
        std::shared_ptr<live::TwinRun> run;
        QString error;
        try {
            run = std::make_shared<live::TwinRun>(live::runTwin(scenario, o));
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        // Dropped by Qt when the panel is gone (its destructor joins this thread first).
        QMetaObject::invokeMethod(this, [this, run, error] { onDone(run, error); }, Qt::QueuedConnection);
    });
    return true;
}

void TwinPanel::cancel() {
    if (!running()) return;
    cancel_ = true;
    status_->setText(tr("Cancelling…"));
}

void TwinPanel::setStatusFailed(bool failed) {
    statusFailed_ = failed;
    // Only WindowText set: the label keeps inheriting every other role (none at all when it is
    // not a failure), so a theme switch still reaches it.
    QPalette p;
    if (failed) p.setColor(QPalette::WindowText, failColor(palette()));
    status_->setPalette(p);
}

void TwinPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) setStatusFailed(statusFailed_);
}

void TwinPanel::onDone(std::shared_ptr<live::TwinRun> run, QString error) {
    done_ = true;
    join();
    setRunning(false);
    if (!run) {
        status_->setText(tr("The twin run did not finish: %1").arg(error));
        setStatusFailed(true);
        emit finished(false);
        return;
    }
    setStatusFailed(false);
    result_ = std::move(*run);
    const live::TwinRun& r = *result_;
    QString status = tr("%1 requests over %2 s at %3 req/s (load_multiplier %4), from %5 of %6.")
                         .arg(r.plan.requests.size())
                         .arg(duration_->value())
                         .arg(r.plan.mean_rate_per_s, 0, 'f', 1)
                         .arg(r.plan.scenario.params.real("load_multiplier"), 0, 'f', 2)
                         .arg(start_->text())
                         .arg(QString::fromStdString(r.plan.scenario.name));
    for (const std::string& note : r.plan.notes) status += "\n" + tr("Note: %1.").arg(QString::fromStdString(note));
    status_->setText(status);
    table_->setRowCount(static_cast<int>(r.rows.size()));
    for (int i = 0; i < static_cast<int>(r.rows.size()); ++i) {
        const live::TwinRow& row = r.rows[static_cast<std::size_t>(i)];
        const QStringList cells{QString::fromStdString(row.label),
                                QString::fromStdString(live::twinValueText(row, row.simulated)),
                                QString::fromStdString(live::twinValueText(row, row.live)),
                                QString::fromStdString(live::twinDifferenceText(row)),
                                QString::fromStdString(live::twinToleranceText(row)),
                                row.within ? tr("within") : tr("diverges")};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= 1 && c <= 4) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == 5) setCellTone(item, row.within ? CellTone::Pass : CellTone::Fail);
            if (!row.verdict.empty()) item->setToolTip(QString::fromStdString(row.verdict));
            table_->setItem(i, c, item);
        }
    }
    QString words = r.agrees() ? tr("The live run agrees with the simulation within every tolerance.")
                               : tr("The live run diverges from the simulation:");
    for (const live::TwinRow& row : r.rows)
        if (!row.within) words += "\n• " + QString::fromStdString(row.verdict);
    words += "\n" +
             tr("Beside the figures, the mean time a request spent in each stage: the live gateway's "
                "measured ones, which the simulation charges instead of its cost model's.");
    verdict_->setText(words);
    stages_->setRowCount(static_cast<int>(r.stages.size()));
    for (int i = 0; i < static_cast<int>(r.stages.size()); ++i) {
        const live::TwinStage& st = r.stages[static_cast<std::size_t>(i)];
        const auto ms = [](double v) {
            return tr("%1 ms").arg(QString::fromStdString(live::twinStageMsText(v)));
        };
        const QStringList cells{QString::fromStdString(st.stage), ms(st.simulated_ms),
                                ms(st.live_ms)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= 1) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            stages_->setItem(i, c, item);
        }
    }
    emit finished(true);
}

}  // namespace taillab::ui
