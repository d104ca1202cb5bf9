// The taillab executable as a script uses it: --export and --screenshot render one scenario and
// exit, and bad arguments are refused with exit code 2.
#include <gtest/gtest.h>

#include <QFile>
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
    QString output;
};

// Runs taillab offscreen, or with no display at all when `display` is false.
AppRun runApp(const QStringList& args, bool display = true) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (display) {
        env.insert("QT_QPA_PLATFORM", "offscreen");
    } else {
        for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) env.remove(name);
    }
    p.setProcessEnvironment(env);
    p.start(TAILLAB_GUI_PATH, args);
    if (!p.waitForFinished(180000 * taillab::ui::test::kSlowdown)) {
        p.kill();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardError()), QString::fromUtf8(p.readAllStandardOutput())};
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

// --help and --version answer on a machine with no display (a build server, ssh).
TEST(AppTest, HelpAndVersionNeedNoDisplay) {
    AppRun r = runApp({"--help"}, /*display=*/false);
    EXPECT_EQ(r.exitCode, 0) << r.errors.toStdString();
    EXPECT_TRUE(r.output.contains("--live")) << r.output.toStdString();
    EXPECT_TRUE(r.output.contains("--gateway")) << r.output.toStdString();
    r = runApp({"--version"}, /*display=*/false);
    EXPECT_EQ(r.exitCode, 0) << r.errors.toStdString();
    EXPECT_TRUE(r.output.contains(TAILLAB_VERSION)) << r.output.toStdString();
}

// --live takes a scenario file as --gateway does, and refuses a missing or broken one with
// --gateway's words.
TEST(AppTest, LiveTakesAScenarioFileAndRefusesABrokenOneAsGatewayDoes) {
    QTemporaryDir dir;
    const QString broken = dir.filePath("mylive.json");
    {
        QFile f(broken);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(R"({"schema_version":1,"name":"mylive","lab":"gateway","seed":1,"params":{"dayz":1}})");
    }
    const AppRun live = runApp({"--live", broken});
    const AppRun gateway = runApp({"--gateway", broken, "--until", "1h", "--screenshot",
                                   dir.filePath("x.png")});
    EXPECT_EQ(live.exitCode, 2);
    EXPECT_EQ(gateway.exitCode, 2);
    EXPECT_TRUE(live.errors.contains("cannot open gateway scenario: " + broken + ":1:"))
        << live.errors.toStdString();
    EXPECT_EQ(live.errors.split('\n').filter("taillab:"), gateway.errors.split('\n').filter("taillab:"));
    const QString missing = dir.filePath("gone.json");
    const AppRun none = runApp({"--live", missing});
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_TRUE(none.errors.contains("no gateway scenario '" + missing + "'")) << none.errors.toStdString();
    EXPECT_FALSE(none.errors.contains("'gone'")) << "the path, not a name made of it";
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
    // Without --until, a one-day scenario runs to its end rather than being refused for 36h.
    const AppRun day = runApp({"--gateway", "gateway/day-eu-atlas-slow", "--screenshot",
                               dir.filePath("day.png")});
    EXPECT_EQ(day.exitCode, 0) << day.errors.toStdString();
    EXPECT_TRUE(QFileInfo::exists(dir.filePath("day.png")));
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
