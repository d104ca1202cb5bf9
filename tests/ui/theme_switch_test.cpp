// View -> Theme while a result is on screen: the charts and the checks table already drawn take the
// new palette at once, in both directions, as a window started in that theme would show them.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QImage>
#include <QTableWidget>

#include "palette_colors.h"
#include "results_panel.h"
#include "theme.h"
#include "theme_test_support.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

// The first "pass" cell of the checks table as drawn: a pixel inside the cell clear of its text.
std::optional<QColor> drawnPassCell(QTableWidget& table) {
    for (int row = 0; row < table.rowCount(); ++row) {
        QTableWidgetItem* v = table.item(row, 4);
        if (!v || v->text() != "pass") continue;
        table.scrollToItem(v);
        QApplication::processEvents();
        const QRect cell = table.visualItemRect(v);
        const QImage image = table.viewport()->grab().toImage();
        return image.pixelColor(cell.left() + 3, cell.center().y());
    }
    return std::nullopt;
}

class ThemeSwitchTest : public ::testing::TestWithParam<bool> {};

TEST_P(ThemeSwitchTest, ChartsAndChecksAlreadyDrawnFollowTheNewTheme) {
    const bool toDark = GetParam();
    SystemThemeAfter restore;
    applyTheme(toDark ? Theme::Light : Theme::Dark);
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.resize(1280, 720);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "hedge-idle"));
    QApplication::processEvents();
    QTableWidget* table = window.resultsPanel()->checksTable();
    const QPalette before = QApplication::palette();
    std::vector<ChartView*> views;
    for (int i = 0; i < ChartArea::kPanes; ++i)
        if (ChartView* v = window.chartArea()->pane(i)->view(); v && v->isVisible()) views.push_back(v);
    ASSERT_EQ(views.size(), 2u);
    for (ChartView* v : views)
        ASSERT_TRUE(near(v->grab().toImage().pixelColor(3, 3), before.color(QPalette::Base)));
    const std::optional<QColor> passBefore = drawnPassCell(*table);
    ASSERT_TRUE(passBefore.has_value()) << "hedge-idle has passing checks";
    EXPECT_TRUE(near(*passBefore, passFill(before), 3)) << passBefore->name().toStdString();
    saveScreenshot(window, QString("theme-switch-%1-before").arg(toDark ? "to-dark" : "to-light"));

    // As a user switches: View -> Theme, no new run.
    const quint64 generation = window.controller()->generation();
    window.findChild<QAction*>(toDark ? "theme_dark" : "theme_light")->trigger();
    QApplication::processEvents();
    const QPalette after = QApplication::palette();
    ASSERT_EQ(isDark(after), toDark);
    ASSERT_NE(after.color(QPalette::Base), before.color(QPalette::Base));

    for (ChartView* v : views) {
        EXPECT_EQ(v->palette().color(QPalette::Base), after.color(QPalette::Base));
        const QColor corner = v->grab().toImage().pixelColor(3, 3);
        EXPECT_TRUE(near(corner, after.color(QPalette::Base)))
            << corner.name().toStdString() << " vs " << after.color(QPalette::Base).name().toStdString();
    }
    // Every chart the window holds, shown or not, has the new palette: nothing on the way down
    // (a style sheet) kept the old one from it.
    for (ChartView* v : window.findChildren<ChartView*>())
        EXPECT_EQ(v->palette().color(QPalette::Base), after.color(QPalette::Base)) << static_cast<int>(v->kind());
    for (QWidget* w : window.findChildren<QWidget*>())
        EXPECT_TRUE(w->styleSheet().isEmpty()) << w->metaObject()->className() << " "
                                               << w->objectName().toStdString();
    const std::optional<QColor> passAfter = drawnPassCell(*table);
    ASSERT_TRUE(passAfter.has_value());
    EXPECT_TRUE(near(*passAfter, passFill(after), 3))
        << passAfter->name().toStdString() << " vs " << passFill(after).name().toStdString();
    EXPECT_EQ(passAfter->lightnessF() < 0.5, toDark) << passAfter->name().toStdString();
    EXPECT_EQ(window.controller()->generation(), generation) << "restyled, not re-run";
    saveScreenshot(window, QString("theme-switch-%1-after").arg(toDark ? "to-dark" : "to-light"));
}

INSTANTIATE_TEST_SUITE_P(BothWays, ThemeSwitchTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "LightToDark" : "DarkToLight"; });

}  // namespace
}  // namespace taillab::ui::test
