// The real main window, driven as a user would: every lab is selected, runs to a final result
// with charts, and redraws when its main knob's slider moves; a long run can be cancelled while
// the window stays responsive; a newer request always wins over an older one.
#include <gtest/gtest.h>

#include <QFile>

#include <QAbstractButton>

#include <QMessageBox>
#include <QProxyStyle>
#include <QStyleFactory>

#include <QElapsedTimer>
#include <QDropEvent>
#include <QMenu>
#include <QMimeData>
#include <QProcess>
#include <QUrl>
#include <QAction>
#include <QComboBox>
#include <QSettings>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>
#include <QSlider>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QTimer>

#include "gateway/gateway_view.h"
#include "gateway/transport_bar.h"
#include "chart_pane.h"
#include "knob_editor.h"
#include "knob_panel.h"
#include "lab_browser.h"
#include "message_banner.h"
#include "latency_overlay.h"
#include "base/rng.h"
#include "io/latency_files.h"
#include "metrics/hdr_log.h"
#include "metrics/hgrm.h"
#include "results_panel.h"
#include "run_status.h"
#include "run/runner.h"
#include "scenario/scenario.h"
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
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    quint64 generation = window.controller()->generation();
    const auto verdicts = [&](const QString& text) {
        QTableWidget* table = window.resultsPanel()->checksTable();
        std::vector<QTableWidgetItem*> out;
        for (int row = 0; row < table->rowCount(); ++row)
            if (QTableWidgetItem* v = table->item(row, 4); v && v->text() == text) out.push_back(v);
        return out;
    };
    // Every check decides or says it cannot (the default's between-modes p99: inconclusive).
    ASSERT_EQ(window.latestResult()->checks.size(),
              verdicts("pass").size() + verdicts("FAIL").size() + verdicts("inconclusive").size());
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

// 100,000 req/s at 100 ms each: utilisation 10,000. The status read "checks 5 pass" and nothing
// said the server could not keep up. The banner says so as a notice, the status says so, and the
// checks against the closed forms it has no steady state for read n/a with no expected value;
// back at a load the server keeps up with, the notice goes.
TEST(MainWindowTest, AnOverloadedCoordinatedOmissionRunSaysItIsUnstable) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "coordinated-omission"));
    EXPECT_FALSE(window.banner()->isVisible());
    // A claim's expected value is a bound and reads as one; counts read grouped.
    {
        QTableWidget* table = window.resultsPanel()->checksTable();
        bool sawClaim = false;
        for (int row = 0; row < table->rowCount(); ++row) {
            if (!table->item(row, 0)) continue;
            const QString name = table->item(row, 0)->text();
            if (name == "open-loop p99 >= closed-loop p99") {
                sawClaim = true;
                EXPECT_TRUE(table->item(row, 2)->text().startsWith(QString::fromUtf8("\u2265 ")))
                    << table->item(row, 2)->text().toStdString();
            }
            if (name == "open loop: every request recorded once") {
                EXPECT_EQ(table->item(row, 1)->text(), "100,000");
            }
        }
        EXPECT_TRUE(sawClaim);
    }
    auto spin = [&](const char* key) {
        return window.knobPanel()->editor(key)->findChild<QDoubleSpinBox*>(
            QString("knob_spin_") + key);
    };
    ASSERT_TRUE(spin("rate_per_s") && spin("service_ms"));
    quint64 generation = window.controller()->generation();
    spin("rate_per_s")->setValue(100000);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    generation = window.controller()->generation();
    spin("service_ms")->setValue(100);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));

    EXPECT_TRUE(window.banner()->isVisible());
    EXPECT_EQ(window.banner()->kind(), MessageBanner::Kind::Notice);
    EXPECT_TRUE(window.banner()->text().startsWith("Unstable: utilisation R·s = 10,000"))
        << window.banner()->text().toStdString();
    EXPECT_TRUE(window.runStatus()->message().contains("Unstable: utilisation R·s = 10,000"))
        << window.runStatus()->message().toStdString();
    QTableWidget* table = window.resultsPanel()->checksTable();
    bool sawOpenLoopP99 = false;
    for (int row = 0; row < table->rowCount(); ++row) {
        if (!table->item(row, 0) || table->item(row, 0)->text() != "open-loop p99 (ms)") continue;
        sawOpenLoopP99 = true;
        EXPECT_EQ(table->item(row, 2)->text(), QString("—"));
        EXPECT_EQ(table->item(row, 4)->text(), QString("n/a"));
    }
    EXPECT_TRUE(sawOpenLoopP99);
    // The chart selectors read as the charts do: the per-window chart's title now says where a
    // p99 sits, and neither the tabs nor the drop-down list keep the stable run's title.
    auto expectSelectorsReadTheTitles = [&] {
        const LabResultPtr result = window.latestResult();
        ASSERT_TRUE(result);
        for (int p = 0; p < ChartArea::kPanes; ++p) {
            ChartPane* pane = window.chartArea()->pane(p);
            auto* tabs = pane->findChild<QTabBar*>(QString(), Qt::FindDirectChildrenOnly);
            auto* combo = pane->findChild<QComboBox*>(QString(), Qt::FindDirectChildrenOnly);
            ASSERT_TRUE(tabs && combo);
            ASSERT_EQ(tabs->count(), static_cast<int>(result->charts.size()));
            ASSERT_EQ(combo->count(), tabs->count());
            for (int i = 0; i < tabs->count(); ++i) {
                const std::string& title = result->charts[static_cast<std::size_t>(i)].title;
                EXPECT_EQ(tabs->tabText(i).toStdString(), title) << "pane " << p;
                EXPECT_EQ(combo->itemText(i).toStdString(), title) << "pane " << p;
            }
        }
    };
    bool titleSaysWhere = false;
    for (const Chart& c : window.latestResult()->charts)
        titleSaysWhere = titleSaysWhere || c.title.rfind("Per-window p99 and max (", 0) == 0;
    EXPECT_TRUE(titleSaysWhere) << "the overloaded run's per-window chart says where its p99 sits";
    expectSelectorsReadTheTitles();

    for (const auto& [key, value] : {std::pair{"rate_per_s", 1000.0}, {"service_ms", 0.5}}) {
        generation = window.controller()->generation();
        spin(key)->setValue(value);
        ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    }
    EXPECT_FALSE(window.banner()->isVisible());
    EXPECT_FALSE(window.runStatus()->message().contains("Unstable"));
    expectSelectorsReadTheTitles();
}

// Geometry, splitters, the folded side panel, the open tab, the last scenario and the gateway's
// speed survive a restart.
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
            [&] { return view->latestFrame() && view->latestFrame()->speed == speed; }, kGatewayTimeoutMs));
        QApplication::processEvents();
        geometry = window.size();
        // The side panel folds away (F9) and the charts take the width.
        window.findChild<QTabWidget*>("mainTabs")->setCurrentIndex(0);
        QApplication::processEvents();
        auto* fold = window.findChild<QAction*>("sidePanelAction");
        ASSERT_NE(fold, nullptr);
        const int chartsWide = window.chartArea()->width();
        fold->trigger();
        QApplication::processEvents();
        EXPECT_FALSE(split->isVisible());
        EXPECT_GT(window.chartArea()->width(), chartsWide + 200);
        window.openGateway(std::nullopt, false);
        EXPECT_FALSE(window.gatewayView()->knobPanel()->isVisible()) << "the gateway's knobs fold too";
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
    EXPECT_FALSE(window.findChild<QSplitter*>("labsSplitter")->isVisible()) << "still folded";
    window.findChild<QAction*>("sidePanelAction")->trigger();
    QApplication::processEvents();
    EXPECT_TRUE(window.findChild<QSplitter*>("labsSplitter")->isVisible());
    EXPECT_TRUE(window.gatewayView()->knobPanel()->isVisibleTo(window.gatewayView()));
    EXPECT_EQ(window.findChild<QSplitter*>("labsSplitter")->sizes(), sizes);
    EXPECT_TRUE(MainWindow::lastScenario(settings).endsWith("hedge-idle.json"))
        << MainWindow::lastScenario(settings).toStdString();
    ASSERT_NE(window.gatewayView(), nullptr);
    // The speed goes to the session as a command; frames show it once the worker has it.
    QComboBox* box = window.gatewayView()->transport()->speedBox();
    EXPECT_TRUE(QTest::qWaitFor([&] { return box->currentData().toDouble() == speed; }, kGatewayTimeoutMs))
        << box->currentData().toDouble() << " shown, " << speed << " saved";
}

// Clicks the button named `button` of the next modal message box, once it is up; `look` sees
// the box first.
void answerNextMessageBox(const char* button, std::function<void(QMessageBox&)> look = {}) {
    auto* timer = new QTimer;
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, button, look] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        timer->deleteLater();
        timer->stop();
        if (look) look(*box);
        if (auto* b = box->findChild<QAbstractButton*>(button)) {
            b->click();
        } else {
            box->reject();
        }
    });
    timer->start();
}

// Save Scenario As over a file with published figures (its `expect` block) and other knobs
// asks first and offers the "-edited" name: writeScenarioJson drops `expect` when the knobs
// differ from its setup, so saving an edited labs/fanout over its own file lost the figures.
TEST(MainWindowTest, SavingEditedKnobsOverPublishedFiguresAsksAndOffersTheEditedName) {
    // Icons on a box's buttons, as on Linux desktops (the offscreen platform shows none).
    struct ButtonIcons : QProxyStyle {
        using QProxyStyle::QProxyStyle;
        int styleHint(StyleHint hint, const QStyleOption* option, const QWidget* widget,
                      QStyleHintReturn* data) const override {
            return hint == SH_DialogButtonBox_ButtonsHaveIcons
                       ? 1
                       : QProxyStyle::styleHint(hint, option, widget, data);
        }
    };
    struct FusionAgain {
        ~FusionAgain() { QApplication::setStyle("Fusion"); }  // as tests/ui/main.cpp sets it
    } const restore;
    QApplication::setStyle(new ButtonIcons(QStyleFactory::create("Fusion")));
    QTemporaryDir dir;
    const QString path = dir.filePath("fanout.json");
    ASSERT_TRUE(QFile::copy(QString::fromStdString(scenarioDirectory() + "/labs/fanout.json"), path));
    ASSERT_FALSE(loadScenarioFile(path.toStdString()).expect.empty());
    MainWindow window(scenarioDirectory());
    window.show();
    ASSERT_TRUE(window.openFile(path));
    EXPECT_EQ(window.pathKeepingExpectations(path), path) << "the knobs it was written for";

    KnobEditor* knob = knobToMove(*window.knobPanel(), *findLab("fanout"));
    ASSERT_NE(knob, nullptr);
    const std::string key = knob->spec().key;  // the panel is rebuilt on a save
    const double moved = knob->value() == knob->spec().max ? knob->spec().min : knob->spec().max;
    window.knobPanel()->applyValue(key, moved);
    ASSERT_TRUE(window.knobPanel()->isEdited());
    // Without the question, this save would write the file without its `expect` block.

    answerNextMessageBox("noSuchButton");  // the box is dismissed
    EXPECT_EQ(window.pathKeepingExpectations(path), QString()) << "cancelled";
    const double shown = window.knobPanel()->editedScenario().params.real(key);
    // On screen, the box said what it was about only at the end of a long sentence, and its two
    // choices had no icon beside Cancel's red cross, which made Cancel look the dangerous one.
    // It asks the question first, then says how to keep the figures; every button has an icon
    // and its whole text.
    answerNextMessageBox("saveAsEdited", [](QMessageBox& box) {
        QApplication::processEvents();  // laid out
        saveScreenshot(box, "keep-expectations-box");
        EXPECT_EQ(box.text().toStdString(),
                  "<b>Replace fanout.json and drop its published figures?</b>");
        EXPECT_TRUE(box.informativeText().contains(
            "To keep them, save the edited knobs as fanout-edited.json."))
            << box.informativeText().toStdString();
        const auto buttons = box.findChildren<QPushButton*>();
        EXPECT_EQ(buttons.size(), 3);
        for (QPushButton* b : buttons) {  // Cancel's among them
            EXPECT_FALSE(b->icon().isNull()) << b->text().toStdString();
            EXPECT_GE(b->width(), b->sizeHint().width()) << b->text().toStdString();
        }
        EXPECT_GE(box.width(), box.sizeHint().width());
    });
    const QString target = window.pathKeepingExpectations(path);
    EXPECT_EQ(target, dir.filePath("fanout-edited.json"));
    QString error;
    ASSERT_TRUE(window.saveScenarioAs(target, &error)) << error.toStdString();
    EXPECT_FALSE(loadScenarioFile(path.toStdString()).expect.empty()) << "the figures stay";
    EXPECT_EQ(loadScenarioFile(target.toStdString()).params.real(key), shown);
    // Saved, the window holds fanout-edited (no figures): saving it over fanout.json asks again,
    // and the edited name offered now is a free one, not the copy just written.
    answerNextMessageBox("saveAsEdited");
    EXPECT_EQ(window.pathKeepingExpectations(path), dir.filePath("fanout-edited-2.json"));
    answerNextMessageBox("replaceDroppingExpectations");
    EXPECT_EQ(window.pathKeepingExpectations(path), path) << "the user chose to replace";
}

// File -> Save Scenario As writes the knobs as they are now; taillab-cli runs the file to the very
// bytes the window computed, and the window then holds the saved scenario, unedited.
TEST(MainWindowTest, SaveScenarioAsIsReproducedByTheCli) {
    QTemporaryDir dir;
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "hedge-idle"));
    quint64 generation = window.controller()->generation();
    EXPECT_TRUE(window.saveScenarioAction()->isEnabled());
    EXPECT_EQ(window.saveScenarioAction()->shortcut(), QKeySequence(QKeySequence::SaveAs));
    KnobEditor* knob = knobToMove(*window.knobPanel(), *findLab("hedge_idle"));
    ASSERT_NE(knob, nullptr);
    const std::string key = knob->spec().key;
    const double moved = std::min(knob->value() * 2, knob->spec().max);
    ASSERT_NE(moved, knob->value());
    generation = window.controller()->generation();
    window.knobPanel()->applyValue(key, moved);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    ASSERT_TRUE(window.knobPanel()->isEdited());
    const LabResultPtr shown = window.latestResult();

    const QString path = dir.filePath("My Hedge Test.json");
    QString error;
    ASSERT_TRUE(window.saveScenarioAs(path, &error)) << error.toStdString();
    const Scenario saved = loadScenarioFile(path.toStdString());
    EXPECT_EQ(saved.name, "my-hedge-test");
    EXPECT_EQ(saved.lab, "hedge_idle");
    EXPECT_EQ(saved.params.real(key), shown->parameters.at(key).get<double>());
    EXPECT_FALSE(window.knobPanel()->isEdited()) << "the saved values are the scenario's now";
    EXPECT_EQ(window.scenario().name, "my-hedge-test");
    EXPECT_TRUE(window.windowTitle().contains("my-hedge-test"));
    EXPECT_EQ(window.recentFiles().value(0), QFileInfo(path).absoluteFilePath());

    LabResult gui = *shown;
    gui.scenario = saved.name;
    const std::string expected = toJson(gui).dump(2) + "\n";
    QProcess cli;
    const QString out = dir.filePath("result.json");
    cli.start(TAILLAB_CLI_PATH, {"run", path, "--out", out});
    ASSERT_TRUE(cli.waitForFinished(kRunTimeoutMs));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    EXPECT_TRUE(readFile(out) == expected) << "taillab-cli run differs from the window's run";

    // A file that cannot be written leaves the window as it was and says why.
    const QString bad = dir.filePath("no-such-dir/x.json");
    EXPECT_FALSE(window.saveScenarioAs(bad, &error));
    EXPECT_TRUE(error.contains("no-such-dir")) << error.toStdString();
    EXPECT_EQ(window.scenario().name, "my-hedge-test");
}

// Knobs that contradict each other would make a file no one can load: saving refuses before
// writing, and the file at the path keeps its bytes.
TEST(MainWindowTest, SaveScenarioAsRefusesKnobsThatContradictEachOther) {
    QTemporaryDir dir;
    MainWindow window(scenarioDirectory());
    ASSERT_TRUE(window.openScenario("gateway"));
    window.knobPanel()->applyValue("admission_min_limit", 200);
    window.knobPanel()->applyValue("admission_max_limit", 100);
    const QString path = dir.filePath("kept.json");
    {
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("old contents\n");
    }
    QString error;
    EXPECT_FALSE(window.saveScenarioAs(path, &error));
    EXPECT_TRUE(error.contains("contradict")) << error.toStdString();
    EXPECT_EQ(readFile(path), "old contents\n");
}

// Files opened or saved are offered again under File -> Open Recent, newest first, across a
// restart; one that no longer opens leaves the list.
TEST(MainWindowTest, RecentFilesKeepTheNewestFirstAndSurviveARestart) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("taillab.ini"), QSettings::IniFormat);
    const QString a = QString::fromStdString(scenarioDirectory()) + "/labs/fanout.json";
    const QString b = QString::fromStdString(scenarioDirectory()) + "/labs/hedge-idle.json";
    const QString gone = dir.filePath("gone.json");
    std::filesystem::copy_file(b.toStdString(), gone.toStdString());
    {
        MainWindow window(scenarioDirectory());
        window.show();
        ASSERT_TRUE(window.openFile(a));
        ASSERT_TRUE(window.openFile(gone));
        ASSERT_TRUE(window.openFile(b));
        ASSERT_TRUE(window.openFile(a));
        EXPECT_EQ(window.recentFiles(),
                  QStringList({QFileInfo(a).absoluteFilePath(), QFileInfo(b).absoluteFilePath(),
                               QFileInfo(gone).absoluteFilePath()}));
        window.saveSettings(settings);
    }
    settings.sync();
    std::filesystem::remove(gone.toStdString());
    MainWindow window(scenarioDirectory());
    window.restoreSettings(settings, false);
    window.show();
    ASSERT_EQ(window.recentFiles().size(), 3);
    QMenu* menu = window.recentMenu();
    ASSERT_NE(menu, nullptr);
    QList<QAction*> entries;
    for (QAction* act : menu->actions())
        if (act->data().isValid()) entries.push_back(act);
    ASSERT_EQ(entries.size(), 3);
    EXPECT_TRUE(entries[0]->text().contains("fanout.json"));
    EXPECT_EQ(entries[2]->toolTip(), QFileInfo(gone).absoluteFilePath());
    entries[1]->trigger();
    EXPECT_EQ(window.scenario().name, "hedge-idle");
    EXPECT_EQ(window.recentFiles().value(0), QFileInfo(b).absoluteFilePath());
    entries = {};
    for (QAction* act : menu->actions())
        if (act->data().toString() == QFileInfo(gone).absoluteFilePath()) act->trigger();
    EXPECT_EQ(window.recentFiles().size(), 2) << "the missing file left the list";
    EXPECT_FALSE(window.recentFiles().contains(QFileInfo(gone).absoluteFilePath()));
}

// A scenario file dropped on the window opens, as File -> Open would; other drops are refused.
TEST(MainWindowTest, DroppingAScenarioFileOpensIt) {
    MainWindow window(scenarioDirectory());
    window.show();
    ASSERT_TRUE(window.openScenario("fanout"));
    const QString path = QString::fromStdString(scenarioDirectory()) + "/labs/power-of-d.json";
    const auto drag = [&](const QList<QUrl>& urls) {
        QMimeData mime;
        mime.setUrls(urls);
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        if (!enter.isAccepted()) return false;
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        return true;
    };
    EXPECT_FALSE(drag({QUrl::fromLocalFile("/tmp/picture.png")}));
    EXPECT_FALSE(drag({QUrl("https://example.com/s.json")}));
    EXPECT_FALSE(drag({QUrl::fromLocalFile(path), QUrl::fromLocalFile(path)}));
    EXPECT_EQ(window.scenario().name, "fanout");
    EXPECT_TRUE(drag({QUrl::fromLocalFile(path)}));
    EXPECT_EQ(window.scenario().name, "power-of-d");
    EXPECT_EQ(window.recentFiles().value(0), QFileInfo(path).absoluteFilePath());
}

// File -> Open on a broken file says where and what, once, in the banner; the result on screen is
// marked stale rather than left looking current; the next good scenario clears both.
TEST(MainWindowTest, ABrokenFileIsExplainedAndTheOldResultMarkedStale) {
    QTemporaryDir dir;
    const QString broken = dir.filePath("broken.json");
    {
        std::ofstream out(broken.toStdString());
        out << "{\"schema_version\": 1, \"name\": \"x\", \"lab\": \"fanout\", \"params\": {\n";
    }
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    quint64 generation = window.controller()->generation();
    EXPECT_FALSE(window.banner()->isVisible());
    EXPECT_FALSE(window.resultIsStale());

    EXPECT_FALSE(window.openFile(broken));
    const QString text = window.banner()->text();
    EXPECT_TRUE(window.banner()->isVisible());
    EXPECT_TRUE(text.contains(broken + ":1:64: invalid JSON")) << text.toStdString();
    EXPECT_TRUE(text.contains("stale")) << text.toStdString();
    EXPECT_TRUE(window.lastOpenError().startsWith(broken + ":1:64: invalid JSON"))
        << window.lastOpenError().toStdString();
    EXPECT_TRUE(window.resultIsStale());
    EXPECT_FALSE(window.resultsPanel()->isEnabled());
    QWidget* veil = window.chartArea()->findChild<QWidget*>("staleVeil");
    ASSERT_NE(veil, nullptr);
    EXPECT_TRUE(veil->isVisible());
    EXPECT_EQ(veil->size(), window.chartArea()->size());
    EXPECT_EQ(window.scenario().name, "fanout") << "the old scenario stays, marked stale";

    // The same message from the command line as from the GUI's arguments.
    QProcess cli;
    cli.start(TAILLAB_CLI_PATH, {"run", broken});
    ASSERT_TRUE(cli.waitForFinished(30000 * kSlowdown));
    EXPECT_EQ(cli.exitCode(), 2);
    EXPECT_TRUE(QString::fromUtf8(cli.readAllStandardError()).contains(window.lastOpenError()));

    generation = window.controller()->generation();
    ASSERT_TRUE(window.openScenario("hedge-idle"));
    EXPECT_FALSE(window.banner()->isVisible());
    EXPECT_FALSE(window.resultIsStale());
    EXPECT_TRUE(window.resultsPanel()->isEnabled());
    EXPECT_FALSE(veil->isVisible());
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
}

// Pin as Baseline in a lab: the next run draws the pinned curves as ghosts under its own, the
// checks gain a "Δ vs pinned" column and the figures "Pinned" and "Δ"; another lab clears it.
TEST(MainWindowTest, APinnedLabRunIsDrawnUnderTheNextAndDiffedInTheTables) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    quint64 generation = window.controller()->generation();
    EXPECT_FALSE(window.clearBaselineAction()->isEnabled());
    ASSERT_TRUE(window.pinBaselineAction()->isEnabled());
    window.pinBaselineAction()->trigger();
    const LabResultPtr pinned = window.baseline();
    ASSERT_EQ(pinned, window.latestResult());
    EXPECT_FALSE(window.pinBaselineAction()->isEnabled()) << "this result is the pinned one";
    EXPECT_TRUE(window.clearBaselineAction()->isEnabled());

    generation = window.controller()->generation();
    window.knobPanel()->applyValue("backends", 50);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    const LabResultPtr now = window.latestResult();
    ASSERT_NE(now, pinned);
    int ghosted = 0;
    for (int i = 0; i < ChartArea::kPanes; ++i) {
        ChartPane* pane = window.chartArea()->pane(i);
        if (!pane->isVisibleTo(window.chartArea()) || !pane->chart()) continue;
        const Chart* shown = pane->chart();
        const Chart* before = nullptr;
        for (const Chart& c : pinned->charts)
            if (c.id == shown->id) before = &c;
        ASSERT_NE(before, nullptr);
        const auto ghosts = pane->view()->baselineSeries();
        ASSERT_EQ(ghosts.size(), before->series.size()) << shown->id;
        for (std::size_t k = 0; k < ghosts.size(); ++k) {
            EXPECT_EQ(ghosts[k].name, ChartView::baselineName(before->series[k].name));
            EXPECT_EQ(ghosts[k].y.size(), before->series[k].y.size());
        }
        ++ghosted;
    }
    EXPECT_EQ(ghosted, 2);

    QTableWidget* checks = window.resultsPanel()->checksTable();
    ASSERT_EQ(checks->columnCount(), ResultsPanel::kDeltaColumn + 1);
    EXPECT_EQ(checks->horizontalHeaderItem(ResultsPanel::kDeltaColumn)->text(), "Δ vs pinned");
    // "backend slow rate" does not depend on the fan-out; "requests with a slow call" does.
    const auto deltaOf = [&](const std::string& name) {
        for (int row = 0; row < checks->rowCount(); ++row)
            if (checks->item(row, 0) && checks->item(row, 0)->text().toStdString() == name)
                return checks->item(row, ResultsPanel::kDeltaColumn)->text();
        return QString("missing");
    };
    EXPECT_TRUE(deltaOf("requests with a slow call").startsWith("−")) << deltaOf("requests with a slow call").toStdString();
    QTableWidget* figures = window.resultsPanel()->figuresTable();
    ASSERT_EQ(figures->columnCount(), 4);
    int compared = 0;
    for (int row = 0; row < figures->rowCount(); ++row) {
        const std::string name = figures->item(row, 0)->data(Qt::UserRole).toString().toStdString();
        EXPECT_NE(figures->item(row, 0)->text().toStdString(), name) << "shown in words";
        for (const auto& [n, v] : pinned->figures)
            if (n == name && std::isfinite(v)) {
                EXPECT_NE(figures->item(row, 2)->text(), "—") << name;
                ++compared;
            }
    }
    EXPECT_GT(compared, 0);

    // Another lab: nothing of the pin is left.
    ASSERT_TRUE(openAndWait(window, recorder, "hedge-idle"));
    EXPECT_EQ(window.baseline(), nullptr);
    EXPECT_EQ(checks->columnCount(), ResultsPanel::kDeltaColumn);
    EXPECT_EQ(figures->columnCount(), 2);
    EXPECT_TRUE(window.chartArea()->pane(0)->view()->baselineSeries().empty());
}

// A check the run is too short to decide reads "inconclusive", says in its tooltip what run
// would decide it, and counts neither as a pass nor as a failure.
TEST(MainWindowTest, InconclusiveChecksSayWhatRunWouldDecideThem) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "power-of-d"));
    QTableWidget* table = window.resultsPanel()->checksTable();
    int inconclusive = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        QTableWidgetItem* v = table->item(row, 4);
        if (!v || v->text() != "inconclusive") continue;
        ++inconclusive;
        EXPECT_TRUE(v->toolTip().contains("run at least")) << v->toolTip().toStdString();
    }
    const auto expected = std::count_if(window.latestResult()->checks.begin(),
                                        window.latestResult()->checks.end(),
                                        [](const Check& c) { return !c.inconclusive.empty(); });
    EXPECT_GT(expected, 0);
    EXPECT_EQ(inconclusive, expected);
    EXPECT_TRUE(window.runStatus()->message().contains("inconclusive"))
        << window.runStatus()->message().toStdString();
    // The tab counts each verdict: an undecided check is not hidden among the passes.
    const CheckTally t = tallyChecks(window.latestResult()->checks);
    EXPECT_EQ(window.resultsPanel()->tabText(0),
              QString("Checks (%1 pass · %2 inconclusive)").arg(t.passed).arg(expected))
        << window.resultsPanel()->tabText(0).toStdString();
    EXPECT_TRUE(window.runStatus()->message().contains(
        QString("%1 pass · %2 inconclusive").arg(t.passed).arg(expected)))
        << window.runStatus()->message().toStdString();
}

// A measured distribution from a file is drawn on the labs' nines charts beside the lab's own
// curves (a .hgrm in ms, a latency log in µs), several at once; a broken file says where and
// what; Clear takes them all away.
TEST(MainWindowTest, LatencyFilesOverlayThePercentileCharts) {
    QTemporaryDir dir;
    HdrHistogram h;  // µs
    Rng rng(9, "overlay");
    for (int i = 0; i < 20'000; ++i) h.record(static_cast<std::int64_t>(rng.exponential(8000.0)) + 100);
    HgrmOptions inMs;
    inMs.value_scale = 1000.0;
    const QString hgrm = dir.filePath("measured.hgrm");
    std::ofstream(hgrm.toStdString()) << formatHgrm(h, inMs);
    const QString log = dir.filePath("requests.log");
    {
        std::ofstream out(log.toStdString());
        Rng again(9, "overlay");
        for (int i = 0; i < 20'000; ++i) out << static_cast<std::int64_t>(again.exponential(8000.0)) + 100 << "\n";
    }
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    ChartPane* pane = window.chartArea()->pane(0);
    ASSERT_EQ(pane->chart()->kind, ChartKind::Percentile);
    const std::size_t own = pane->view()->plottedSeries().size();

    QString error;
    ASSERT_TRUE(window.addOverlay(hgrm, LatencyUnit::Milliseconds, &error)) << error.toStdString();
    ASSERT_TRUE(window.addOverlay(log, LatencyUnit::Microseconds, &error)) << error.toStdString();
    const auto drawn = pane->view()->plottedSeries();
    ASSERT_EQ(drawn.size(), own + 2);
    for (const auto& series : {drawn[own], drawn[own + 1]}) {
        // Read off each overlay at its first point from the median up: the histogram's value at
        // that percentile, in ms.
        int k = 0;
        while (k < series.x.size() && series.x[k] < 0.5) ++k;
        ASSERT_LT(k, series.x.size()) << series.name.toStdString();
        const double expected = static_cast<double>(h.valueAtPercentile(series.x[k] * 100)) / 1000.0;
        EXPECT_NEAR(series.y[k], expected, 0.002 * expected) << series.name.toStdString();
    }
    EXPECT_EQ(drawn[own].name, "measured.hgrm (ms)");
    EXPECT_EQ(drawn[own + 1].name, "requests.log (µs)");
    EXPECT_TRUE(pane->view()->legendNames().contains("measured.hgrm (ms)"));
    // Non-percentile charts are left alone.
    ChartPane* other = window.chartArea()->pane(1);
    if (other->chart() && other->chart()->kind != ChartKind::Percentile) {
        for (const auto& series : other->view()->plottedSeries())
            EXPECT_FALSE(series.name.contains(".hgrm"));
    }

    const QString broken = dir.filePath("broken.hgrm");
    std::ofstream(broken.toStdString()) << "1.0 0.5 1 2.0\n2.0 0.4 2 2.0\n";
    EXPECT_FALSE(window.addOverlay(broken, LatencyUnit::Milliseconds, &error));
    EXPECT_EQ(error, broken + ":2:5: the percentile goes down from the row before");
    EXPECT_TRUE(window.banner()->text().contains(":2:5:"));
    EXPECT_EQ(window.overlays().size(), 2u);

    window.findChild<QAction*>("clearOverlays")->trigger();
    EXPECT_TRUE(window.overlays().empty());
    EXPECT_EQ(pane->view()->plottedSeries().size(), own);
}

// An interval log (.hlog, as taillab-cli and HdrHistogram's tools write it) was offered by
// Overlay Latency File but read as one number a line, which its header is not. Its untagged
// intervals are merged into the distribution drawn; tagged ones are another stream.
TEST(MainWindowTest, AnIntervalLogOverlaysItsUntaggedIntervalsMerged) {
    QTemporaryDir dir;
    HdrHistogram whole, first, second, other;  // µs
    Rng rng(9, "hlog overlay");
    for (int i = 0; i < 20'000; ++i) {
        const auto v = static_cast<std::int64_t>(rng.exponential(8000.0)) + 100;
        whole.record(v);
        (i % 2 ? first : second).record(v);
        other.record(v * 50);
    }
    const HdrLogWriter writer(0);
    const QString path = dir.filePath("intervals.hlog");
    std::ofstream(path.toStdString()) << writer.header() << writer.interval(0, 1, first)
                                      << writer.interval(1, 1, other, "elsewhere")
                                      << writer.interval(1, 1, second);

    const LatencyOverlay o = readLatencyOverlay(path, likelyUnit(path));
    EXPECT_EQ(o.series.name, "intervals.hlog (µs)");
    ASSERT_FALSE(o.series.x.empty());
    for (std::size_t k = 0; k < o.series.x.size(); k += 7) {
        const double expected =
            static_cast<double>(whole.valueAtPercentile(o.series.x[k] * 100)) / 1000.0;
        EXPECT_NEAR(o.series.y[k], expected, 0.002 * expected) << o.series.x[k];
    }

    const QString noneUntagged = dir.filePath("tagged.hlog");
    std::ofstream(noneUntagged.toStdString()) << writer.header()
                                              << writer.interval(0, 1, other, "elsewhere");
    EXPECT_THROW(readLatencyOverlay(noneUntagged, LatencyUnit::Microseconds), std::runtime_error);
}

// Logs from an auto-resizing recorder name a larger range as values grow. The overlay merged an
// interval log into its first interval's layout, so a later interval's tail was counted out of
// range and dropped without a word (900 values of 100 µs drawn, the 100 of 1 s lost), and the
// curve depended on the intervals' order. It covers every interval's range, in either order.
TEST(MainWindowTest, AnIntervalLogOverlayKeepsALaterIntervalsLargerRange) {
    QTemporaryDir dir;
    HdrHistogram small(HdrConfig{1, 2'047, 3}), large(HdrConfig{1, 1'048'575, 3});  // µs
    small.record(100, 900);
    large.record(1'000'000, 100);
    HdrHistogram whole(HdrConfig{1, 1'048'575, 3});
    ASSERT_EQ(whole.merge(small) + whole.merge(large), 0);
    const HdrLogWriter writer(0);
    const QString smallFirst = dir.filePath("small-first.hlog");
    const QString largeFirst = dir.filePath("large-first.hlog");
    std::ofstream(smallFirst.toStdString())
        << writer.header() << writer.interval(0, 1, small) << writer.interval(1, 1, large);
    std::ofstream(largeFirst.toStdString())
        << writer.header() << writer.interval(0, 1, large) << writer.interval(1, 1, small);

    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));  // its first pane: the nines chart
    for (const QString& path : {smallFirst, largeFirst}) {
        QString error;
        ASSERT_TRUE(window.addOverlay(path, LatencyUnit::Microseconds, &error)) << error.toStdString();
    }
    ASSERT_EQ(window.overlays().size(), 2u);
    for (const LatencyOverlay& o : window.overlays())
        EXPECT_EQ(o.count, 1000) << o.path.toStdString() << ": every value of both intervals";

    // Both curves are the one of all 1,000 values, in ms: 100 µs up to p90, then 1 s.
    const Series expected = percentileSeries("", whole);
    const auto drawn = window.chartArea()->pane(0)->view()->plottedSeries();
    for (const QString name : {"small-first.hlog (µs)", "large-first.hlog (µs)"}) {
        const auto series = std::find_if(drawn.begin(), drawn.end(),
                                         [&](const PlottedSeries& s) { return s.name == name; });
        ASSERT_NE(series, drawn.end()) << name.toStdString() << " is not drawn";
        ASSERT_EQ(static_cast<std::size_t>(series->x.size()), expected.x.size()) << name.toStdString();
        for (std::size_t k = 0; k < expected.x.size(); ++k) {
            EXPECT_NEAR(series->x[k], expected.x[k], 1e-9) << name.toStdString() << " point " << k;
            EXPECT_NEAR(series->y[k], expected.y[k], 1e-9) << name.toStdString() << " at " << expected.x[k];
        }
        EXPECT_NEAR(series->y.back(), 1000.0, 1.0) << name.toStdString() << ": the tail, 1 s";
    }
}

// A latency log is recorded into a histogram up to an hour in its unit. What lay outside that
// (negative, beyond an hour, beyond 64 bits) was dropped without a word, and the curve read as if
// it held every value. As taillab-cli hdr counts them (its out_of_range), the overlay counts
// them and says so in its legend and the status bar; a log with nothing in range says why.
TEST(MainWindowTest, ALatencyLogOverlayNamesTheValuesItLeavesOut) {
    QTemporaryDir dir;
    const QString log = dir.filePath("requests.log");
    {
        std::ofstream out(log.toStdString());
        for (int i = 1; i <= 2000; ++i) out << 100 * i << "\n";
        out << "3600000000\n";  // an hour in µs: in range
        out << "3600000001\n-5\n99999999999999999999\n7.2e9\n";
    }
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));  // its first pane: the nines chart
    QString error;
    ASSERT_TRUE(window.addOverlay(log, LatencyUnit::Microseconds, &error)) << error.toStdString();
    const LatencyOverlay& o = window.overlays().back();
    EXPECT_EQ(o.count, 2001);
    EXPECT_EQ(o.out_of_range, 4);
    EXPECT_EQ(o.left_out, "4 values outside 0 to 1 h left out") << o.left_out.toStdString();
    const QString name = "requests.log (µs; 4 values outside 0 to 1 h left out)";
    EXPECT_EQ(o.series.name, name.toStdString());
    EXPECT_TRUE(window.chartArea()->pane(0)->view()->legendNames().contains(name))
        << window.chartArea()->pane(0)->view()->legendNames().join(", ").toStdString();
    EXPECT_TRUE(window.runStatus()->message().endsWith(
        QString("%L1 values; 4 values outside 0 to 1 h left out").arg(2001)))
        << window.runStatus()->message().toStdString();

    // Raw values too, in another unit: an hour in ns.
    const QString raw = dir.filePath("requests.u64le");
    {
        std::ofstream out(raw.toStdString(), std::ios::binary);
        for (const std::uint64_t v : {std::uint64_t{1'000}, std::uint64_t{2'000}, std::uint64_t{3'600'000'000'001}}) {
            unsigned char bytes[8];
            for (int b = 0; b < 8; ++b) bytes[b] = static_cast<unsigned char>(v >> (8 * b));
            out.write(reinterpret_cast<const char*>(bytes), 8);
        }
    }
    const LatencyOverlay ns = readLatencyOverlay(raw, LatencyUnit::Nanoseconds);
    EXPECT_EQ(ns.count, 2);
    EXPECT_EQ(ns.out_of_range, 1);
    EXPECT_EQ(ns.series.name, "requests.u64le (ns; 1 value outside 0 to 1 h left out)");

    // A log in range keeps its plain name.
    const QString plain = dir.filePath("plain.log");
    std::ofstream(plain.toStdString()) << "100\n200\n";
    const LatencyOverlay p = readLatencyOverlay(plain, LatencyUnit::Microseconds);
    EXPECT_EQ(p.out_of_range, 0);
    EXPECT_TRUE(p.left_out.isEmpty());
    EXPECT_EQ(p.series.name, "plain.log (µs)");

    // Nothing in range: an error that says why (here, seconds read as such are over an hour).
    const QString slow = dir.filePath("slow.log");
    std::ofstream(slow.toStdString()) << "4000\n5000\n";
    EXPECT_FALSE(window.addOverlay(slow, LatencyUnit::Seconds, &error));
    EXPECT_EQ(error, slow + ": no latency values: all 2 are outside 0 to 1 h (read as s)")
        << error.toStdString();
}

// A malformed line in a latency log was reported by its number alone ("a.log:2: not a number"):
// the error quotes it, as taillab-cli hdr's does.
TEST(MainWindowTest, ALatencyLogOverlaysErrorQuotesTheLineAtFault) {
    QTemporaryDir dir;
    const QString log = dir.filePath("typo.log");
    std::ofstream(log.toStdString()) << "100\n3O0\n400\n";
    try {
        readLatencyOverlay(log, LatencyUnit::Microseconds);
        ADD_FAILURE() << "typo.log was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(e.what(), log.toStdString() + ":2: not a number: '3O0'");
    }
    const QString raw = dir.filePath("odd.u64le");
    std::ofstream(raw.toStdString(), std::ios::binary) << std::string(8 * 2 + 3, '\1');
    try {
        readLatencyOverlay(raw, LatencyUnit::Nanoseconds);
        ADD_FAILURE() << "odd.u64le was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(e.what(), raw.toStdString() + ": size is not a multiple of 8 bytes (3 trailing bytes)");
    }
}

// An interval log or a percentile distribution is read whole. The overlay read one of any size,
// where taillab-cli hdr takes a log of intervals of at most 1 GiB; it takes the same, and
// checks the size before it reads a byte (a sparse file stands for a real one).
TEST(MainWindowTest, AnOverlayReadWholeIsRefusedOverTheCliLimitBeforeItIsRead) {
    QTemporaryDir dir;
    const auto refusal = [](const QString& path, std::uintmax_t size) -> std::string {
        std::ofstream(path.toStdString()).close();
        std::filesystem::resize_file(path.toStdString(), size);
        try {
            readLatencyOverlay(path, likelyUnit(path));
        } catch (const std::runtime_error& e) {
            return e.what();
        }
        return "(read)";
    };
    const QString hlog = dir.filePath("huge.hlog");
    EXPECT_EQ(refusal(hlog, kMaxHlogBytes + 1),
              hlog.toStdString() + ": is 1073741825 bytes; a log of intervals may be at most 1 GiB");
    const QString hgrm = dir.filePath("huge.hgrm");
    EXPECT_EQ(refusal(hgrm, kMaxHgrmBytes + 1),
              hgrm.toStdString() + ": is 67108865 bytes; a percentile distribution may be at most 64 MiB");
}

// A latency file is in ms: it was drawn on every nines chart, also on power of d's, whose y axis
// is in mean service times. It goes only on the nines charts in ms.
TEST(MainWindowTest, LatencyOverlaysGoOnlyOnNinesChartsInMilliseconds) {
    QTemporaryDir dir;
    const QString log = dir.filePath("requests.log");
    {
        std::ofstream out(log.toStdString());
        for (int i = 1; i <= 2000; ++i) out << 100 * i << "\n";
    }
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "power-of-d"));
    QString error;
    ASSERT_TRUE(window.addOverlay(log, LatencyUnit::Microseconds, &error)) << error.toStdString();
    ChartPane* pane = window.chartArea()->pane(0);
    const LabResultPtr result = window.latestResult();
    int nines = 0;
    for (std::size_t i = 0; i < result->charts.size(); ++i) {
        if (result->charts[i].kind != ChartKind::Percentile) continue;
        ++nines;
        pane->showChart(static_cast<int>(i));
        ASSERT_EQ(pane->chart()->id, result->charts[i].id);
        const bool inMs = pane->chart()->y_label.ends_with("(ms)");
        bool overlaid = false;
        for (const auto& series : pane->view()->plottedSeries())
            overlaid = overlaid || series.name.contains("requests.log");
        EXPECT_EQ(overlaid, inMs) << pane->chart()->y_label;
    }
    EXPECT_GT(nines, 0) << "power of d has a nines chart";

    // Kept across labs: fanout's nines chart, in ms, draws it.
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    ASSERT_EQ(pane->chart()->kind, ChartKind::Percentile);
    ASSERT_TRUE(pane->chart()->y_label.ends_with("(ms)"));
    bool overlaid = false;
    for (const auto& series : pane->view()->plottedSeries())
        overlaid = overlaid || series.name.contains("requests.log");
    EXPECT_TRUE(overlaid);
}

TEST(MainWindowTest, LongRunCanBeCancelledWhileTheWindowStaysResponsive) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    quint64 generation = window.controller()->generation();

    auto* requests = window.findChild<QSpinBox*>("knob_spin_requests");
    ASSERT_NE(requests, nullptr) << "the fanout lab has no 'requests' knob";
    QSignalSpy cancelled(window.controller(), &RunController::cancelled);
    generation = window.controller()->generation();
    requests->setValue(requests->maximum());
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return window.controller()->generation() > generation; }, 5000 * kSlowdown));
    ASSERT_TRUE(window.controller()->running());

    // The event loop keeps turning while the worker computes (a frozen window would hold a
    // zero-delay timer for the whole multi-second run; the bound is loose for a busy machine).
    for (int i = 0; i < 5; ++i) {
        bool fired = false;
        QElapsedTimer clock;
        clock.start();
        QTimer::singleShot(0, &window, [&] { fired = true; });
        ASSERT_TRUE(QTest::qWaitFor([&] { return fired; }, 3000 * kSlowdown));
        EXPECT_LT(clock.elapsed(), 1500 * kSlowdown);
        QTest::qWait(50);
    }
    ASSERT_TRUE(window.controller()->running()) << "the long run finished before it was cancelled";
    QPushButton* cancel = window.runStatus()->cancelButton();
    ASSERT_TRUE(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return cancelled.count() > 0; }, 30000 * kSlowdown))
        << "the run did not report cancelled";
    EXPECT_FALSE(window.controller()->running());
    EXPECT_TRUE(window.runStatus()->message().contains("Cancelled"));
    EXPECT_FALSE(cancel->isEnabled());

    // And the window still runs the next request.
    generation = window.controller()->generation();
    window.knobPanel()->resetToScenario();
    EXPECT_TRUE(waitForNewFinal(window, recorder, generation));
}

// The status bar's progress, run time and Cancel belong to the labs' runs: shown with the labs,
// hidden on the gateway tabs (which have read-outs of their own), back with the labs.
TEST(MainWindowTest, TheLabRunReadoutShowsOnlyWithTheLabs) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "fanout"));
    auto* progress = window.findChild<QProgressBar*>("runProgress");
    auto* time = window.findChild<QLabel*>("runTime");
    ASSERT_TRUE(progress && time);
    QPushButton* cancel = window.runStatus()->cancelButton();
    EXPECT_TRUE(progress->isVisible());
    EXPECT_EQ(progress->value(), progress->maximum());
    EXPECT_TRUE(time->isVisible());
    EXPECT_TRUE(cancel->isVisible());
    auto* tabs = window.findChild<QTabWidget*>("mainTabs");
    ASSERT_NE(tabs, nullptr);
    for (int i = 1; i < tabs->count(); ++i) {
        if (tabs->tabText(i) != "Gateway (live)" && tabs->tabText(i) != "Incidents") continue;
        tabs->setCurrentIndex(i);
        EXPECT_FALSE(progress->isVisible()) << tabs->tabText(i).toStdString();
        EXPECT_FALSE(time->isVisible()) << tabs->tabText(i).toStdString();
        EXPECT_FALSE(cancel->isVisible()) << tabs->tabText(i).toStdString();
        EXPECT_TRUE(window.findChild<QLabel*>("runMessage")->isVisible());
    }
    tabs->setCurrentIndex(0);
    EXPECT_TRUE(progress->isVisible());
    EXPECT_TRUE(cancel->isVisible());
}

// The status bar's message is the tab's in front: a gateway tab never reads "Ready" or the
// labs' last run ("Finished"), even of a run that ends while it is in front; a message it shows
// goes with it, and the labs' comes back with the labs.
TEST(MainWindowTest, TheStatusMessageIsTheTabInFronts) {
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.show();
    EXPECT_EQ(window.runStatus()->message(), "Ready");
    window.openGateway(std::nullopt, false);
    EXPECT_EQ(window.runStatus()->message(), "") << "not the labs' \"Ready\"";
    window.runStatus()->showMessage("Saved the run as x.json");
    EXPECT_EQ(window.runStatus()->message(), "Saved the run as x.json");

    auto* tabs = window.findChild<QTabWidget*>("mainTabs");
    ASSERT_NE(tabs, nullptr);
    tabs->setCurrentIndex(0);
    EXPECT_EQ(window.runStatus()->message(), "Ready");
    // A lab run that ends behind the gateway tab.
    const quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.openScenario("fanout"));
    window.openGateway(std::nullopt, false);
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    EXPECT_EQ(window.runStatus()->message(), "");
    tabs->setCurrentIndex(0);
    EXPECT_TRUE(window.runStatus()->message().startsWith("Finished"))
        << window.runStatus()->message().toStdString();
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

// The tree is read in teaching order: numbered labs, the first saying where to start, and each
// scenario named in words by its title (not by its file name), without repeating its lab.
TEST(MainWindowTest, TheLabTreeNumbersLabsAndNamesScenariosInWords) {
    MainWindow window(scenarioDirectory());
    auto* tree = window.findChild<LabBrowser*>("labBrowser");
    ASSERT_NE(tree, nullptr);
    ASSERT_EQ(tree->topLevelItemCount(), static_cast<int>(allLabs().size()));
    EXPECT_EQ(allLabs().front()->id(), "fanout") << "the tree starts with why the tail matters";
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* labRow = tree->topLevelItem(i);
        const QString title = QString::fromStdString(allLabs()[static_cast<std::size_t>(i)]->title());
        EXPECT_TRUE(labRow->text(0).startsWith(QString("%1. %2").arg(i + 1).arg(title)))
            << labRow->text(0).toStdString();
        EXPECT_EQ(labRow->text(0).contains("start here"), i == 0) << labRow->text(0).toStdString();
        const CatalogLab* lab = window.catalog().lab(allLabs()[static_cast<std::size_t>(i)]->id());
        ASSERT_NE(lab, nullptr);
        ASSERT_EQ(labRow->childCount(), static_cast<int>(lab->entries.size()));
        for (int j = 0; j < labRow->childCount(); ++j) {
            const CatalogEntry& entry = lab->entries[static_cast<std::size_t>(j)];
            if (!entry.error.empty()) continue;
            const QString text = labRow->child(j)->text(0);
            EXPECT_NE(text.toStdString(), entry.scenario.name) << "a file name is not a name";
            EXPECT_FALSE(text.startsWith(title + ":")) << text.toStdString();
            EXPECT_TRUE(QString::fromStdString(entry.scenario.title).endsWith(text.mid(1)))
                << text.toStdString();
            EXPECT_TRUE(labRow->child(j)->toolTip(0).startsWith(
                QString::fromStdString(entry.scenario.title)));
        }
    }
    EXPECT_EQ(LabBrowser::entryLabel("Power of d choices", "Power of d choices: the published "
                                     "figures", "x"),
              "The published figures");
    EXPECT_EQ(LabBrowser::entryLabel("Power of d choices", "An agent loop", "x"), "An agent loop");
    EXPECT_EQ(LabBrowser::entryLabel("Power of d choices", "", "power-of-d"), "power-of-d");
}

// Opening a broken gateway file changes nothing but the banner: no gateway run starts (the default
// week included), the run on screen goes on, and the path is said once. The window's title names
// the gateway scenario on screen.
TEST(MainWindowTest, AFailedGatewayOpenKeepsWhatWasThereAndTheTitleFollowsTheScenario) {
    QTemporaryDir dir;
    const QString broken = dir.filePath("broken.json");
    {
        std::ofstream out(broken.toStdString());
        out << R"({"schema_version":1,"name":"t","title":"t","lab":"gateway","seed":1,)"
            << R"("params":{"days":1},"timeline":[{"at":"Mon 09:30","until":"Mon 13:00",)"
            << R"("fault":{"target":{"engine":"atlass"},"effect":"slow","factor":3}}]})";
    }
    MainWindow window(scenarioDirectory());
    window.show();
    ASSERT_TRUE(window.openScenario("fanout"));

    // From the labs, with no gateway run yet: the labs' banner says it, nothing starts.
    EXPECT_FALSE(window.openFile(broken));
    EXPECT_TRUE(window.gatewayView() == nullptr || !window.gatewayView()->hasRun());
    EXPECT_TRUE(window.banner()->isVisible());
    const QString text = window.banner()->text();
    EXPECT_EQ(text.count(broken), 1) << text.toStdString();
    EXPECT_TRUE(text.contains("atlass")) << text.toStdString();
    EXPECT_FALSE(window.windowTitle().contains("Gateway")) << window.windowTitle().toStdString();

    // A good one: its title in the window's.
    const QString good = QString::fromStdString(scenarioDirectory() + "/gateway/day-eu-atlas-slow.json");
    ASSERT_TRUE(window.openFile(good));
    ASSERT_NE(window.gatewayView(), nullptr);
    const GatewayRunSpec opened = window.gatewayView()->runSpec();
    EXPECT_EQ(opened.name, "day-eu-atlas-slow");
    EXPECT_TRUE(window.windowTitle().contains(QString::fromStdString(opened.title)))
        << window.windowTitle().toStdString();

    // On the gateway tab: the run goes on, the gateway's banner says why, once.
    EXPECT_FALSE(window.openFile(broken));
    EXPECT_EQ(window.gatewayView()->runSpec().name, opened.name);
    EXPECT_EQ(window.gatewayView()->runSpec().file, opened.file);
    EXPECT_EQ(window.gatewayView()->message().count(broken), 1)
        << window.gatewayView()->message().toStdString();
    EXPECT_TRUE(window.windowTitle().contains(QString::fromStdString(opened.title)));
}

}  // namespace
}  // namespace taillab::ui::test
