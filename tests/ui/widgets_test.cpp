// The pieces under the window: knob editors, the catalog, a chart's hover read-out and the run
// controller's latest-wins rule.
#include <gtest/gtest.h>

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QDoubleSpinBox>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <fstream>

#include "knob_editor.h"
#include "knob_panel.h"
#include "lab_catalog.h"
#include "scenario/scenario.h"
#include "plots/axis_tickers.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

TEST(KnobEditorTest, LogSliderMovesInLogSpaceAndShowsTheUnit) {
    const KnobSpec spec = KnobSpec::real("delay", "Delay", "ms", 1, 1000, 10, "how long").log();
    KnobEditor editor(spec, 10);
    QSignalSpy changed(&editor, &KnobEditor::valueChanged);
    editor.slider()->setValue(KnobEditor::kSliderSteps / 2);
    ASSERT_EQ(changed.count(), 1);
    EXPECT_NEAR(editor.value(), 31.62, 0.05);  // sqrt(1 * 1000), at the spin box's precision
    auto* spin = editor.findChild<QDoubleSpinBox*>("knob_spin_delay");
    ASSERT_NE(spin, nullptr);
    EXPECT_EQ(spin->suffix(), " ms");
    EXPECT_NEAR(spin->value(), editor.value(), 1e-9);
    EXPECT_EQ(spin->toolTip(), "how long");
}

// A share reads in percent, as the charts and tables show shares, while the knob's value (in
// scenario files and runs) stays the fraction: not "0.950 fraction" beside "95.0 %".
TEST(KnobEditorTest, AShareIsShownInPercentAndKeptAsAFraction) {
    const KnobSpec spec = KnobSpec::real("p", "Slow probability", "fraction", 0, 1, 0.01, "share", 0.001);
    KnobEditor editor(spec, 0.01);
    auto* spin = editor.findChild<QDoubleSpinBox*>("knob_spin_p");
    ASSERT_NE(spin, nullptr);
    EXPECT_EQ(spin->suffix(), " %");
    EXPECT_DOUBLE_EQ(spin->value(), 1.0);
    EXPECT_EQ(spin->decimals(), 1);
    EXPECT_DOUBLE_EQ(spin->maximum(), 100.0);
    QSignalSpy changed(&editor, &KnobEditor::valueChanged);
    spin->setValue(2.5);  // as typed: 2.5 %
    ASSERT_EQ(changed.count(), 1);
    EXPECT_DOUBLE_EQ(editor.value(), 0.025);
    editor.setValue(0.5);
    EXPECT_DOUBLE_EQ(spin->value(), 50.0);
    const KnobSpec valid =
        KnobSpec::real("t", "Threshold", "fraction valid", 0.05, 1, 0.8, "share valid", 0.01);
    KnobEditor threshold(valid, 0.8);
    EXPECT_EQ(threshold.findChild<QDoubleSpinBox*>("knob_spin_t")->suffix(), " % valid");
    EXPECT_EQ(threshold.findChild<QDoubleSpinBox*>("knob_spin_t")->text(), "80 % valid");
}

// A value set from outside (the timeline's hedge_budget 0.075 on a knob whose step is 0.01)
// showed as 0.07, and the box held 0.07: its digits were fixed when it was built.
TEST(KnobEditorTest, AValueSetFromOutsideShowsEveryDigitAndIsKeptAsItIs) {
    const KnobSpec spec =
        KnobSpec::real("budget", "Budget", "of primary rate", 0, 2, 0.15, "refill", 0.01);
    KnobEditor editor(spec, 0.15);
    auto* spin = editor.findChild<QDoubleSpinBox*>("knob_spin_budget");
    ASSERT_NE(spin, nullptr);
    EXPECT_EQ(spin->decimals(), 2);
    QSignalSpy changed(&editor, &KnobEditor::valueChanged);

    for (const double outside : {0.075, 0.125, 1.0625}) {
        editor.setValue(outside);
        EXPECT_EQ(editor.value(), outside);
        EXPECT_EQ(spin->value(), outside) << "the box holds the value, not a rounding of it";
        EXPECT_EQ(spin->text().toStdString(),
                  QString::number(outside, 'f', spin->decimals()).toStdString() + " of primary rate");
        EXPECT_EQ(spin->text().section(' ', 0, 0).toDouble(), outside);
    }
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_Return);  // the value shown, committed: no edit
    EXPECT_EQ(changed.count(), 0);
    EXPECT_EQ(editor.value(), 1.0625);

    editor.setValue(0.3);  // back on the grid: the knob's own digits
    EXPECT_EQ(spin->decimals(), 2);
    EXPECT_EQ(spin->text().toStdString(), "0.30 of primary rate");
}

// Scrolling the knob panel with the wheel once moved a spin box under the pointer (a breaker
// window from 10 s to 1 s) and quietly invalidated an experiment.
TEST(KnobPanelTest, AWheelOverAnUnfocusedKnobScrollsThePanelAndEditsNothing) {
    const Scenario s =
        loadScenarioFile(std::string(TAILLAB_SCENARIO_DIR) + "/gateway/week-v4-september.json");
    KnobPanel panel;
    panel.setScenario(s, "hedge_delay_ms");
    panel.resize(440, 320);
    panel.show();
    QApplication::setActiveWindow(&panel);
    QApplication::processEvents();
    auto* scroll = panel.findChild<QScrollArea*>();
    ASSERT_NE(scroll, nullptr);
    ASSERT_GT(scroll->verticalScrollBar()->maximum(), 0) << "the panel must be able to scroll";

    QAbstractSpinBox* spin = nullptr;
    for (auto* candidate : panel.findChildren<QAbstractSpinBox*>()) {
        if (!candidate->isVisible()) continue;
        const QPoint top = candidate->mapTo(scroll->viewport(), QPoint(0, 0));
        if (top.y() >= 0 && top.y() + candidate->height() <= scroll->viewport()->height()) {
            spin = candidate;
            break;
        }
    }
    ASSERT_NE(spin, nullptr);
    auto* editor = qobject_cast<KnobEditor*>(spin->parentWidget());
    ASSERT_NE(editor, nullptr);
    const double before = editor->value();
    QSignalSpy edited(&panel, &KnobPanel::edited);

    auto wheelDown = [&](QWidget* target) {
        const QPointF at(target->width() / 2.0, target->height() / 2.0);
        QWheelEvent wheel(at, target->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(target, &wheel);
    };
    wheelDown(spin);
    EXPECT_EQ(editor->value(), before);
    EXPECT_GT(scroll->verticalScrollBar()->value(), 0) << "the wheel scrolls the panel instead";
    if (editor->slider()) {
        const int scrolled = scroll->verticalScrollBar()->value();
        wheelDown(editor->slider());
        EXPECT_EQ(editor->value(), before);
        EXPECT_GE(scroll->verticalScrollBar()->value(), scrolled);
    }
    QTest::qWait(KnobPanel::kDebounceMs * 3);
    EXPECT_EQ(edited.count(), 0);

    // Once the knob has focus (a click or Tab), the wheel edits it.
    spin->setFocus(Qt::TabFocusReason);
    ASSERT_TRUE(spin->hasFocus());
    wheelDown(spin);
    EXPECT_NE(editor->value(), before);
}

// A knob that does nothing in the current mode is disabled, and its tooltip says why.
TEST(KnobPanelTest, AKnobUnusedInTheCurrentModeIsDisabledWithTheReason) {
    const Scenario s = loadScenarioFile(std::string(TAILLAB_SCENARIO_DIR) + "/labs/fanout.json");
    KnobPanel panel;
    panel.setScenario(s, "backends");
    KnobEditor* delay = panel.editor("hedge_delay_ms");
    ASSERT_NE(delay, nullptr);
    ASSERT_EQ(s.params.choice("hedge_mode"), "none");
    EXPECT_FALSE(delay->isEnabled());
    EXPECT_TRUE(delay->slider()->toolTip().contains("not used while Hedge is none"))
        << delay->slider()->toolTip().toStdString();
    auto* mode = panel.findChild<QComboBox*>("knob_combo_hedge_mode");
    ASSERT_NE(mode, nullptr);
    mode->setCurrentIndex(mode->findText("delayed"));
    EXPECT_TRUE(delay->isEnabled());
    EXPECT_FALSE(delay->slider()->toolTip().contains("not used"));
    mode->setCurrentIndex(mode->findText("immediate"));
    EXPECT_FALSE(delay->isEnabled());
    EXPECT_TRUE(delay->toolTip().contains("not used while Hedge is immediate"));
}

// A lone edit runs at once (no debounce delay before a click or key press shows); a burst of
// edits (a drag) runs at its start and once more after its last edit, not once per step.
TEST(KnobPanelTest, EditsRunOnTheLeadingEdgeAndOnceAfterABurst) {
    const Scenario s = loadScenarioFile(std::string(TAILLAB_SCENARIO_DIR) + "/labs/fanout.json");
    KnobPanel panel;
    panel.setScenario(s, "backends");
    QSignalSpy edited(&panel, &KnobPanel::edited);
    KnobEditor* editor = panel.editor("backends");
    ASSERT_NE(editor, nullptr);
    QSlider* slider = editor->slider();
    ASSERT_NE(slider, nullptr);
    slider->setValue(slider->value() + 1);
    EXPECT_EQ(edited.count(), 1) << "at once, not after the debounce";
    QTest::qWait(KnobPanel::kDebounceMs * 4);
    EXPECT_EQ(edited.count(), 1) << "nothing trails a lone edit";
    for (int i = 0; i < 10; ++i) slider->setValue(slider->value() + 1);
    EXPECT_EQ(edited.count(), 2) << "the burst's first step";
    QTest::qWait(KnobPanel::kDebounceMs * 4);
    EXPECT_EQ(edited.count(), 3) << "one more after the burst's last step";
    EXPECT_EQ(panel.editedScenario().params.real("backends"), editor->value());
}

// A choice reads in words ("backup only"); the value a scenario file holds stays the item's data.
TEST(KnobPanelTest, ChoicesReadInWords) {
    const Scenario s = loadScenarioFile(std::string(TAILLAB_SCENARIO_DIR) + "/labs/hedge-loaded.json");
    KnobPanel panel;
    panel.setScenario(s, "load");
    auto* cancel = panel.findChild<QComboBox*>("knob_combo_cancel");
    ASSERT_NE(cancel, nullptr);
    ASSERT_EQ(s.params.choice("cancel"), "backup_only");
    EXPECT_EQ(cancel->currentText(), "backup only");
    EXPECT_EQ(cancel->currentData().toString(), "backup_only");
    for (int i = 0; i < cancel->count(); ++i) EXPECT_FALSE(cancel->itemText(i).contains('_'));
}

// A slider shows where its value lies among the values runs use, for every knob of every
// scenario: "Stall at 30 s" (of a range up to 3,600 s) does not sit at the far left, nor does
// the HdrHistogram example's 100 s, nor July's 15 standby CPUs (of up to 4,096). A value
// strictly inside the range sits visibly inside the slider, at neither end.
TEST(KnobEditorTest, EveryScenarioValueSitsVisiblyOnItsSlider) {
    const LabCatalog catalog(scenarioDirectory());
    int checked = 0;
    for (const CatalogLab& lab : catalog.labs())
        for (const CatalogEntry& entry : lab.entries) {
            if (!entry.error.empty()) continue;
            const Params& params = entry.scenario.params;
            for (const KnobSpec& spec : params.specs()) {
                if (spec.kind != KnobKind::Real && spec.kind != KnobKind::Integer) continue;
                const double v = params.real(spec.key);
                if (v <= spec.min || v >= spec.max) continue;
                const KnobEditor editor(spec, v);
                const QSlider* s = editor.slider();
                const double t = double(s->value() - s->minimum()) / (s->maximum() - s->minimum());
                EXPECT_GE(t, 0.02) << entry.scenario.name << " " << spec.key << " = " << v;
                EXPECT_LE(t, 0.99) << entry.scenario.name << " " << spec.key << " = " << v;
                ++checked;
            }
        }
    EXPECT_GT(checked, 100);
}

// A knob from 0 whose values crowd its range's start moves on log(1 + value / c): both ends
// stay reachable, a slider position gives back the value it shows, and the spin box follows.
TEST(KnobEditorTest, AKnobFromZeroWithCrowdedValuesMovesInLogSpace) {
    const KnobSpec spec = KnobSpec::real("stall_at_s", "Stall at", "s", 0, 3600, 30, "when");
    KnobEditor editor(spec, 30);
    EXPECT_EQ(editor.sliderScale(), SliderScale::OffsetLog);
    const int at30 = editor.slider()->value();
    editor.setValue(100);
    EXPECT_GT(editor.slider()->value(), at30);
    EXPECT_GT(at30, KnobEditor::kSliderSteps / 5);
    editor.slider()->setValue(0);
    EXPECT_EQ(editor.value(), 0);
    editor.slider()->setValue(KnobEditor::kSliderSteps);
    EXPECT_EQ(editor.value(), 3600);
    editor.slider()->setValue(400);
    const double v = editor.value();
    EXPECT_GT(v, 0);
    EXPECT_LT(v, 3600);
    editor.setValue(v);
    EXPECT_EQ(editor.slider()->value(), 400);
    // A knob that asks for a log scale from 0 gets one, not a linear slider.
    const KnobSpec delay =
        KnobSpec::real("hedge_delay_ms", "Fixed hedge delay", "ms", 0, 10000, 20, "delay").log();
    EXPECT_EQ(KnobEditor(delay, 20).sliderScale(), SliderScale::OffsetLog);
    // A knob whose values spread over its range stays linear, an integer one direct.
    const KnobSpec share = KnobSpec::real("s", "Share", "fraction", 0, 1, 0.5, "share", 0.01);
    EXPECT_EQ(sliderScaleFor(share), SliderScale::Linear);
    EXPECT_EQ(sliderScaleFor(KnobSpec::integer("n", "N", "", 0, 32, 2, "n")), SliderScale::Direct);
}

// Units read as words: "1 day" and "7 days", "1 retry"; a factor takes the multiplication sign
// every other factor shows ("1.85 ×", not "1.85 x").
TEST(KnobEditorTest, UnitsReadInTheSingularForOneAndFactorsWithTheTimesSign) {
    KnobEditor days(KnobSpec::integer("days", "Days simulated", "days", 1, 7, 7, "days"), 1);
    auto* daySpin = days.findChild<QSpinBox*>("knob_spin_days");
    ASSERT_NE(daySpin, nullptr);
    EXPECT_EQ(daySpin->text(), "1 day");
    days.setValue(7);
    EXPECT_EQ(daySpin->text(), "7 days");
    KnobEditor retries(KnobSpec::integer("r", "Retries", "retries", 0, 3, 1, "r"), 1);
    EXPECT_EQ(retries.findChild<QSpinBox*>("knob_spin_r")->suffix(), " retry");
    KnobEditor skew(KnobSpec::real("skew", "Demand skew", "x", 0, 3, 1.85, "skew", 0.05), 1.85);
    EXPECT_EQ(skew.findChild<QDoubleSpinBox*>("knob_spin_skew")->text(), "1.85 ×");
}

TEST(KnobEditorTest, IntegerSpinBoxDrivesTheSlider) {
    const KnobSpec spec = KnobSpec::integer("n", "Backends", "backends", 1, 200, 50, "fan-out");
    KnobEditor editor(spec, 10);
    auto* spin = editor.findChild<QSpinBox*>("knob_spin_n");
    ASSERT_NE(spin, nullptr);
    spin->setValue(150);
    EXPECT_EQ(editor.value(), 150);
    EXPECT_EQ(editor.slider()->value(), 150);
    editor.setValue(20);  // programmatic: no signal, widgets follow
    EXPECT_EQ(spin->value(), 20);
}

TEST(LabCatalogTest, DefaultScenarioFirstBrokenFilesLastBuiltInWhenNone) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    auto write = [&](const QString& name, const std::string& text) {
        std::ofstream(dir.filePath(name).toStdString()) << text;
    };
    write("a-variant.json", R"({"schema_version": 1, "name": "a-variant", "lab": "fanout"})");
    write("fanout.json", R"({"schema_version": 1, "name": "fanout", "lab": "fanout"})");
    write("broken.json", R"({"schema_version": 1, "name": "broken", "lab": "fanout", "oops": 1})");
    // Over the scenario cap: refused unread, so no "lab" field is found to list it under (the
    // catalog once read such a file whole to find one).
    write("huge.json", R"({"lab": "fanout", "pad": ")" + std::string(kMaxScenarioBytes, 'x') + "\"}");
    LabCatalog catalog(dir.path().toStdString());
    const CatalogLab* fanout = catalog.lab("fanout");
    ASSERT_NE(fanout, nullptr);
    ASSERT_EQ(fanout->entries.size(), 3u);
    EXPECT_EQ(fanout->entries[0].scenario.name, "fanout");
    EXPECT_EQ(fanout->entries[1].scenario.name, "a-variant");
    EXPECT_FALSE(fanout->entries[2].error.empty());
    EXPECT_EQ(catalog.find("a-variant"), &fanout->entries[1]);
    EXPECT_EQ(catalog.find("fanout"), &fanout->entries[0]);
    for (const auto& l : catalog.labs()) {
        if (l.lab->id() == "fanout") continue;
        ASSERT_EQ(l.entries.size(), 1u) << l.lab->id();
        EXPECT_TRUE(l.entries[0].builtIn);
        EXPECT_EQ(catalog.find(l.lab->id()), &l.entries[0]);
    }
}

TEST(ChartViewTest, HoverReadoutNamesTheSeriesWithUnits) {
    Chart chart;
    chart.id = "distribution";
    chart.title = "Latency";
    chart.kind = ChartKind::Percentile;
    chart.x_label = "Percentile";
    chart.y_label = "Latency (ms)";
    chart.log_y = true;
    chart.series.push_back(
        Series{"request", SeriesRole::Simulated, {0.0, 0.9, 0.99, 0.999}, {1, 2, 5, 20}});
    std::unique_ptr<ChartView> view(ChartView::create(ChartKind::Percentile));
    view->resize(600, 400);
    view->show();
    view->setChart(chart);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    QString text;
    for (int x = 0; x < view->width() && text.isEmpty(); x += 8)
        for (int y = 0; y < view->height() && text.isEmpty(); y += 8) {
            view->showReadoutNear(QPoint(x, y));
            text = view->readoutText();
        }
    ASSERT_FALSE(text.isEmpty());
    if (const QByteArray dir = qgetenv("TAILLAB_UI_SHOT_DIR"); !dir.isEmpty()) {
        QTest::qWait(50);  // the queued replot
        view->grab().save(QString::fromLocal8Bit(dir) + "/readout.png");
    }
    EXPECT_TRUE(text.contains("request")) << text.toStdString();
    EXPECT_TRUE(text.contains("%")) << text.toStdString();
    EXPECT_TRUE(text.contains("Latency (ms)")) << text.toStdString();
    const auto drawn = view->plottedSeries();
    ASSERT_EQ(drawn.size(), 1u);
    ASSERT_EQ(drawn[0].x.size(), 4);
    EXPECT_NEAR(drawn[0].x[2], 0.99, 1e-12);
}

// A percentile chart with series but no points yet (a live run before its first request
// ends) spans whole nines, 0% to just past 99.9%; its first points then fit the axis to them.
TEST(ChartViewTest, AnEmptyPercentileChartSpansWholeNinesUntilItHasPoints) {
    Chart chart;
    chart.id = "latency";
    chart.kind = ChartKind::Percentile;
    chart.x_label = "Percentile";
    chart.y_label = "Latency (ms)";
    chart.log_y = true;
    chart.series.push_back(Series{"request", SeriesRole::Simulated, {}, {}});
    std::unique_ptr<ChartView> view(ChartView::create(ChartKind::Percentile));
    view->resize(600, 400);
    view->show();
    view->setChart(chart);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    EXPECT_EQ(view->viewRange().xLower, 0.85);
    EXPECT_EQ(view->viewRange().xUpper, 1500.0);
    chart.series[0].x = {0.0, 0.9, 0.99, 0.999, 0.9999};
    chart.series[0].y = {1, 2, 5, 20, 40};
    view->setChart(chart);
    EXPECT_GE(view->viewRange().xUpper, 10000.0) << "99.99% is drawn";
}

// A readout says a percentile to the digits its nines carry, not the float the curve holds.
TEST(ChartViewTest, PercentileReadoutsAreRoundedToTheirNines) {
    EXPECT_EQ(percentReadout(0.98004738), "98.0%");
    EXPECT_EQ(percentReadout(0.5), "50.0%");
    EXPECT_EQ(percentReadout(0.995), "99.5%");
    EXPECT_EQ(percentReadout(0.9995), "99.95%");
    EXPECT_EQ(percentReadout(0.99998), "99.998%");
    EXPECT_EQ(percentReadout(0.999), "99.90%");
    EXPECT_EQ(percentReadout(0.0), "0%");
    EXPECT_EQ(percentReadout(1.0), "100%");
}

TEST(ChartViewTest, WheelZoomsNewDataKeepsTheZoomDoubleClickResets) {
    Chart chart;
    chart.id = "xy";
    chart.kind = ChartKind::XY;
    chart.x_label = "Load (fraction)";
    chart.y_label = "p99 (ms)";
    chart.series.push_back(Series{"sim", SeriesRole::Simulated, {0, 1, 2, 3}, {1, 2, 3, 4}});
    std::unique_ptr<ChartView> view(ChartView::create(ChartKind::XY));
    view->resize(600, 400);
    view->show();
    view->setChart(chart);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    const auto fitted = view->viewRange();
    EXPECT_LE(fitted.xLower, 0);
    EXPECT_GE(fitted.xUpper, 3);

    auto* plot = view->findChild<QWidget*>();
    ASSERT_NE(plot, nullptr);
    const QPointF center(plot->width() / 2.0, plot->height() / 2.0);
    wheelZoomIn(*view);
    const auto zoomed = view->viewRange();
    EXPECT_TRUE(view->hasUserView());
    EXPECT_LT(zoomed.xUpper - zoomed.xLower, fitted.xUpper - fitted.xLower);

    chart.series[0].y = {2, 4, 6, 8};  // new data of the same series: the zoom stays
    view->setChart(chart);
    EXPECT_DOUBLE_EQ(view->viewRange().xLower, zoomed.xLower);
    EXPECT_DOUBLE_EQ(view->viewRange().xUpper, zoomed.xUpper);

    QTest::mouseDClick(plot, Qt::LeftButton, Qt::NoModifier, center.toPoint());
    EXPECT_FALSE(view->hasUserView());
    EXPECT_GE(view->viewRange().yUpper, 8);
    EXPECT_LE(view->viewRange().xLower, 0);
}

TEST(RunControllerTest, OnlyTheLatestRunReportsResults) {
    RunController controller;
    std::vector<LabResultPtr> seen;
    QObject::connect(&controller, &RunController::partialResult,
                     [&](const LabResultPtr& r) { seen.push_back(r); });
    QObject::connect(&controller, &RunController::finished,
                     [&](const LabResultPtr& r, double) { seen.push_back(r); });
    Scenario first = LabCatalog::builtInScenario(*findLab("fanout"));
    first.name = "first";
    Scenario second = first;
    second.name = "second";
    controller.start(first);
    controller.start(second);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !controller.running(); }, kRunTimeoutMs));
    ASSERT_FALSE(seen.empty());
    for (const auto& r : seen) EXPECT_EQ(r->scenario, "second");
    EXPECT_GE(seen.back()->progress, 1.0);
}

}  // namespace
}  // namespace taillab::ui::test
