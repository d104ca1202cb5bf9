// The taillab executable as a script uses it: --export and --screenshot render one scenario and
// exit, and bad arguments are refused with exit code 2.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QtSvg/QSvgRenderer>
#include <QTemporaryDir>

#include <utility>
#include <vector>

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
    // A lab's scenario given as a gateway one (the region router's incidents sit beside the
    // gateway's): refused, saying where it opens.
    r = runApp({"--live", "incidents/fra-incident", "--screenshot", dir.filePath("x.png")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("a scenario for the 'region_router' lab, not for the gateway; it opens on "
                                  "the Labs tab"))
        << r.errors.toStdString();
}

// A --size no export could hold is refused before a window opens (it used to ask the display
// for gigabytes and hang), as is one too long to be a number; --help says the bound.
TEST(AppTest, ASizeLargerThanAnExportCanHoldIsRefusedBeforeAWindowOpens) {
    QTemporaryDir dir;
    const QString png = dir.filePath("x.png");
    for (const QString size : {"100000x100000", "800x100000", "99999999999999999999x600"}) {
        const AppRun r = runApp({"labs/fanout", "--size", size, "--screenshot", png});
        EXPECT_EQ(r.exitCode, 2) << size.toStdString() << "\n" << r.errors.toStdString();
        EXPECT_TRUE(r.errors.contains("--size " + size + " is larger than taillab draws: at most "))
            << r.errors.toStdString();
        EXPECT_FALSE(QFileInfo::exists(png));
    }
    const AppRun help = runApp({"--help"}, /*display=*/false);
    const QRegularExpression bound("at most (\\d+) a side");
    const QRegularExpressionMatch m = bound.match(help.output.simplified());
    ASSERT_TRUE(m.hasMatch()) << help.output.toStdString();
    const AppRun refused = runApp({"labs/fanout", "--size", QString("%1x600").arg(m.captured(1).toInt() + 1),
                                   "--screenshot", png});
    EXPECT_EQ(refused.exitCode, 2) << refused.errors.toStdString();
    EXPECT_TRUE(help.output.contains("Exit codes:")) << help.output.toStdString();
}

// An option that means nothing without another, a second SCENARIO, and an option given twice
// are refused (exit 2, before a window opens) instead of being quietly ignored by a window that
// opens anyway.
TEST(AppTest, OptionsThatWouldBeIgnoredAreRefused) {
    QTemporaryDir dir;
    const QString png = dir.filePath("x.png");
    const std::vector<std::pair<QStringList, QString>> cases{
        {{"--until", "36h", "labs/fanout"}, "--until goes with --gateway, --incident or --live"},
        {{"labs/fanout", "extra_arg"}, "one SCENARIO at most: 'extra_arg' is one too many after 'labs/fanout'"},
        {{"--gateway", "--until", "3h"}, "--until goes with --screenshot or --export"},
        {{"--gateway", "--sweep"}, "--sweep goes with --screenshot or --export"},
        {{"--sweep", "--screenshot", png}, "--sweep goes with --gateway"},
        {{"--chart", "gateway_queue", "--export", dir.filePath("x.csv")}, "--chart goes with --gateway"},
        {{"--gateway", "--until", "1h", "--chart", "gateway_queue", "--screenshot", png},
         "--chart names the chart --export writes"},
        {{"--rate", "50", "--from", "38"}, "--rate and --from go with --live"},
        {{"--live", "--until", "5s"}, "--until goes with --screenshot under --live"},
        {{"--live", "--export", png}, "--live grabs the window with --screenshot; it has no --export"},
        {{"--gateway", "--live"}, "use one of --incident, --gateway and --live"},
        {{"--size", "800x600", "--size", "1024x768"}, "--size given twice ('800x600', then '1024x768')"},
        {{"--incident", "a", "b"}, "one SCENARIO at most: 'b' is one too many after 'a'; compare with --compare B"},
    };
    for (const auto& [args, says] : cases) {
        const AppRun r = runApp(args);
        EXPECT_EQ(r.exitCode, 2) << args.join(' ').toStdString() << "\n" << r.errors.toStdString();
        EXPECT_TRUE(r.errors.contains("taillab: " + says)) << args.join(' ').toStdString() << "\n"
                                                           << r.errors.toStdString();
    }
}

// Every bad input exits 2 with the option (and the path) it is about, before any work: an unknown
// option, a missing value, an output nowhere to be written. 1 is kept for taillab's own failures.
TEST(AppTest, BadInputExitsTwoNamingTheOptionAndWhy) {
    QTemporaryDir dir;
    AppRun r = runApp({"--bogus"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("taillab: Unknown option 'bogus' (try taillab --help)")) << r.errors.toStdString();
    r = runApp({"labs/fanout", "--screenshot"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.errors.contains("screenshot")) << r.errors.toStdString();
    const QString missing = dir.filePath("no/such/dir");
    r = runApp({"labs/fanout", "--export", missing + "/x.png"});
    EXPECT_EQ(r.exitCode, 2) << r.errors.toStdString();
    EXPECT_TRUE(r.errors.contains("--export " + missing + "/x.png: the directory '" + missing + "' does not exist"))
        << r.errors.toStdString();
    {
        QFile f(dir.filePath("file"));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    }
    r = runApp({"--gateway", "--until", "1h", "--screenshot", dir.filePath("file/x.png")});
    EXPECT_EQ(r.exitCode, 2) << r.errors.toStdString();
    EXPECT_TRUE(r.errors.contains("--screenshot " + dir.filePath("file/x.png") + ": '" + dir.filePath("file") +
                                  "' is not a directory"))
        << r.errors.toStdString();
    r = runApp({"--incident", "--export", dir.path()  + "/"});
    EXPECT_EQ(r.exitCode, 2) << r.errors.toStdString();
    EXPECT_TRUE(r.errors.contains("--export needs a .png")) << r.errors.toStdString();
    r = runApp({"labs/coordinated-omission", "--export", dir.filePath("sub.png")});
    EXPECT_EQ(r.exitCode, 0) << r.errors.toStdString();  // the check leaves nothing behind
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
              QStringList({"file", "sub.png"}));
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
