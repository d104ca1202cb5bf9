// The taillab executable as a script uses it: --export and --screenshot render one scenario and
// exit, and bad arguments are refused with exit code 2.
#include <gtest/gtest.h>

#include <QFileInfo>
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

// A gateway chart id that does not exist is refused with the ids that do, as --help lists them;
// the sweep's chart needs the sweep.
TEST(AppTest, AnUnknownGatewayChartIsRefusedWithTheValidIds) {
    QTemporaryDir dir;
    AppRun r = runApp({"--gateway", "--until", "1h", "--chart", "nosuchchart", "--export",
                       dir.filePath("x.csv")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("no gateway chart 'nosuchchart'; the charts: gateway_percentiles, "))
        << r.errors.toStdString();
    EXPECT_TRUE(r.errors.contains("gateway_hedge_sweep")) << r.errors.toStdString();
    r = runApp({"--gateway", "--until", "1h", "--chart", "gateway_hedge_sweep", "--export",
                dir.filePath("x.csv")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("add --sweep")) << r.errors.toStdString();
    QProcess help;
    help.start(TAILLAB_GUI_PATH, {"--help"});
    ASSERT_TRUE(help.waitForFinished(60000));
    const QString text = QString::fromUtf8(help.readAllStandardOutput());
    EXPECT_TRUE(text.contains("gateway_hedge_sweep")) << text.toStdString();
}

// With --sweep, --export writes the sweep's chart (it used to write the percentiles, byte for
// byte what the export without --sweep wrote).
TEST(AppTest, TheGatewaySweepExportsItsOwnChart) {
    QTemporaryDir dir;
    const QString csv = dir.filePath("sweep.csv");
    const AppRun r = runApp({"--gateway", "--until", "1h", "--sweep", "--export", csv});
    ASSERT_EQ(r.exitCode, 0) << r.errors.toStdString();
    const std::string text = taillab::ui::test::readFile(csv);
    EXPECT_NE(text.find("# Hedge delay: p99 against extra upstream load; x: Extra upstream load"),
              std::string::npos)
        << text.substr(0, 300);
    EXPECT_NE(text.find("simulated, fixed delay"), std::string::npos);
}

// --until past the end of the gateway run is refused (as --incident refuses it, and --pick past
// --until), not quietly cut to the run's end.
TEST(AppTest, AGatewayRunIsNotRunPastItsEnd) {
    QTemporaryDir dir;
    const AppRun r = runApp({"--gateway", "--until", "30d", "--screenshot", dir.filePath("x.png")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("--until 30d is past the end of the run, which covers 7 days"))
        << r.errors.toStdString();
    EXPECT_FALSE(QFileInfo::exists(dir.filePath("x.png")));
}

// A --size smaller than the window can be is said on stderr, with the size used.
TEST(AppTest, ASizeBelowTheWindowsMinimumIsReported) {
    QTemporaryDir dir;
    const QString png = dir.filePath("shot.png");
    const AppRun r = runApp({"averaging_percentiles", "--screenshot", png, "--size", "10x10"});
    ASSERT_EQ(r.exitCode, 0) << r.errors.toStdString();
    EXPECT_TRUE(r.errors.contains("--size 10x10 is smaller than the window can be"))
        << r.errors.toStdString();
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_TRUE(r.errors.contains(QString("it is %1x%2").arg(image.width()).arg(image.height())))
        << r.errors.toStdString();
}

}  // namespace
