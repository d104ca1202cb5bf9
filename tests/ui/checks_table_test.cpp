// The checks table keeps every check's name whole: with a pinned run's "Δ vs pinned" column at
// 1280x720 the names still read ("p50 before", "p50 after", not "p50 …" twice), a long one
// wrapping; with room to spare the names' column takes it all.
#include <gtest/gtest.h>

#include <QApplication>
#include <QHeaderView>
#include <QScrollBar>
#include <QStyle>
#include <QTableWidget>

#include "knob_panel.h"
#include "results_panel.h"
#include "ui_test_support.h"

namespace taillab::ui::test {
namespace {

int sectionsWidth(const QTableWidget& table) {
    int sum = 0;
    for (int c = 0; c < table.columnCount(); ++c) sum += table.horizontalHeader()->sectionSize(c);
    return sum;
}

// Each name shows whole: on one line when the column is as wide as it, else wrapped (a name longer
// than 40% of the table) with every word on a line of its own width and the row tall enough for
// all its lines. Names no longer than that always take one line.
void expectNamesWhole(QTableWidget& table) {
    const int width = table.horizontalHeader()->sectionSize(0);
    const int margins = 2 * (table.style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, &table) + 1);
    int names = 0;
    for (int row = 0; row < table.rowCount(); ++row) {
        QTableWidgetItem* name = table.item(row, 0);
        if (!name || table.columnSpan(row, 0) > 1) continue;
        ++names;
        const QString text = name->text();
        const QFontMetrics metrics(name->font());
        const int line = metrics.horizontalAdvance(text);
        if (line <= table.viewport()->width() * 0.4) {
            EXPECT_GE(width, line + margins) << text.toStdString() << ": on one line";
            continue;
        }
        if (width >= line + margins) continue;
        for (const QString& word : text.split(' ', Qt::SkipEmptyParts))
            EXPECT_GE(width, metrics.horizontalAdvance(word) + margins) << word.toStdString();
        const QRect wrapped = metrics.boundingRect(QRect(0, 0, width - margins, 10000), Qt::TextWordWrap, text);
        EXPECT_GE(table.rowHeight(row), wrapped.height()) << text.toStdString() << ": every line shows";
    }
    EXPECT_GT(names, 3);
}

// A bound reads as its value does: grouped ("≤ 15,784.7" beside "14,782"), not "≤ 15784.7".
TEST(ChecksTable, ABoundIsGroupedAsTheValueIs) {
    LabResult r;
    r.lab = "gateway";
    r.checks.push_back(makeClaim("hedges within the budget", 14782, Bound::AtMost, 15784.7, true, "budget"));
    ResultsPanel panel;
    panel.setResult(&r);
    QTableWidget* table = panel.checksTable();
    QStringList cells;
    for (int row = 0; row < table->rowCount(); ++row)
        for (int c = 0; c < table->columnCount(); ++c)
            if (table->item(row, c)) cells << table->item(row, c)->text();
    EXPECT_TRUE(cells.contains("14,782")) << cells.join(" | ").toStdString();
    EXPECT_TRUE(cells.contains(QString::fromUtf8("\u2264 15,784.7"))) << cells.join(" | ").toStdString();
}

class ChecksTableTest : public ::testing::TestWithParam<QSize> {};

TEST_P(ChecksTableTest, CheckNamesStayWholeWithAPinnedRunsDeltaColumn) {
    const QSize size = GetParam();
    MainWindow window(scenarioDirectory());
    DrawnRecorder recorder(window);
    window.resize(size);
    window.show();
    ASSERT_TRUE(openAndWait(window, recorder, "hedge-idle"));
    window.pinBaselineAction()->trigger();
    ASSERT_NE(window.baseline(), nullptr);
    const quint64 generation = window.controller()->generation();
    window.knobPanel()->applyValue("shared_fraction", 0.5);  // as the tester did
    ASSERT_TRUE(waitForNewFinal(window, recorder, generation));
    QTest::qWait(20);  // the table's columns settle on the next turns of the event loop
    QApplication::processEvents();

    QTableWidget* table = window.resultsPanel()->checksTable();
    ASSERT_EQ(table->columnCount(), ResultsPanel::kDeltaColumn + 1);
    expectNamesWhole(*table);
    const QAbstractItemView* view = table;  // QTableView's sizeHintForColumn is protected
    for (int c = 1; c < table->columnCount(); ++c)
        EXPECT_GE(table->horizontalHeader()->sectionSize(c), view->sizeHintForColumn(c)) << c;
    // A scroll bar coming or going changes the room; the columns follow on a later turn, and the
    // scroll bar's range on the turn after that (the view lays out its geometry when idle).
    const auto settled = [&] {
        const int s = sectionsWidth(*table), v = table->viewport()->width();
        return s >= v && (s == v || table->horizontalScrollBar()->maximum() >= s - v);
    };
    EXPECT_TRUE(QTest::qWaitFor(settled, 2000)) << "no room left unused, or columns out of reach";
    const int sections = sectionsWidth(*table);
    const int viewport = table->viewport()->width();
    if (sections > viewport) {
        EXPECT_GE(table->horizontalScrollBar()->maximum(), sections - viewport)
            << "the columns the names push out are reached by scrolling";
    } else {
        EXPECT_EQ(sections, viewport) << "the names' column takes the room left";
    }
    saveScreenshot(window, QString("checks-pinned-%1x%2").arg(size.width()).arg(size.height()));

    // Wider: the names' column takes the room the numbers leave, still whole.
    const int before = table->horizontalHeader()->sectionSize(0);
    window.resize(size.width() + 400, size.height());
    EXPECT_TRUE(QTest::qWaitFor([&] { return sectionsWidth(*table) >= table->viewport()->width(); }, 2000))
        << "no room left unused";
    expectNamesWhole(*table);
    EXPECT_GE(table->horizontalHeader()->sectionSize(0), before);
    if (sectionsWidth(*table) <= table->viewport()->width()) {
        EXPECT_EQ(sectionsWidth(*table), table->viewport()->width());
    }
}

INSTANTIATE_TEST_SUITE_P(WindowSizes, ChecksTableTest,
                         ::testing::Values(QSize(1280, 720), QSize(1920, 1080)),
                         [](const auto& info) {
                             return std::to_string(info.param.width()) + "x" +
                                    std::to_string(info.param.height());
                         });

}  // namespace
}  // namespace taillab::ui::test
