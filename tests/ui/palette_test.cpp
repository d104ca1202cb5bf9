// The window follows the application palette, dark included: charts draw on the palette's Base
// with its Text for titles and axes, series colours stay readable on it, and pass / fail cells,
// banners and the gateway's stage cards take palette-derived colours instead of fixed white and
// light green.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QImage>
#include <QPushButton>
#include <QTableWidget>

#include "message_banner.h"
#include "palette_colors.h"
#include "plots/chart_style.h"
#include "results_panel.h"
#include "table_widgets.h"
#include "theme.h"
#include "theme_test_support.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

class PaletteTest : public ::testing::TestWithParam<bool> {};

TEST_P(PaletteTest, ChartsAndChecksTakeTheirColoursFromThePalette) {
    const bool dark = GetParam();
    SystemThemeAfter restore;
    MainWindow window(scenarioDirectory());
    // As a user picks it: View -> Theme.
    auto* pick = window.findChild<QAction*>(dark ? "theme_dark" : "theme_light");
    ASSERT_NE(pick, nullptr);
    pick->trigger();
    EXPECT_EQ(currentTheme(), dark ? Theme::Dark : Theme::Light);
    const QPalette pal = QApplication::palette();
    EXPECT_EQ(isDark(pal), dark);
    DrawnRecorder recorder(window);
    window.resize(1280, 720);
    window.show();
    const quint64 generation = window.controller()->generation();
    ASSERT_TRUE(window.openScenario("hedge-idle-published"));
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    QApplication::processEvents();

    ChartView* view = window.chartArea()->pane(0)->view();
    ASSERT_NE(view, nullptr);
    const QImage image = view->grab().toImage();
    // The corner of a chart is its background: the palette's Base.
    EXPECT_TRUE(near(image.pixelColor(3, 3), pal.color(QPalette::Base)))
        << image.pixelColor(3, 3).name().toStdString() << " vs "
        << pal.color(QPalette::Base).name().toStdString();
    const chart_style::PlotColors look = chart_style::plotColors(pal);
    EXPECT_GE(chart_style::contrastRatio(look.text, look.background), 7.0);
    EXPECT_GE(chart_style::contrastRatio(look.axis, look.background), 3.0);
    EXPECT_LT(chart_style::contrastRatio(look.grid, look.background), 2.0) << "the grid stays faint";
    const Chart& chart = window.latestResult()->charts.front();
    for (const QColor& c : chart_style::seriesColors(chart, look.background))
        EXPECT_GE(chart_style::contrastRatio(c, look.background), dark ? 3.0 : 1.5) << c.name().toStdString();

    // Pass / fail cells: a faint tint of the Base, text that reads on it.
    QTableWidget* table = window.resultsPanel()->checksTable();
    int verdicts = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        QTableWidgetItem* v = table->item(row, 4);
        if (!v || (v->text() != "pass" && v->text() != "FAIL")) continue;
        ++verdicts;
        // The colours the cell is drawn in, from the table's palette at the time.
        const std::optional<ToneColors> tone = toneColors(v->data(kCellToneRole), table->palette());
        ASSERT_TRUE(tone.has_value()) << v->text().toStdString();
        const QColor fill = tone->fill;
        EXPECT_EQ(isDark(pal), fill.lightnessF() < 0.5) << fill.name().toStdString();
        EXPECT_GE(chart_style::contrastRatio(tone->text, fill), 4.5);
    }
    EXPECT_GT(verdicts, 0);

    // The banner's text reads on its tint.
    window.openScenario("no-such-scenario");
    QApplication::processEvents();
    EXPECT_TRUE(window.banner()->isVisible());
    const QImage banner = window.banner()->grab().toImage();
    const QColor tint = banner.pixelColor(banner.width() / 2, 2 + banner.height() / 8);
    EXPECT_EQ(isDark(pal), tint.lightnessF() < 0.5) << tint.name().toStdString();
    // Its text reads on that tint (WCAG AA, 4.5:1): the colours it draws, from the palette, for
    // either kind; the label has that text colour; the tint drawn is the one computed.
    for (const auto kind : {MessageBanner::Kind::Error, MessageBanner::Kind::Notice}) {
        const MessageBanner::Colors c = MessageBanner::colorsFor(pal, kind);
        EXPECT_GE(chart_style::contrastRatio(c.text, c.fill), MessageBanner::kMinContrast)
            << c.text.name().toStdString() << " on " << c.fill.name().toStdString();
    }
    const MessageBanner::Colors drawn = window.banner()->colors();
    EXPECT_TRUE(near(tint, drawn.fill, 3)) << tint.name().toStdString() << " vs " << drawn.fill.name().toStdString();
    EXPECT_EQ(window.banner()->labelTextColor(), drawn.text);
    EXPECT_GE(chart_style::contrastRatio(window.banner()->labelTextColor(), tint), MessageBanner::kMinContrast);
    // A theme switched while the banner shows: tint and text follow it together (a style sheet
    // used to keep the old tint under the new text).
    window.findChild<QAction*>(dark ? "theme_light" : "theme_dark")->trigger();
    QApplication::processEvents();
    const QImage switched = window.banner()->grab().toImage();
    const QColor tint2 = switched.pixelColor(switched.width() / 2, 2 + switched.height() / 8);
    EXPECT_EQ(!dark, tint2.lightnessF() < 0.5) << tint2.name().toStdString();
    EXPECT_GE(chart_style::contrastRatio(window.banner()->labelTextColor(), tint2), MessageBanner::kMinContrast)
        << window.banner()->labelTextColor().name().toStdString() << " on " << tint2.name().toStdString();
    if (qEnvironmentVariableIsSet("TAILLAB_SHOTS"))
        window.grab().save(QString("/tmp/palette-%1.png").arg(dark ? "dark" : "light"));
}

// The theme is kept with the settings and comes back with the window.
// The media icons follow the palette: light on a dark theme, dark on a light one, and they change
// with it.
// Two charts of a lab side by side give a series of the same name the same colour: "hedged"
// was red on the left and green on the right (fanout-hedge-independent), where green meant a
// closed form on the left.
TEST(PaletteTest, ASeriesNameHasOneColourInEveryChartOfALab) {
    const auto series = [](std::string name, SeriesRole role = SeriesRole::Simulated) {
        Series s;
        s.name = std::move(name);
        s.role = role;
        return s;
    };
    Chart left, right;
    left.series = {series("unhedged"), series("hedged"), series("request: max of N", SeriesRole::ClosedForm)};
    right.series = {series("hedged"), series("request: max of N"), series("unhedged")};
    const std::vector<QString> plan = chart_style::colourPlan({left, right});
    ASSERT_EQ(plan.size(), 3u);
    const auto l = chart_style::seriesColors(left, Qt::white, plan);
    const auto r = chart_style::seriesColors(right, Qt::white, plan);
    EXPECT_EQ(l[1], r[0]) << "hedged";
    EXPECT_EQ(l[0], r[2]) << "unhedged";
    EXPECT_EQ(l[2], r[1]) << "a closed form and the simulated series it names";
    EXPECT_NE(l[0], l[1]);
    EXPECT_NE(l[1], l[2]);
    // Without the plan each chart counts from its own first series: the same name differs.
    EXPECT_NE(chart_style::seriesColors(left)[1], chart_style::seriesColors(right)[0]);
    // Two series of one role and one key in a chart still get two colours.
    Chart twice;
    twice.series = {series("hedged"), series("hedged simulated")};
    const auto t = chart_style::seriesColors(twice, Qt::white, chart_style::colourPlan({twice}));
    EXPECT_NE(t[0], t[1]);
}

TEST(ThemeTest, MediaIconsTakeTheButtonTextColour) {
    SystemThemeAfter restore;
    QPushButton button("Stop");
    const auto meanOpaqueLightness = [&] {
        const QImage image = button.icon().pixmap(16, 16).toImage();
        long sum = 0, n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                if (c.alpha() < 200) continue;
                sum += c.lightness();
                ++n;
            }
        EXPECT_GT(n, 0) << "the icon has no opaque pixels";
        return n ? sum / n : -1;
    };
    applyTheme(Theme::Dark);
    button.setPalette(QApplication::palette());
    setPaletteIcon(&button, QStyle::SP_MediaStop);
    EXPECT_GT(meanOpaqueLightness(), 160);
    applyTheme(Theme::Light);
    button.setPalette(QApplication::palette());  // a PaletteChange: re-tinted
    EXPECT_LT(meanOpaqueLightness(), 100);
    setPaletteIcon(&button, QStyle::SP_MediaPlay);  // another icon, the same filter
    EXPECT_EQ(button.findChildren<QObject*>(QString(), Qt::FindDirectChildrenOnly).size(), 1);
}

TEST(ThemeTest, TheChosenThemeSurvivesARestart) {
    SystemThemeAfter restore;
    QTemporaryDir dir;
    QSettings settings(dir.filePath("taillab.ini"), QSettings::IniFormat);
    {
        MainWindow window(scenarioDirectory());
        window.findChild<QAction*>("theme_dark")->trigger();
        window.saveSettings(settings);
    }
    settings.sync();
    applyTheme(Theme::System);
    EXPECT_FALSE(isDark(QApplication::palette()));
    MainWindow window(scenarioDirectory());
    window.restoreSettings(settings, false);
    EXPECT_EQ(currentTheme(), Theme::Dark);
    EXPECT_TRUE(isDark(QApplication::palette()));
    EXPECT_TRUE(window.findChild<QAction*>("theme_dark")->isChecked());
    EXPECT_EQ(parseTheme("sepia"), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(LightAndDark, PaletteTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Dark" : "Light"; });

}  // namespace
}  // namespace taillab::ui::test
