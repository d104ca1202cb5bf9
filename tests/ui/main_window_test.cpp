// The real main window, driven as a user would: every lab is selected, runs to a final result
// with charts, and redraws when its main knob's slider moves; a long run can be cancelled while
// the window stays responsive; a newer request always wins over an older one.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QAction>
#include <QComboBox>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QPushButton>
#include <QToolButton>
#include <QSlider>
#include <algorithm>
#include <filesystem>
#include <QSpinBox>
#include <QTimer>

#include "gateway/gateway_view.h"
#include "gateway/transport_bar.h"
#include "knob_editor.h"
#include "knob_panel.h"
#include "results_panel.h"
#include "run_status.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

std::vector<std::string> labIds() {
    std::vector<std::string> ids;
    for (const auto& lab : allLabs()) ids.push_back(lab->id());
    return ids;
}

// The knob a user would move: the lab's main knob when it is numeric, else the first numeric.
KnobEditor* knobToMove(const KnobPanel& panel, const Lab& lab) {
    KnobEditor* main = panel.editor(lab.mainKnob());
    if (main && main->isNumeric()) return main;
    for (const auto& spec : lab.knobs())
        if (KnobEditor* e = panel.editor(spec.key); e && e->isNumeric() && spec.key != "requests")
            return e;
    return nullptr;
}

class LabWindowTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LabWindowTest, RunsToChartsAndRedrawsWhenTheMainKnobMoves) {
    const Lab* lab = findLab(GetParam());
    ASSERT_NE(lab, nullptr);
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();

    quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.selectLab(QString::fromStdString(lab->id())));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation))
        << "no final result for " << lab->id();
    const LabResultPtr first = window.latestResult();
    EXPECT_EQ(first->lab, lab->id());
    ASSERT_FALSE(first->charts.empty()) << lab->id() << " produced no charts";
    ASSERT_NE(window.chartArea()->currentView(), nullptr);
    EXPECT_TRUE(window.windowTitle().contains(QString::fromStdString(window.scenario().name)));
    const Drawing before = drawing(window);
    ASSERT_GT(pointCount(before), 0u) << lab->id() << " drew no points";

    KnobEditor* knob = knobToMove(*window.knobPanel(), *lab);
    ASSERT_NE(knob, nullptr) << lab->id() << " has no numeric knob";
    QSlider* slider = knob->slider();
    ASSERT_NE(slider, nullptr);
    const int span = slider->maximum() - slider->minimum();
    const int mid = slider->minimum() + span / 2;
    const int delta = std::max(1, span / 4);
    const int target = slider->value() < mid ? slider->value() + delta : slider->value() - delta;
    const double oldValue = knob->value();

    generation = window.controller()->generation();
    slider->setValue(target);
    EXPECT_NE(knob->value(), oldValue) << "slider did not change " << knob->spec().key;
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation))
        << "no re-run after moving " << knob->spec().key;
    EXPECT_EQ(window.scenario().lab, lab->id());
    const Drawing after = drawing(window);
    EXPECT_GT(pointCount(after), 0u);
    EXPECT_FALSE(sameDrawing(before, after))
        << "moving " << knob->spec().key << " of " << lab->id() << " did not change the charts";
    EXPECT_TRUE(window.isWindowModified());
}

INSTANTIATE_TEST_SUITE_P(AllLabs, LabWindowTest, ::testing::ValuesIn(labIds()),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

// An afternoon of tuning can be stepped back: a knob edit is marked and has its own reset, and
// Edit -> Undo / Redo (Ctrl+Z / Ctrl+Shift+Z) walk the edits, a whole reset included; every
// step re-runs the lab.
TEST(MainWindowTest, KnobEditsAreMarkedResettableAndUndoable) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.selectLab("fanout"));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    KnobPanel* panel = window.knobPanel();
    KnobEditor* backends = panel->editor("backends");
    ASSERT_NE(backends, nullptr);
    const double original = backends->value();
    auto* spin = backends->findChild<QSpinBox*>("knob_spin_backends");
    ASSERT_NE(spin, nullptr);
    QToolButton* reset = panel->resetButton("backends");
    ASSERT_NE(reset, nullptr);
    EXPECT_TRUE(reset->isHidden());
    EXPECT_FALSE(backends->property("modified").toBool());

    generation = window.controller()->generation();
    spin->setValue(static_cast<int>(original) / 2);
    EXPECT_TRUE(backends->property("modified").toBool());
    EXPECT_FALSE(reset->isHidden());
    EXPECT_NE(reset->toolTip().indexOf(QString::number(original)), -1) << reset->toolTip().toStdString();
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    EXPECT_EQ(window.latestResult()->parameters.at("backends").get<double>(), original / 2);

    auto* undo = window.findChild<QAction*>("undoAction");
    auto* redo = window.findChild<QAction*>("redoAction");
    ASSERT_NE(undo, nullptr);
    ASSERT_NE(redo, nullptr);
    EXPECT_TRUE(undo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Z)));
    EXPECT_TRUE(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    ASSERT_TRUE(undo->isEnabled());
    generation = window.controller()->generation();
    undo->trigger();
    EXPECT_EQ(backends->value(), original);
    EXPECT_FALSE(backends->property("modified").toBool());
    EXPECT_TRUE(reset->isHidden());
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation)) << "an undo re-runs the lab";
    EXPECT_EQ(window.latestResult()->parameters.at("backends").get<double>(), original);

    redo->trigger();
    EXPECT_EQ(backends->value(), original / 2);
    // The knob's own reset, then Undo brings the edit back.
    reset->click();
    EXPECT_EQ(backends->value(), original);
    undo->trigger();
    EXPECT_EQ(backends->value(), original / 2);
    // Reset Knobs is one step for Undo, however many knobs it puts back.
    panel->editor("threshold_ms")->setValue(123);
    panel->applyValue("threshold_ms", 123);
    panel->resetToScenario();
    EXPECT_EQ(backends->value(), original);
    undo->trigger();
    EXPECT_EQ(backends->value(), original / 2);
    EXPECT_EQ(panel->editor("threshold_ms")->value(), 123);
}

// The figures a scenario quotes hold for its own knobs: once one moves they show as n/a, with the
// knob that moved in the tooltip, never as failures; set back, they count again.
TEST(MainWindowTest, QuotedFiguresShowAsNotApplicableOnceAKnobMoves) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.openScenario("fanout"));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    const auto verdicts = [&](const QString& text) {
        QTableWidget* table = window.resultsPanel()->checksTable();
        std::vector<QTableWidgetItem*> out;
        for (int row = 0; row < table->rowCount(); ++row)
            if (QTableWidgetItem* v = table->item(row, 4); v && v->text() == text) out.push_back(v);
        return out;
    };
    ASSERT_EQ(window.latestResult()->checks.size(), verdicts("pass").size() + verdicts("FAIL").size());
    EXPECT_TRUE(verdicts("n/a").empty());

    auto* spin = window.knobPanel()->editor("backends")->findChild<QSpinBox*>("knob_spin_backends");
    ASSERT_NE(spin, nullptr);
    generation = window.controller()->generation();
    spin->setValue(50);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    const auto na = verdicts("n/a");
    ASSERT_EQ(na.size(), 2u) << "the scenario quotes two figures";
    EXPECT_NE(na[0]->toolTip().indexOf("backends is 50 here, 100 in the scenario"), -1)
        << na[0]->toolTip().toStdString();
    EXPECT_NE(window.resultsPanel()->tabText(0).indexOf("pass"), -1);

    generation = window.controller()->generation();
    spin->setValue(100);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    EXPECT_TRUE(verdicts("n/a").empty());
}

// Geometry, splitters, the open tab, the last scenario and the gateway's speed survive a restart.
TEST(MainWindowTest, SettingsBringBackTheWindowAsItWasLeft) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("taillab.ini"), QSettings::IniFormat);
    double speed = 0;
    QList<int> sizes;
    QSize geometry;
    {
        MainWindow window(scenarioDirectory());
        window.resize(1111, 777);
        window.show();
        ASSERT_TRUE(window.openScenario("hedge-idle"));
        auto* split = window.findChild<QSplitter*>("labsSplitter");
        ASSERT_NE(split, nullptr);
        split->setSizes({200, 400});
        QApplication::processEvents();
        sizes = split->sizes();
        GatewayView* view = window.openGateway(std::nullopt, false);
        QComboBox* box = view->transport()->speedBox();
        // As a user picks it: the box changes and says so (activated), the session follows.
        box->setCurrentIndex(box->count() - 2);
        emit box->activated(box->currentIndex());
        speed = box->currentData().toDouble();
        ASSERT_TRUE(QTest::qWaitFor(
            [&] { return view->latestFrame() && view->latestFrame()->speed == speed; }, 10000));
        QApplication::processEvents();
        geometry = window.size();
        window.saveSettings(settings);
    }
    settings.sync();
    MainWindow window(scenarioDirectory());
    window.restoreSettings(settings, true);
    window.show();
    QApplication::processEvents();
    EXPECT_EQ(window.size(), geometry);
    EXPECT_TRUE(window.gatewayShown()) << "the gateway tab was open";
    window.findChild<QTabWidget*>("mainTabs")->setCurrentIndex(0);
    QApplication::processEvents();
    EXPECT_EQ(window.findChild<QSplitter*>("labsSplitter")->sizes(), sizes);
    EXPECT_TRUE(MainWindow::lastScenario(settings).endsWith("hedge-idle.json"))
        << MainWindow::lastScenario(settings).toStdString();
    ASSERT_NE(window.gatewayView(), nullptr);
    // The speed goes to the session as a command; frames show it once the worker has it.
    QComboBox* box = window.gatewayView()->transport()->speedBox();
    EXPECT_TRUE(QTest::qWaitFor([&] { return box->currentData().toDouble() == speed; }, 10000))
        << box->currentData().toDouble() << " shown, " << speed << " saved";
}

TEST(MainWindowTest, LongRunCanBeCancelledWhileTheWindowStaysResponsive) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.openScenario("fanout"));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));

    auto* requests = window.findChild<QSpinBox*>("knob_spin_requests");
    ASSERT_NE(requests, nullptr) << "the fanout lab has no 'requests' knob";
    QSignalSpy cancelled(window.controller(), &RunController::cancelled);
    generation = window.controller()->generation();
    requests->setValue(requests->maximum());
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return window.controller()->generation() > generation; }, 5000));
    ASSERT_TRUE(window.controller()->running());

    // The event loop keeps turning while the worker computes (a frozen window would hold a
    // zero-delay timer for the whole multi-second run; the bound is loose for a busy machine).
    for (int i = 0; i < 5; ++i) {
        bool fired = false;
        QElapsedTimer clock;
        clock.start();
        QTimer::singleShot(0, &window, [&] { fired = true; });
        ASSERT_TRUE(QTest::qWaitFor([&] { return fired; }, 3000));
        EXPECT_LT(clock.elapsed(), 1500);
        QTest::qWait(50);
    }
    ASSERT_TRUE(window.controller()->running()) << "the long run finished before it was cancelled";
    QPushButton* cancel = window.runStatus()->cancelButton();
    ASSERT_TRUE(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return cancelled.count() > 0; }, 30000))
        << "the run did not report cancelled";
    EXPECT_FALSE(window.controller()->running());
    EXPECT_TRUE(window.runStatus()->message().contains("Cancelled"));
    EXPECT_FALSE(cancel->isEnabled());

    // And the window still runs the next request.
    generation = window.controller()->generation();
    window.knobPanel()->resetToScenario();
    EXPECT_TRUE(waitForNewFinal(window, recorder, generation));
}

TEST(MainWindowTest, NewerRequestWinsOverTheRunInFlight) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    const std::vector<std::string> ids = labIds();
    ASSERT_GE(ids.size(), 2u);
    const quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.selectLab(QString::fromStdString(ids[0])));
    ASSERT_TRUE(window.selectLab(QString::fromStdString(ids[1])));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation + 1));
    for (const LabResultPtr& r : recorder.drawn) EXPECT_EQ(r->lab, ids[1]);
    EXPECT_EQ(window.latestResult()->lab, ids[1]);
}

TEST(MainWindowTest, ListsEveryLabWithItsDefaultScenarioFirst) {
    MainWindow window(scenarioDirectory());
    ASSERT_EQ(window.catalog().labs().size(), allLabs().size());
    for (const auto& l : window.catalog().labs()) {
        ASSERT_FALSE(l.entries.empty()) << l.lab->id();
        const CatalogEntry* def = window.catalog().defaultEntry(l.lab->id());
        ASSERT_NE(def, nullptr) << l.lab->id();
        EXPECT_EQ(def->scenario.lab, l.lab->id());
        EXPECT_EQ(def, &l.entries.front()) << l.lab->id();
        std::string fileName = l.lab->id();
        std::replace(fileName.begin(), fileName.end(), '_', '-');
        EXPECT_EQ(std::filesystem::path(def->file).stem().string(), fileName)
            << "the default is the file named after the lab";
    }
}

}  // namespace
}  // namespace taillab::ui::test
