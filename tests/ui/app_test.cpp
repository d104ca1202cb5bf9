// The taillab executable as a script uses it: --export and --screenshot render one scenario and
// exit, and bad arguments are refused with exit code 2.
#include <gtest/gtest.h>

#include <QImage>
#include <QProcess>
#include <QtSvg/QSvgRenderer>
#include <QTemporaryDir>

#include "ui_test_support.h"

namespace {

struct AppRun {
    int exitCode = -1;
    QString errors;
};

AppRun runApp(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.start(TAILLAB_GUI_PATH, args);
    if (!p.waitForFinished(180000 * taillab::ui::test::kSlowdown)) {
        p.kill();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardError())};
}

TEST(AppTest, ExportWritesTheVisibleChartAndExits) {
    QTemporaryDir dir;
    const QString svg = dir.filePath("chart.svg");
    const AppRun r = runApp({"labs/coordinated-omission", "--export", svg});
    ASSERT_EQ(r.exitCode, 0) << r.errors.toStdString();
    QSvgRenderer renderer(svg);
    EXPECT_TRUE(renderer.isValid());
}

TEST(AppTest, ScreenshotIsTheWholeWindow) {
    QTemporaryDir dir;
    const QString png = dir.filePath("shot.png");
    const AppRun r = runApp({"averaging_percentiles", "--screenshot", png, "--size", "1200x800"});
    ASSERT_EQ(r.exitCode, 0) << r.errors.toStdString();
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.width(), 1200);
    EXPECT_EQ(image.height(), 800);
}

TEST(AppTest, BadArgumentsAreRefused) {
    QTemporaryDir dir;
    AppRun r = runApp({"fanout", "--export", dir.filePath("chart.docx")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains(".png, .svg, .pdf, .csv or .json")) << r.errors.toStdString();
    r = runApp({"no-such-scenario", "--screenshot", dir.filePath("x.png")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("no scenario file 'no-such-scenario' (not a file, nor a name under"))
        << r.errors.toStdString();
    r = runApp({"fanout", "--size", "huge", "--screenshot", dir.filePath("x.png")});
    EXPECT_EQ(r.exitCode, 2);
    r = runApp({"fanout", "--theme", "sepia", "--screenshot", dir.filePath("x.png")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("--theme expects system, light or dark, not 'sepia'"))
        << r.errors.toStdString();
}

}  // namespace
